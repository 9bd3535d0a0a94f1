# Sourced by scripts/test.sh after scripts/authorization-server.sh (whose install_venv and
# await_process it uses): the authorization server of the service-token tests, Authlib on Flask
# (Tests/ServiceServer), on 127.0.0.1.
#
# install_service_server         installs it (pinned, Tests/ServiceServer/requirements.txt) into
#                                .build/service-server/venv; sets service_python
# launch_service_server STATE    generates its keys, certificates and clients into STATE and starts
#                                it in the background on two free ports (HTTP, and TLS for mTLS),
#                                logging to STATE/service-server.log; sets service_pid
# await_service_server           waits (at most 20 s) until it wrote STATE/service-server.json and
#                                answers its metadata; exports OAUTHFLOW_TEST_SERVICE_AS (that file)
#
# The caller sets `root` (the repository) and kills $service_pid when done (SIGTERM stops it at once).

service_pid=""
service_state=""

install_service_server() {
    install_venv "$root/.build/service-server/venv" "$root/Tests/ServiceServer/requirements.txt"
    service_python="$root/.build/service-server/venv/bin/python"
}

launch_service_server() {
    service_state="$1"
    mkdir -p "$service_state"
    rm -f "$service_state/service-server.json"
    "$service_python" "$root/Tests/ServiceServer/server.py" "$service_state" \
        >"$service_state/service-server.log" 2>&1 &
    service_pid=$!
}

# service_server_answers: its description is written and its metadata answers.
service_server_answers() {
    test -s "$service_state/service-server.json" || return 1
    "$service_python" - "$service_state/service-server.json" <<'PY' 2>/dev/null
import json, sys, urllib.request
description = json.load(open(sys.argv[1]))
with urllib.request.urlopen(description["metadata"], timeout=5) as response:
    metadata = json.load(response)
sys.exit(0 if metadata["issuer"] == description["issuer"] else 1)
PY
}

await_service_server() {
    await_process "the service authorization server" "$service_pid" "$service_state/service-server.log" \
        service_server_answers || return 1
    export OAUTHFLOW_TEST_SERVICE_AS="$service_state/service-server.json"
    echo "service authorization server: $("$service_python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["issuer"])' "$OAUTHFLOW_TEST_SERVICE_AS") (Authlib; $OAUTHFLOW_TEST_SERVICE_AS)" >&2
}
