#!/usr/bin/env bash
# Paired benchmarks of the hot paths against git's own credential helper (see Benchmarks/hotpaths.py and
# Docs/benchmarks.md). Builds the release `oauthflow` and `oauthflow-launcher` with the Swift runtime
# linked statically, as the README installs them (in .build-static, so the usual build is untouched), and
# two trivial Swift programs linked the same way (without and with Foundation), then runs the pairs.
# An optional argument sets the number of pairs per row (default 40).
export BENCHMARK_COMMAND="bash Benchmarks/hotpaths.sh $*"
source "$(dirname "$0")/static-release.sh" hotpaths
static_floor floor-bare 'print("")'
static_floor floor-foundation $'import Foundation\nprint(Date().timeIntervalSince1970 > 0 ? "" : "-")'
python3 "$root/Benchmarks/hotpaths.py" "$root/.build-static/release" "$work/floor-bare" "$work/floor-foundation" "$work" "$@"
