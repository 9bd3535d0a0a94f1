#!/usr/bin/env bash
# Starts Django OAuth Toolkit the way scripts/test.sh does (scripts/servers.sh) in a
# temporary state directory, runs check_logout.py against it (RP-Initiated Logout with the scripted
# user agent), and stops it. Leaves nothing running.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/servers.sh"

install_authorization_server
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-dot-logout.XXXXXX")
trap 'if [ -n "$as_pid" ]; then kill "$as_pid" 2>/dev/null || true; wait "$as_pid" 2>/dev/null || true; fi; rm -rf "$state"' EXIT INT TERM

launch_authorization_server "$state"
await_authorization_server
"$as_python" "$root/Tests/AuthorizationServer/check_logout.py" "http://127.0.0.1:$as_port" "$state"
