# Sourced by scripts/test.sh: an OpenID Connect provider with pushed authorization requests
# (RFC 9126) and DPoP (RFC 9449) on 127.0.0.1, IdentityPython's idpyoidc behind an HTTP front that
# also serves a resource checking every DPoP proof (Tests/PARServer/server.py).
#
# install_par_server           installs idpyoidc into the exchange server's virtualenv (the same
#                              pinned requirements, Tests/ExchangeServer/requirements.txt); sets par_python
# launch_par_server STATE      starts it on a free port, logging to STATE/par-server.log; sets par_pid
# await_par_server             waits (up to 20 s) until it wrote STATE/par-server.json and answers
#                              discovery; exports OAUTHFLOW_TEST_PAR_AS (that file)
# stop_par_server              stops it (SIGTERM) and waits for it
#
# Needs install_venv and await_process (scripts/authorization-server.sh, sourced first). The
# caller sets `root` (the repository) and stops the server when done (stop_par_server, or
# kill $par_pid).

par_pid=""
par_state=""

install_par_server() {
    install_venv "$root/.build/exchange-server/venv" "$root/Tests/ExchangeServer/requirements.txt"
    par_python="$root/.build/exchange-server/venv/bin/python"
}

launch_par_server() {
    par_state="$1"
    mkdir -p "$par_state"
    rm -f "$par_state/par-server.json"
    "$par_python" "$root/Tests/PARServer/server.py" "$par_state" \
        >"$par_state/par-server.log" 2>&1 &
    par_pid=$!
}

# par_server_answers: whether the server wrote its description and serves discovery.
par_server_answers() {
    [ -s "$par_state/par-server.json" ] || return 1
    "$par_python" - "$par_state/par-server.json" <<'PY' 2>/dev/null
import json, sys, urllib.request
with open(sys.argv[1]) as handle:
    issuer = json.load(handle)["issuer"]
with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=2) as answer:
    assert json.load(answer)["issuer"] == issuer
PY
}

await_par_server() {
    await_process "the PAR and DPoP server" "$par_pid" "$par_state/par-server.log" \
        par_server_answers || return 1
    export OAUTHFLOW_TEST_PAR_AS="$par_state/par-server.json"
    echo "PAR and DPoP server: $("$par_python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' \
        "$OAUTHFLOW_TEST_PAR_AS") (idpyoidc PAR and DPoP)" >&2
}

stop_par_server() {
    if [ -n "$par_pid" ]; then
        kill "$par_pid" 2>/dev/null || true
        wait "$par_pid" 2>/dev/null || true
    fi
    par_pid=""
}
