#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone.
#
# 1. Installs Django OAuth Toolkit (pinned, Tests/AuthorizationServer/requirements.txt)
#    into a virtualenv in .build/authorization-server/venv.
# 2. Creates the server's state (database, RS256 key, test user, clients) in a
#    temporary directory and starts it on 127.0.0.1 on a free port.
# 3. Serves a git repository over HTTP on 127.0.0.1 (git-http-backend behind a small front
#    that accepts a token only when the server's introspection calls it active).
# 4. Starts a private PostgreSQL cluster (Debian's, installed if missing) under .build on
#    127.0.0.1, for the shared token store (scripts/postgres.sh).
# 5. Runs `swift test` with OAUTHFLOW_TEST_AS_URL, OAUTHFLOW_TEST_GIT_URL and
#    OAUTHFLOW_TEST_PG_* set, then stops all three.
#
# Any failure to install or start the server fails this script: the end-to-end
# tests must run, never silently skip. Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    else
        echo "error: swift is not on PATH; install Swift 6.2 or later" >&2
        exit 1
    fi
fi

server_dir="$root/Tests/AuthorizationServer"
venv="$root/.build/authorization-server/venv"
requirements="$server_dir/requirements.txt"

# --- install the authorization server -------------------------------------------------
python=$(command -v python3 || true)
if [ -z "$python" ]; then
    echo "python3 not found; installing it with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
    python=$(command -v python3)
fi
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.installed"; then
    echo "installing Django OAuth Toolkit into $venv" >&2
    rm -rf "$venv"
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        "$python" -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.installed"
fi

# --- build while the server starts -----------------------------------------------------
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-as.XXXXXX")
server_pid=""
git_pid=""
source "$root/scripts/postgres.sh"
cleanup() {
    stop_postgres
    for pid in "$git_pid" "$server_pid"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$state"
}
trap cleanup EXIT INT TERM

export OAUTHFLOW_AS_STATE="$state"
"$venv/bin/python" "$server_dir/bootstrap.py" >&2
"$venv/bin/python" "$server_dir/serve.py" "$state/ready" >"$state/server.log" 2>&1 &
server_pid=$!

swift build --build-tests

for _ in $(seq 1 100); do
    [ -s "$state/ready" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "error: the authorization server exited:" >&2
        cat "$state/server.log" >&2
        exit 1
    fi
    sleep 0.2
done
if [ ! -s "$state/ready" ]; then
    echo "error: the authorization server did not start within 20 s:" >&2
    cat "$state/server.log" >&2
    exit 1
fi
port=$(cat "$state/ready")
if ! "$venv/bin/python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)" \
        "http://127.0.0.1:$port/o/.well-known/openid-configuration"; then
    echo "error: the authorization server on port $port does not answer" >&2
    exit 1
fi
echo "authorization server: http://127.0.0.1:$port (Django OAuth Toolkit)" >&2

# --- a git repository over HTTP, for the credential-helper tests ---------------------------
if ! command -v git >/dev/null 2>&1; then
    echo "git not found; installing it with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq git >/dev/null
fi
git_root="$state/git"
mkdir -p "$git_root"
git init -q --bare "$git_root/repo.git"
git -C "$git_root/repo.git" config http.receivepack true
seed="$state/seed"
git init -q "$seed"
git -C "$seed" -c user.name=OAuthFlow -c user.email=tests@oauthflow.invalid commit -q --allow-empty -m "first commit"
git -C "$seed" push -q "$git_root/repo.git" HEAD:refs/heads/main
git -C "$git_root/repo.git" symbolic-ref HEAD refs/heads/main
OAUTHFLOW_AS_URL="http://127.0.0.1:$port" "$venv/bin/python" "$root/Tests/GitServer/front.py" "$git_root" "$state/git-ready" \
    >"$state/git.log" 2>&1 &
git_pid=$!
for _ in $(seq 1 100); do
    [ -s "$state/git-ready" ] && break
    sleep 0.1
done
if [ ! -s "$state/git-ready" ]; then
    echo "error: the git server did not start:" >&2
    cat "$state/git.log" >&2
    exit 1
fi
echo "git server: http://127.0.0.1:$(cat "$state/git-ready")/repo.git" >&2

# --- PostgreSQL, for the shared token store ---------------------------------------------
start_postgres "$root/.build/postgres/cluster-$$"

export OAUTHFLOW_TEST_GIT_URL="http://127.0.0.1:$(cat "$state/git-ready")"
export OAUTHFLOW_TEST_AS_URL="http://127.0.0.1:$port"
export OAUTHFLOW_TEST_AS_PYTHON="$venv/bin/python"
export OAUTHFLOW_TEST_AS_AGENT="$server_dir/agent.py"
swift test --skip-build "$@"
