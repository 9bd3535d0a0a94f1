#!/usr/bin/env bash
# Starts the service server the way scripts/test.sh does (scripts/servers.sh), runs check.py against it, stops it and checks that nothing is left.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/servers.sh"

install_server service
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-service.XXXXXX")
stop() {
    if [ -n "$service_pid" ]; then
        kill "$service_pid" 2>/dev/null || true
        wait "$service_pid" 2>/dev/null || true
    fi
    rm -rf "$state"
}
trap stop EXIT INT TERM

started=$(date +%s.%N)
launch_server service "$state"
await_server service
echo "started in $(python3 -c "import sys; print(round($(date +%s.%N) - $started, 2))") s" >&2

if ! "$service_python" "$root/Tests/ServiceServer/check.py" "$OAUTHFLOW_TEST_SERVICE_AS"; then
    echo "--- service-server.log" >&2
    cat "$state/service-server.log" >&2
    exit 1
fi

# Stopped promptly by SIGTERM, its ports closed.
ports=$("$service_python" -c 'import json, sys; p = json.load(open(sys.argv[1]))["ports"]; print(p["http"], p["https"])' "$OAUTHFLOW_TEST_SERVICE_AS")
pid=$service_pid
kill "$pid"
for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
    echo "error: the service server did not stop within 2 s of SIGTERM" >&2
    exit 1
fi
wait "$pid" 2>/dev/null || true
service_pid=""
for port in $ports; do
    if "$service_python" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)' "$port" 2>/dev/null; then
        echo "error: something still answers on 127.0.0.1:$port" >&2
        exit 1
    fi
done
echo "service server stopped; ports $ports closed" >&2
