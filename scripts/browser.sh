# Sourced by scripts/test.sh: the web sign-in examples (Examples/WebSignIn on Hummingbird, then
# Examples/VaporSignIn on Vapor) in headless Chromium, against DOT and then against the Sign in with
# Apple stand-in.
#
# run_browser_test   installs Debian's chromium and chromium-driver if missing, Selenium
#                    (pinned, Tests/Browser/requirements.txt, in the peers' virtualenv), registers
#                    the examples' post-logout redirect URI for DOT's oauthflow-web client, then
#                    for each example: serves it (built by `swift build --build-tests`) on
#                    127.0.0.1:$OAUTHFLOW_WEB_PORT (the browser opens it as localhost; DOT stays on
#                    127.0.0.1, another site; both examples take the same port, so DOT's registered
#                    URIs fit both), runs Tests/Browser/web_signin.py (with --metrics for the Hummingbird
#                    example, which exports Prometheus metrics at /metrics), and stops it. The signed-in
#                    pages' screenshots are kept in .build/artifacts/web-signed-in-{hummingbird,vapor}.png.
#                    Then, for each example, Sign in with Apple: Tests/Browser/apple_standin.py answers as
#                    Apple documents on 127.0.0.1 (and issues the client's .p8 key); the example serves
#                    https://localhost:$OAUTHFLOW_APPLE_WEB_PORT with a self-signed certificate
#                    (Tests/Browser/self_signed.py, trusted by Chromium through its key's hash alone),
#                    the bundled apple.yaml with Apple's host replaced by the stand-in's; and
#                    Tests/Browser/apple_signin.py signs in twice (form_post, the one-time `user`
#                    field, the ES256 client secret), signs out, and forges an answer.
# Needs: root, as_port, as_state and as_python (DOT), install_python_peers and await_process
#        (scripts/servers.sh).

web_pid=""
web_sessions=""
apple_pid=""
apple_state=""

# stop_and_remove PID DIR: stops the process PID and removes the directory DIR, each when given.
stop_and_remove() {
    if [ -n "$1" ]; then
        kill "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
    if [ -n "$2" ]; then
        rm -rf "$2"
    fi
}

stop_web_example() {
    stop_and_remove "$web_pid" "$web_sessions"
    stop_and_remove "$apple_pid" "$apple_state"
    web_pid=""
    web_sessions=""
    apple_pid=""
    apple_state=""
}

# web_example_answers URL [CA_FILE]: whether the web example serves URL yet (over https, with the
# certificate in CA_FILE).
web_example_answers() {
    "$peers_python" -c "
import ssl, sys, urllib.request
context = ssl.create_default_context(cafile=sys.argv[2]) if len(sys.argv) > 2 else None
urllib.request.urlopen(sys.argv[1], timeout=2, context=context)" "$@" 2>/dev/null
}

