# Sourced by scripts/test.sh: an OAuth 2.0 Token Exchange (RFC 8693) authorization server on
# 127.0.0.1, IdentityPython's idpyoidc behind a small HTTP front (Tests/ExchangeServer/server.py).
#
# install_exchange_server      installs idpyoidc (pinned, Tests/ExchangeServer/requirements.txt)
#                              into .build/exchange-server/venv; sets exchange_python
# launch_exchange_server STATE
#                              creates the server's keys and clients in STATE and starts it on a
#                              free port, logging to STATE/exchange-server.log; sets exchange_pid
# await_exchange_server        waits (up to 20 s) until it wrote STATE/exchange-server.json and
#                              answers discovery; exports OAUTHFLOW_TEST_EXCHANGE_AS (that file)
# stop_exchange_server         stops it (SIGTERM) and waits for it
#
# Needs install_venv and await_process (scripts/authorization-server.sh, sourced first). The
# caller sets `root` (the repository) and stops the server when done (stop_exchange_server, or
# kill $exchange_pid).

exchange_pid=""
exchange_state=""

install_exchange_server() {
    install_venv "$root/.build/exchange-server/venv" "$root/Tests/ExchangeServer/requirements.txt"
    exchange_python="$root/.build/exchange-server/venv/bin/python"
}

launch_exchange_server() {
    exchange_state="$1"
    mkdir -p "$exchange_state"
    rm -f "$exchange_state/exchange-server.json"
    "$exchange_python" "$root/Tests/ExchangeServer/server.py" "$exchange_state" \
        >"$exchange_state/exchange-server.log" 2>&1 &
    exchange_pid=$!
}

# exchange_server_answers: whether the server wrote its description and serves discovery.
exchange_server_answers() {
    [ -s "$exchange_state/exchange-server.json" ] || return 1
    "$exchange_python" - "$exchange_state/exchange-server.json" <<'PY' 2>/dev/null
import json, sys, urllib.request
with open(sys.argv[1]) as handle:
    issuer = json.load(handle)["issuer"]
with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2) as answer:
    assert json.load(answer)["issuer"] == issuer
PY
}

await_exchange_server() {
    await_process "the exchange server" "$exchange_pid" "$exchange_state/exchange-server.log" \
        exchange_server_answers || return 1
    export OAUTHFLOW_TEST_EXCHANGE_AS="$exchange_state/exchange-server.json"
    echo "exchange server: $("$exchange_python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' \
        "$OAUTHFLOW_TEST_EXCHANGE_AS") (idpyoidc token exchange)" >&2
}

stop_exchange_server() {
    if [ -n "$exchange_pid" ]; then
        kill "$exchange_pid" 2>/dev/null || true
        wait "$exchange_pid" 2>/dev/null || true
    fi
    exchange_pid=""
}
