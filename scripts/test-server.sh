#!/usr/bin/env bash
# Runs the test authorization servers on 127.0.0.1 until Ctrl-C, for trying things by hand: Django
# OAuth Toolkit (sign-in, the CLI, the web example in Examples/WebSignIn/README.md), and the two
# service-token servers, Authlib (client credentials, JWT bearer, JWT and mutual-TLS client
# authentication) and idpyoidc (token exchange), and idpyoidc again with pushed authorization
# requests and DPoP (Tests/PARServer), and the enterprise identity provider with its ID-JAG authorization server
# (Tests/IDJAGServer, PyJWT; Docs/mcp.md, "Through an enterprise identity provider").
#
# Usage: bash scripts/test-server.sh [WEB_PORT]
#   Registers the web example's redirect URI for http://localhost:WEB_PORT (default 8080),
#   writes DOT's port to .build/test-server/port, and prints how to use it.
#   The user is alice / wonderland-test-password.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source "$root/scripts/servers.sh"
install_authorization_server
install_server service
install_server exchange
install_server logout
install_server par
install_server idjag
export OAUTHFLOW_WEB_PORT="${1:-8080}"
state="$root/.build/test-server"
rm -rf "$state"
mkdir -p "$state"
trap 'kill "$as_pid" "$service_pid" "$exchange_pid" "$logout_pid" "$par_pid" "$idjag_pid" 2>/dev/null || true' EXIT INT TERM
mkdir -p "$state/service" "$state/exchange" "$state/logout" "$state/par" "$state/idjag"
launch_authorization_server "$state"
launch_server service "$state/service"
launch_server exchange "$state/exchange"
launch_server logout "$state/logout"
launch_server par "$state/par"
launch_server idjag "$state/idjag"
await_authorization_server
await_server service
await_server exchange
await_server logout
await_server par
await_server idjag
echo "$as_port" >"$state/port"
cat <<EOT
Django OAuth Toolkit: http://127.0.0.1:$as_port/o/ (user alice, password wonderland-test-password)
  public client oauthflow-public, device-grant client oauthflow-device, web client oauthflow-web (secret web-test-secret-0123456789abcdef),
  client-credentials client oauthflow-service (secret service-test-secret-0123456789abcdef)
  the provider descriptor: Tests/OAuthFlowTests/Fixtures/providers/django.yaml (--providers-dir Tests/OAuthFlowTests/Fixtures/providers --var port=$as_port)
  the web client's redirect URI: http://localhost:$OAUTHFLOW_WEB_PORT/auth/django/callback
Service tokens (Authlib): $(sed -n 's/.*"issuer": *"\([^"]*\)".*/\1/p' "$OAUTHFLOW_TEST_SERVICE_AS" | head -1)
  clients, their secrets and key files: $OAUTHFLOW_TEST_SERVICE_AS (Tests/ServiceServer/README.md)
Token exchange (idpyoidc): $(sed -n 's/.*"issuer": *"\([^"]*\)".*/\1/p' "$OAUTHFLOW_TEST_EXCHANGE_AS" | head -1)
  clients and subject tokens: $OAUTHFLOW_TEST_EXCHANGE_AS
Logout (idpyoidc): $(sed -n 's/.*"issuer": *"\([^"]*\)".*/\1/p' "$OAUTHFLOW_TEST_LOGOUT_OP" | head -1)
  clients, users and their passwords: $OAUTHFLOW_TEST_LOGOUT_OP (Tests/LogoutServer/README.md)
PAR and DPoP (idpyoidc): $(sed -n 's/.*"issuer": *"\([^"]*\)".*/\1/p' "$OAUTHFLOW_TEST_PAR_AS" | head -1)
  clients and the DPoP-checking resource: $OAUTHFLOW_TEST_PAR_AS (Tests/PARServer/README.md)
Enterprise identity provider and ID-JAG authorization server (PyJWT): $OAUTHFLOW_TEST_IDJAG_SERVER
Ctrl-C stops them.
EOT
wait "$as_pid"
