# Sourced by scripts/test.sh, scripts/test-server.sh and the Benchmarks scripts: the servers the
# tests talk to, each on 127.0.0.1, installed first into one virtualenv under .build (install_python_peers).
#
# install_python_peers           one virtualenv, .build/python/venv, with every pinned requirements file of the test peers
#                                (PYTHON_PEERS below: the servers' and the browser test's); sets peers_python. The files
#                                pin the same version of every package they share, so one environment holds them all:
#                                one virtualenv and one install instead of six (about 20 s of CPU instead of 43)
# await_process NAME PID LOG CHECK...
#                                waits up to 20 s until the command CHECK succeeds (also for the
#                                browser test's web app); fails with LOG when PID exits first
#
# Django OAuth Toolkit, the authorization server of the sign-in tests (Tests/AuthorizationServer):
# install_authorization_server   installs the peers (DOT among them); sets as_python
# launch_authorization_server STATE
#                                creates its state (database, RS256 key, test user, clients) in
#                                STATE and starts it on a free port; sets as_pid
# await_authorization_server     waits until it answers; sets as_port
#
# The Python servers that write a description of themselves (SERVER is one of `service`,
# `exchange`, `logout`, `par`, `mcp`, `idjag`; the tables below say which directory and variable):
# install_server SERVER          installs the peers (its requirements among them); sets SERVER_python
# launch_server SERVER STATE     starts Tests/DIR/server.py STATE in the background, logging to
#                                STATE/SERVER-server.log; sets SERVER_pid
# await_server SERVER            waits (at most 20 s) until it wrote STATE/SERVER-server.json and its
#                                metadata names its issuer; exports the variable the tests read
# stop_server SERVER             stops it (SIGTERM) and waits for it
#
# The caller sets `root` (the repository) and stops what it started ($as_pid, stop_server).

# SERVER: its directory under Tests (the logout and PAR servers import what Tests/ExchangeServer/requirements.txt
# pins), the variable that hands its description to the tests, and what it is.
declare -A server_directory=([service]=ServiceServer [exchange]=ExchangeServer [logout]=LogoutServer [par]=PARServer
    [mcp]=MCPServer [idjag]=IDJAGServer)
declare -A server_variable=([service]=OAUTHFLOW_TEST_SERVICE_AS [exchange]=OAUTHFLOW_TEST_EXCHANGE_AS
    [logout]=OAUTHFLOW_TEST_LOGOUT_OP [par]=OAUTHFLOW_TEST_PAR_AS [mcp]=OAUTHFLOW_TEST_MCP_SERVER
    [idjag]=OAUTHFLOW_TEST_IDJAG_SERVER)
declare -A server_label=([service]="service-token server (Authlib)" [exchange]="exchange server (idpyoidc token exchange)"
    [logout]="logout server (idpyoidc RP-initiated, back- and front-channel logout)" [par]="PAR and DPoP server (idpyoidc)"
    [mcp]="MCP server and authorization server (the Python MCP SDK)"
    [idjag]="enterprise identity provider and ID-JAG authorization server (PyJWT)")
declare -A server_state=()

as_pid=""

# quiet_port: a port on 127.0.0.1 below the kernel's own range (Linux hands out 32768-60999): for a server started minutes after
# the port is chosen, which a port the kernel chose could lose in between to another process's connection.
quiet_port() {
    python3 -c '
import random, socket
for _ in range(500):
    port = random.randint(20000, 32767)
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        probe.close()
    print(port)
    break
'
}

# The directories under Tests whose requirements.txt the one virtualenv installs.
PYTHON_PEERS=(AuthorizationServer ServiceServer ExchangeServer MCPServer IDJAGServer Browser)

