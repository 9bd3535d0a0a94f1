#!/usr/bin/env bash
# Benchmarks of the PostgreSQL token store (see Docs/benchmarks.md), outside the test suite:
# reads per second of a valid stored session, and the latency of a refresh fanned in from
# 4 processes x 250 callers, against Django OAuth Toolkit and a private PostgreSQL cluster.
#
# Builds the PostgresWorker helper in release mode (BUILD=debug for a quick dry run), starts
# DOT and PostgreSQL on 127.0.0.1 as scripts/test.sh does, runs Benchmarks/postgres.py, and
# stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
configuration="${BUILD:-release}"

source "$root/scripts/servers.sh"
source "$root/scripts/postgres.sh"
install_authorization_server
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-bench.XXXXXX")
cleanup() {
    stop_postgres
    if [ -n "$as_pid" ]; then kill "$as_pid" 2>/dev/null || true; wait "$as_pid" 2>/dev/null || true; fi
    rm -rf "$state"
}
trap cleanup EXIT INT TERM

launch_authorization_server "$state"
swift build -c "$configuration" --enable-all-traits --product PostgresWorker >&2
await_authorization_server
start_postgres "$root/.build/postgres/bench-$$"

export OAUTHFLOW_TEST_AS_PYTHON="$as_python"
export OAUTHFLOW_TEST_AS_AGENT="$root/Tests/AuthorizationServer/agent.py"
python3 "$root/Benchmarks/postgres.py" "$root/.build/$configuration/PostgresWorker" "$as_port"
