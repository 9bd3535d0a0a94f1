#!/usr/bin/env bash
# The ServiceTokens benchmark (see Docs/benchmarks.md), outside the test suite: cached-hit cost per
# call, and 10,000 concurrent callers on a key with no usable token against one plain round trip.
#
# Starts the Authlib service-token server (Tests/ServiceServer, scripts/servers.sh) on
# 127.0.0.1, builds ServiceTokenBenchmark in release mode (BUILD=debug for a quick dry run), runs it
# against the server, and stops the server: nothing is left running.
#
#   bash Benchmarks/service-tokens.sh [CALLS] [RUNS]     (defaults 1000000 and 7)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
configuration="${BUILD:-release}"

source "$root/scripts/servers.sh"
install_server service
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-service-bench.XXXXXX")
cleanup() {
    if [ -n "$service_pid" ]; then kill "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; fi
    rm -rf "$state"
}
trap cleanup EXIT INT TERM

launch_server service "$state"
(cd "$root/Benchmarks" && swift build -c "$configuration" --product ServiceTokenBenchmark >&2)
await_server service
bin=$(cd "$root/Benchmarks" && swift build -c "$configuration" --show-bin-path)
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(swift --version 2>/dev/null | head -1), $configuration build"
"$bin/ServiceTokenBenchmark" "$OAUTHFLOW_TEST_SERVICE_AS" "$@"