# register_post_logout_uri URI: adds URI to the post-logout redirect URIs of DOT's oauthflow-web client
# (RP-Initiated Logout sends the browser back only to a registered one), keeping those bootstrap.py set.
register_post_logout_uri() {
    (cd "$root/Tests/AuthorizationServer" \
        && OAUTHFLOW_AS_STATE="$as_state" OAUTHFLOW_AS_PORT="$as_port" OAUTHFLOW_POST_LOGOUT_URI="$1" \
            "$as_python" manage.py shell --verbosity 0 -c '
import os
from oauth2_provider.models import Application
uri = os.environ["OAUTHFLOW_POST_LOGOUT_URI"]
client = Application.objects.get(client_id="oauthflow-web")
uris = client.post_logout_redirect_uris.split()
if uri not in uris:
    Application.objects.filter(pk=client.pk).update(post_logout_redirect_uris=" ".join(uris + [uri]))
')
}

# run_web_example NAME PRODUCT [--metrics]: serves the example PRODUCT and signs in to it in the browser
# (scraping its /metrics before and after, with --metrics).
run_web_example() {
    local name="$1" app="$root/.build/debug/$2" metrics="${3:-}"
    local log="$root/.build/artifacts/web-example-$name.log"
    web_sessions=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-web-sessions.XXXXXX")
    OAUTHFLOW_WEB_SECRET="web-test-secret-0123456789abcdef" "$app" --port "$OAUTHFLOW_WEB_PORT" \
        --providers-dir "$root/Tests/OAuthFlowTests/Fixtures/providers" \
        --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var "django.port=$as_port" \
        --sessions-dir "$web_sessions" --api django=opaque --api-scope read >"$log" 2>&1 &
    web_pid=$!
    local url="http://localhost:$OAUTHFLOW_WEB_PORT/"
    if ! await_process "the $name web example" "$web_pid" "$log" web_example_answers "$url"; then
        stop_web_example
        return 1
    fi
    echo "$name web example: $url" >&2
    if ! "$peers_python" "$root/Tests/Browser/web_signin.py" "$url" "$root/.build/artifacts" "$name" $metrics; then
        echo "the $name web example's log:" >&2
        cat "$log" >&2
        stop_web_example
        return 1
    fi
    stop_web_example
}

# run_apple_example NAME PRODUCT: serves the example PRODUCT over https with Apple (the stand-in) enabled,
# and signs in with Apple in the browser.
run_apple_example() {
    local name="$1" app="$root/.build/debug/$2"
    local python="$peers_python" log="$root/.build/artifacts/apple-example-$name.log"
    local port="$OAUTHFLOW_APPLE_WEB_PORT" client_id="com.example.oauthflow.web" team_id="ABCDE12345" key_id="STANDIN123"
    apple_state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-apple.XXXXXX")
    "$python" "$root/Tests/Browser/apple_standin.py" "$apple_state" --client-id "$client_id" --team-id "$team_id" \
        --key-id "$key_id" --redirect-uri "https://localhost:$port/auth/apple/callback" \
        >"$root/.build/artifacts/apple-standin-$name.log" 2>&1 &
    apple_pid=$!
    if ! await_process "the Apple stand-in" "$apple_pid" "$root/.build/artifacts/apple-standin-$name.log" test -s "$apple_state/ready"; then
        stop_web_example
        return 1
    fi
    local standin="http://127.0.0.1:$(cat "$apple_state/ready")"
    # The bundled descriptor, Apple's host replaced by the stand-in's (the client secret's audience stays Apple's).
    mkdir -p "$apple_state/providers"
    sed -e "s#https://appleid.apple.com/auth/#$standin/auth/#" -e "s#^issuer: https://appleid.apple.com\$#issuer: $standin#" \
        "$root/providers/apple.yaml" >"$apple_state/providers/apple.yaml"
    if grep -q "^  [a-z_]*: https://appleid.apple.com/auth/" "$apple_state/providers/apple.yaml" \
        || ! grep -q "^issuer: $standin\$" "$apple_state/providers/apple.yaml"; then
        echo "error: apple.yaml did not take the stand-in's address:" >&2
        cat "$apple_state/providers/apple.yaml" >&2
        stop_web_example
        return 1
    fi
    local spki
    spki=$("$python" "$root/Tests/Browser/self_signed.py" "$apple_state/tls")
    web_sessions=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-web-sessions.XXXXXX")
    "$app" --port "$port" --tls-cert "$apple_state/tls/tls-cert.pem" --tls-key "$apple_state/tls/tls-key.pem" \
        --providers-dir "$apple_state/providers" --client "apple=$client_id" --var "apple.team_id=$team_id" \
        --signing-key "apple=$apple_state/AuthKey.p8" --key-id "apple=$key_id" --sessions-dir "$web_sessions" >"$log" 2>&1 &
    web_pid=$!
    local url="https://localhost:$port/"
    if ! await_process "the $name web example (https, Apple)" "$web_pid" "$log" web_example_answers "$url" "$apple_state/tls/tls-cert.pem"; then
        stop_web_example
        return 1
    fi
    echo "$name web example with Apple: $url (stand-in $standin)" >&2
    if ! "$python" "$root/Tests/Browser/apple_signin.py" "$url" "$standin" "$root/.build/artifacts" "$name" "$spki"; then
        echo "the $name web example's log:" >&2
        cat "$log" >&2
        echo "the Apple stand-in's log:" >&2
        cat "$root/.build/artifacts/apple-standin-$name.log" >&2
        stop_web_example
        return 1
    fi
    stop_web_example
}

# Chromium, its driver and Selenium (in the peers' virtualenv): the test command installs them beside the build (a second call
# finds them installed).
install_browser() {
    if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
        echo "chromium or chromium-driver not found; installing them with apt-get" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    install_python_peers
}

run_browser_test() {
    install_browser
    mkdir -p "$root/.build/artifacts"
    register_post_logout_uri "http://localhost:$OAUTHFLOW_WEB_PORT/auth/django/signed-out"
    # Built with everything else by `swift build --build-tests` (targets of the root package).
    run_web_example hummingbird WebSignInExample --metrics
    run_web_example vapor VaporSignInExample
    OAUTHFLOW_APPLE_WEB_PORT=$(quiet_port)
    run_apple_example hummingbird WebSignInExample
    run_apple_example vapor VaporSignInExample
}