# install_python_peers: the virtualenv .build/python/venv with exactly the PYTHON_PEERS' requirements, reused while
# they match (their concatenation is kept beside it); sets peers_python.
install_python_peers() {
    local venv="$root/.build/python/venv" python wanted peer
    local requirements=()
    for peer in "${PYTHON_PEERS[@]}"; do requirements+=(-r "$root/Tests/$peer/requirements.txt"); done
    wanted=$(for peer in "${PYTHON_PEERS[@]}"; do cat "$root/Tests/$peer/requirements.txt"; done)
    peers_python="$venv/bin/python"
    if [ -x "$peers_python" ] && [ "$wanted" = "$(cat "$venv/requirements.installed" 2>/dev/null)" ]; then
        return 0
    fi
    python=$(command -v python3 || true)
    if [ -z "$python" ]; then
        echo "python3 not found; installing it with apt-get" >&2
        apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
        python=$(command -v python3)
    fi
    echo "installing the test peers' requirements (${PYTHON_PEERS[*]}) into $venv" >&2
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        "$python" -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
    printf '%s\n' "$wanted" >"$venv/requirements.installed"
}

install_authorization_server() {
    install_python_peers
    as_python="$peers_python"
}

launch_authorization_server() {
    as_state="$1"
    export OAUTHFLOW_AS_STATE="$as_state"
    "$as_python" "$root/Tests/AuthorizationServer/bootstrap.py" >&2
    "$as_python" "$root/Tests/AuthorizationServer/serve.py" "$as_state/ready" >"$as_state/server.log" 2>&1 &
    as_pid=$!
}

await_process() {
    local name="$1" pid="$2" log="$3"
    shift 3
    for _ in $(seq 1 100); do
        "$@" && return 0
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "error: $name exited:" >&2
            cat "$log" >&2
            return 1
        fi
        sleep 0.2
    done
    echo "error: $name did not start within 20 s:" >&2
    cat "$log" >&2
    return 1
}

await_authorization_server() {
    await_process "the authorization server" "$as_pid" "$as_state/server.log" test -s "$as_state/ready" || return 1
    as_port=$(cat "$as_state/ready")
    if ! "$as_python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)" \
            "http://127.0.0.1:$as_port/o/.well-known/openid-configuration"; then
        echo "error: the authorization server on port $as_port does not answer" >&2
        return 1
    fi
    echo "authorization server: http://127.0.0.1:$as_port (Django OAuth Toolkit)" >&2
}


install_server() {
    install_python_peers
    printf -v "${1}_python" '%s' "$peers_python"
}

launch_server() {
    local name="$1" state="$2" python_var="${1}_python"
    server_state[$name]="$state"
    mkdir -p "$state"
    rm -f "$state/$name-server.json"
    "${!python_var}" "$root/Tests/${server_directory[$name]}/server.py" "$state" >"$state/$name-server.log" 2>&1 &
    printf -v "${name}_pid" '%s' "$!"
}

# server_answers SERVER: its description is written, and the metadata it names (or its OpenID
# discovery document) names its issuer.
server_answers() {
    local description="${server_state[$1]}/$1-server.json" python_var="${1}_python"
    [ -s "$description" ] || return 1
    "${!python_var}" - "$description" <<'PY' 2>/dev/null
import json, sys, urllib.request
with open(sys.argv[1]) as handle:
    description = json.load(handle)
issuer = description["issuer"]
url = description.get("metadata") or issuer + "/.well-known/openid-configuration"
with urllib.request.urlopen(url, timeout=5) as answer:
    sys.exit(0 if json.load(answer)["issuer"] == issuer else 1)
PY
}

await_server() {
    local name="$1" pid_var="${1}_pid" python_var="${1}_python"
    local description="${server_state[$1]}/$1-server.json"
    await_process "the ${server_label[$name]}" "${!pid_var}" "${server_state[$name]}/$name-server.log" \
        server_answers "$name" || return 1
    export "${server_variable[$name]}=$description"
    echo "${server_label[$name]}: $("${!python_var}" -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' "$description") ($description)" >&2
}

stop_server() {
    local pid_var="${1}_pid"
    if [ -n "${!pid_var:-}" ]; then
        kill "${!pid_var}" 2>/dev/null || true
        wait "${!pid_var}" 2>/dev/null || true
    fi
    printf -v "$pid_var" '%s' ""
}
