#!/usr/bin/env bash
# Starts the token exchange server the way scripts/test.sh does (scripts/servers.sh), runs check.py against it, and checks that it stops promptly
# on SIGTERM. Leaves nothing running.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/servers.sh"

install_server exchange
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-exchange.XXXXXX")
trap 'stop_server exchange; rm -rf "$state"' EXIT INT TERM

started=$(date +%s%N)
launch_server exchange "$state"
await_server exchange
echo "started in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2

"$exchange_python" "$root/Tests/ExchangeServer/check.py" "$OAUTHFLOW_TEST_EXCHANGE_AS"

kill -TERM "$exchange_pid"
for _ in $(seq 1 20); do
    kill -0 "$exchange_pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$exchange_pid" 2>/dev/null; then
    echo "FAIL: the exchange server still runs 2 s after SIGTERM" >&2
    exit 1
fi
wait "$exchange_pid" 2>/dev/null || true
exchange_pid=""
echo "ok   stopped on SIGTERM"
