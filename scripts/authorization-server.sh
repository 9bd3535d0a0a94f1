# Sourced by scripts/test.sh and Benchmarks/postgres.sh: Django OAuth Toolkit, the real
# authorization server the tests use, on 127.0.0.1.
#
# install_venv DIR REQUIREMENTS   a virtualenv with pinned requirements (also for the browser test)
# install_authorization_server   installs DOT (pinned, Tests/AuthorizationServer/requirements.txt)
#                                into .build/authorization-server/venv; sets as_python
# launch_authorization_server STATE
#                                creates its state (database, RS256 key, test user, clients) in
#                                STATE and starts it on a free port; sets as_pid
# await_authorization_server     waits until it answers; sets as_port
# await_process NAME PID LOG CHECK...
#                                waits up to 20 s until the command CHECK succeeds (also for the
#                                browser test's web app); fails with LOG when PID exits first
#
# The caller sets `root` (the repository) and kills $as_pid when done.

as_pid=""

# install_venv DIR REQUIREMENTS: a virtualenv in DIR with exactly REQUIREMENTS, reused while they match.
install_venv() {
    local venv="$1" requirements="$2" python
    python=$(command -v python3 || true)
    if [ -z "$python" ]; then
        echo "python3 not found; installing it with apt-get" >&2
        apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
        python=$(command -v python3)
    fi
    if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.installed"; then
        echo "installing $requirements into $venv" >&2
        rm -rf "$venv"
        if ! "$python" -m venv "$venv" 2>/dev/null; then
            apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
            "$python" -m venv "$venv"
        fi
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
        cp "$requirements" "$venv/requirements.installed"
    fi
}

install_authorization_server() {
    install_venv "$root/.build/authorization-server/venv" "$root/Tests/AuthorizationServer/requirements.txt"
    as_python="$root/.build/authorization-server/venv/bin/python"
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
