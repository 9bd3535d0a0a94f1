#!/usr/bin/env bash
# Runs the test authorization server (Django OAuth Toolkit) on 127.0.0.1 until Ctrl-C, for
# trying things by hand: the CLI against it, or the web example (Examples/WebSignIn/README.md).
#
# Usage: bash scripts/test-server.sh [WEB_PORT]
#   Registers the web example's redirect URI for http://localhost:WEB_PORT (default 8080),
#   writes DOT's port to .build/test-server/port, and prints how to use it.
#   The user is alice / wonderland-test-password.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source "$root/scripts/authorization-server.sh"
install_authorization_server
export OAUTHFLOW_WEB_PORT="${1:-8080}"
state="$root/.build/test-server"
rm -rf "$state"
mkdir -p "$state"
trap 'kill "$as_pid" 2>/dev/null || true' EXIT INT TERM
launch_authorization_server "$state"
await_authorization_server
echo "$as_port" >"$state/port"
cat <<EOT
Django OAuth Toolkit: http://127.0.0.1:$as_port/o/ (user alice, password wonderland-test-password)
  public client oauthflow-public, device-grant client oauthflow-device, web client oauthflow-web (secret web-test-secret-0123456789abcdef)
  the provider descriptor: Tests/OAuthFlowTests/Fixtures/providers/django.yaml (--providers-dir Tests/OAuthFlowTests/Fixtures/providers --var port=$as_port)
  the web client's redirect URI: http://localhost:$OAUTHFLOW_WEB_PORT/auth/django/callback
Ctrl-C stops it.
EOT
wait "$as_pid"
