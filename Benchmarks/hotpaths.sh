#!/usr/bin/env bash
# Paired benchmarks of the hot paths against git's own credential helper (see Benchmarks/hotpaths.py and
# Docs/benchmarks.md). Builds the release `oauthflow` and `oauthflow-launcher` with the Swift runtime
# linked statically, as the README installs them (in .build-static, so the usual build is untouched), and
# two trivial Swift programs linked the same way (without and with Foundation), then runs the pairs.
# An optional argument sets the number of pairs per row (default 40).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/Benchmarks/.build/hotpaths"
mkdir -p "$work"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

swift build -c release --product oauthflow --static-swift-stdlib --scratch-path "$root/.build-static" >&2
if [ ! -x "$work/floor-bare" ]; then
    printf 'print("")\n' >"$work/floor-bare.swift"
    swiftc -O -static-stdlib "$work/floor-bare.swift" -o "$work/floor-bare"
fi
if [ ! -x "$work/floor-foundation" ]; then
    printf 'import Foundation\nprint(Date().timeIntervalSince1970 > 0 ? "" : "-")\n' >"$work/floor-foundation.swift"
    swiftc -O -static-stdlib "$work/floor-foundation.swift" -o "$work/floor-foundation" 2>/dev/null
fi
python3 "$root/Benchmarks/hotpaths.py" "$root/.build-static/release" "$work/floor-bare" "$work/floor-foundation" "$work" "$@"
