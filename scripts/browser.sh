# Sourced by scripts/test.sh: the web sign-in examples (Examples/WebSignIn on Hummingbird, then
# Examples/VaporSignIn on Vapor) in headless Chromium.
#
# run_browser_test   installs Debian's chromium and chromium-driver if missing, Selenium
#                    (pinned, Tests/Browser/requirements.txt) into .build/browser/venv, registers
#                    the examples' post-logout redirect URI for DOT's oauthflow-web client, then
#                    for each example: serves it (built by `swift build --build-tests`) on
#                    127.0.0.1:$OAUTHFLOW_WEB_PORT (the browser opens it as localhost; DOT stays on
#                    127.0.0.1, another site; both examples take the same port, so DOT's registered
#                    URIs fit both), runs Tests/Browser/web_signin.py, and stops it. The signed-in
#                    pages' screenshots are kept in .build/artifacts/web-signed-in-{hummingbird,vapor}.png.
# Needs: root, as_port, as_state and as_python (DOT), install_venv and await_process
#        (scripts/authorization-server.sh).

web_pid=""
web_sessions=""

stop_web_example() {
    if [ -n "$web_pid" ]; then
        kill "$web_pid" 2>/dev/null || true
        wait "$web_pid" 2>/dev/null || true
    fi
    web_pid=""
    if [ -n "$web_sessions" ]; then
        rm -rf "$web_sessions"
    fi
    web_sessions=""
}

# web_example_answers URL: whether the web example serves URL yet.
web_example_answers() {
    "$root/.build/browser/venv/bin/python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "$1" 2>/dev/null
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

# run_web_example NAME PRODUCT: serves the example PRODUCT and signs in to it in the browser.
run_web_example() {
    local name="$1" app="$root/.build/debug/$2"
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
    if ! "$root/.build/browser/venv/bin/python" "$root/Tests/Browser/web_signin.py" "$url" "$root/.build/artifacts" "$name"; then
        echo "the $name web example's log:" >&2
        cat "$log" >&2
        stop_web_example
        return 1
    fi
    stop_web_example
}

run_browser_test() {
    if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
        echo "chromium or chromium-driver not found; installing them with apt-get" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    install_venv "$root/.build/browser/venv" "$root/Tests/Browser/requirements.txt"
    mkdir -p "$root/.build/artifacts"
    register_post_logout_uri "http://localhost:$OAUTHFLOW_WEB_PORT/auth/django/signed-out"
    # Built with everything else by `swift build --build-tests` (targets of the root package).
    run_web_example hummingbird WebSignInExample
    run_web_example vapor VaporSignInExample
}
