# Sourced by scripts/test.sh and scripts/test-server.sh: an OpenID Connect provider with
# RP-Initiated Logout, Back-Channel Logout and Front-Channel Logout on 127.0.0.1, IdentityPython's
# idpyoidc behind a small HTTP front (Tests/LogoutServer/server.py).
#
# install_logout_server        installs idpyoidc into the exchange server's virtualenv (the same
#                              pinned requirements, Tests/ExchangeServer/requirements.txt: nothing
#                              more when install_exchange_server ran); sets logout_python
# launch_logout_server STATE   starts it on a free port, logging to STATE/logout-server.log; sets logout_pid
# await_logout_server          waits (up to 20 s) until it wrote STATE/logout-server.json and answers
#                              discovery; exports OAUTHFLOW_TEST_LOGOUT_OP (that file)
# stop_logout_server           stops it (SIGTERM) and waits for it
#
# Needs install_venv and await_process (scripts/authorization-server.sh, sourced first). The
# caller sets `root` (the repository) and stops the server when done (stop_logout_server, or
# kill $logout_pid).

logout_pid=""
logout_state=""

install_logout_server() {
    install_venv "$root/.build/exchange-server/venv" "$root/Tests/ExchangeServer/requirements.txt"
    logout_python="$root/.build/exchange-server/venv/bin/python"
}

launch_logout_server() {
    logout_state="$1"
    mkdir -p "$logout_state"
    rm -f "$logout_state/logout-server.json"
    "$logout_python" "$root/Tests/LogoutServer/server.py" "$logout_state" \
        >"$logout_state/logout-server.log" 2>&1 &
    logout_pid=$!
}

# logout_server_answers: whether the server wrote its description and serves discovery.
logout_server_answers() {
    [ -s "$logout_state/logout-server.json" ] || return 1
    "$logout_python" - "$logout_state/logout-server.json" <<'PY' 2>/dev/null
import json, sys, urllib.request
with open(sys.argv[1]) as handle:
    issuer = json.load(handle)["issuer"]
with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2) as answer:
    assert json.load(answer)["end_session_endpoint"] == issuer + "/end-session"
PY
}

await_logout_server() {
    await_process "the logout server" "$logout_pid" "$logout_state/logout-server.log" \
        logout_server_answers || return 1
    export OAUTHFLOW_TEST_LOGOUT_OP="$logout_state/logout-server.json"
    echo "logout server: $("$logout_python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' \
        "$OAUTHFLOW_TEST_LOGOUT_OP") (idpyoidc RP-initiated, back- and front-channel logout)" >&2
}

stop_logout_server() {
    if [ -n "$logout_pid" ]; then
        kill "$logout_pid" 2>/dev/null || true
        wait "$logout_pid" 2>/dev/null || true
    fi
    logout_pid=""
}
