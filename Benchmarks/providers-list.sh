#!/usr/bin/env bash
# `oauthflow providers list` against a trivial Swift + Foundation program, as the catalog grows (see
# Benchmarks/providers-list.py and Docs/benchmarks.md). Builds the release `oauthflow` with the Swift runtime
# linked statically, as the README installs it (in .build-static), and the floor linked the same way, then runs
# the pairs. An optional argument sets the number of pairs per row (default 15); BASELINE=path runs another
# `oauthflow` binary (the build before a change) in the same rounds.
export BENCHMARK_COMMAND="bash Benchmarks/providers-list.sh $*"
source "$(dirname "$0")/static-release.sh" providers-list
static_floor floor-foundation $'import Foundation\nprint(Date().timeIntervalSince1970 > 0 ? "" : "-")'
python3 "$root/Benchmarks/providers-list.py" "$root/.build-static/release/oauthflow" "$work/floor-foundation" "$work" "$@"
