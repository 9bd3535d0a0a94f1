# Sourced by compare.sh and hotpaths.sh, with the name of their work folder under Benchmarks/.build:
# sets `root` and `work`, finds swift, builds the release `oauthflow` and `oauthflow-launcher` with the
# Swift runtime linked statically, as the README installs them (in .build-static, so the usual build is
# untouched), and defines `static_floor NAME SOURCE`, which builds a trivial Swift program linked the
# same way into $work/NAME once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
work="$root/Benchmarks/.build/$1"
mkdir -p "$work"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

swift build -c release --traits CLI --product oauthflow --static-swift-stdlib --scratch-path "$root/.build-static" >&2
swift build -c release --traits CLI --product oauthflow-launcher --static-swift-stdlib --scratch-path "$root/.build-static" >&2

static_floor() {
    if [ ! -x "$work/$1" ]; then
        printf '%s\n' "$2" >"$work/$1.swift"
        swiftc -O -static-stdlib "$work/$1.swift" -o "$work/$1" 2>/dev/null
    fi
}
