#!/usr/bin/env bash
# Starts the PAR and DPoP server the way scripts/test.sh does (scripts/servers.sh), runs check.py against it, and checks that it stops promptly on
# SIGTERM. Leaves nothing running.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/servers.sh"

install_server par
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-par.XXXXXX")
trap 'stop_server par; rm -rf "$state"' EXIT INT TERM

started=$(date +%s%N)
launch_server par "$state"
await_server par
echo "started in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2

"$par_python" "$root/Tests/PARServer/check.py" "$OAUTHFLOW_TEST_PAR_AS"

kill -TERM "$par_pid"
for _ in $(seq 1 20); do
    kill -0 "$par_pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$par_pid" 2>/dev/null; then
    echo "FAIL: the PAR server still runs 2 s after SIGTERM" >&2
    exit 1
fi
wait "$par_pid" 2>/dev/null || true
par_pid=""
echo "ok   stopped on SIGTERM"
