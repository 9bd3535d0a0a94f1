#!/usr/bin/env bash
# Starts the logout server the way scripts/test.sh does (scripts/servers.sh), runs check.py against it, and checks that it stops promptly on
# SIGTERM. Leaves nothing running.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/servers.sh"

install_server logout
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-logout.XXXXXX")
trap 'stop_server logout; rm -rf "$state"' EXIT INT TERM

started=$(date +%s%N)
launch_server logout "$state"
await_server logout
echo "started in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2

if ! "$logout_python" "$root/Tests/LogoutServer/check.py" "$OAUTHFLOW_TEST_LOGOUT_OP"; then
    echo "--- the server's log (the last 40 lines) ---" >&2
    tail -n 40 "$state/logout-server.log" >&2
    exit 1
fi

kill -TERM "$logout_pid"
for _ in $(seq 1 20); do
    kill -0 "$logout_pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$logout_pid" 2>/dev/null; then
    echo "FAIL: the logout server still runs 2 s after SIGTERM" >&2
    exit 1
fi
wait "$logout_pid" 2>/dev/null || true
logout_pid=""
echo "ok   stopped on SIGTERM"
