#!/usr/bin/env bash
# How long a refresh answer is unrecorded: from the read() that brings the token endpoint's answer
# into `oauthflow token refresh` to the pwrite() that records it (see Docs/tokens.md). A SIGKILL in
# that window loses the session when the server rotates refresh tokens; after it, nothing is lost.
#
# Builds the CLI in release mode into .build-release (BUILD=debug for the debug build), starts
# Django OAuth Toolkit on 127.0.0.1 as scripts/test.sh does, signs in once with the scripted user
# agent, then RUNS times (default 40) expires the session and refreshes it under
# `strace -f --seccomp-bpf -e trace=read,pwrite64` (only those two calls are stopped, so the
# rest runs at full speed), and prints the window's median, 90th percentile and maximum.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
command -v strace >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq strace >/dev/null; }
configuration="${BUILD:-release}"
runs="${RUNS:-40}"

source "$root/scripts/servers.sh"
install_authorization_server
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-window.XXXXXX")
cleanup() {
    if [ -n "$as_pid" ]; then kill "$as_pid" 2>/dev/null || true; wait "$as_pid" 2>/dev/null || true; fi
    rm -rf "$state"
}
trap cleanup EXIT INT TERM

export OAUTHFLOW_WEB_PORT=1
launch_authorization_server "$state"
swift build -c "$configuration" --enable-all-traits --scratch-path "$root/.build-$configuration" --product oauthflow >&2
await_authorization_server
binary="$root/.build-$configuration/$configuration/oauthflow"
export XDG_STATE_HOME="$state/home/state" XDG_CONFIG_HOME="$state/home/config"
providers=(--providers-dir "$root/Tests/OAuthFlowTests/Fixtures/providers")
BROWSER="$as_python $root/Tests/AuthorizationServer/agent.py --deliver" \
    "$binary" login django --client-id oauthflow-public --var "port=$as_port" --timeout 30 "${providers[@]}" >/dev/null
python3 "$root/Benchmarks/refresh_window.py" "$binary" "$XDG_STATE_HOME/oauthflow/django--default.json" "$runs" "${providers[@]}"
