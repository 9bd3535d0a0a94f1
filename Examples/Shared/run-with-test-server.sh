#!/usr/bin/env bash
# Runs a web example against the test server that `bash scripts/test-server.sh` started: the Hummingbird
# one (Examples/WebSignIn) or the Vapor one (Examples/VaporSignIn), whose scripts call this one.
# Usage: bash Examples/Shared/run-with-test-server.sh WebSignInExample|VaporSignInExample [PORT]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
product="$1"
port_file="$root/.build/test-server/port"
[ -s "$port_file" ] || { echo "start the test server first: bash scripts/test-server.sh" >&2; exit 1; }
port="${2:-8080}"
# DOT sends the browser back after its logout only to a registered URI: the example's signed-out route.
source "$root/scripts/servers.sh"
source "$root/scripts/browser.sh"
as_state="$root/.build/test-server" as_port=$(cat "$port_file") as_python="$root/.build/python/venv/bin/python"
register_post_logout_uri "http://localhost:$port/auth/django/signed-out"
export OAUTHFLOW_WEB_SECRET="web-test-secret-0123456789abcdef"
exec swift run "$product" --port "$port" \
    --providers-dir "$root/Tests/OAuthFlowTests/Fixtures/providers" \
    --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var "django.port=$as_port" \
    --sessions-dir "$root/.build/test-server/web-sessions" --api django=opaque --api-scope read
