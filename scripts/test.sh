#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: builds everything and runs `swift test`.
# Usage: bash scripts/test.sh [extra swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    else
        echo "error: swift is not on PATH; install Swift 6.0 or later" >&2
        exit 1
    fi
fi

swift build --build-tests
swift test --skip-build "$@"
