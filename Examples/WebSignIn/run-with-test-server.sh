#!/usr/bin/env bash
# Runs the example against the test server that `bash scripts/test-server.sh` started.
# Usage: bash Examples/WebSignIn/run-with-test-server.sh [PORT]   (the same PORT, default 8080)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
port_file="$root/.build/test-server/port"
[ -s "$port_file" ] || { echo "start the test server first: bash scripts/test-server.sh" >&2; exit 1; }
export OAUTHFLOW_WEB_SECRET="web-test-secret-0123456789abcdef"
exec swift run WebSignInExample --port "${1:-8080}" \
    --providers-dir "$root/Tests/OAuthFlowTests/Fixtures/providers" \
    --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var "django.port=$(cat "$port_file")"
