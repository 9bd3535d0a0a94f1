# Sourced by scripts/test.sh: the web sign-in example (Examples/WebSignIn) in headless Chromium.
#
# run_browser_test   installs Debian's chromium and chromium-driver if missing, Selenium
#                    (pinned, Tests/Browser/requirements.txt) into .build/browser/venv, serves
#                    the example (built by `swift build --build-tests`), it on 127.0.0.1:$OAUTHFLOW_WEB_PORT (the browser opens it
#                    as localhost; DOT stays on 127.0.0.1, another site), runs
#                    Tests/Browser/web_signin.py, and stops the app. The signed-in page's
#                    screenshot is kept in .build/artifacts/web-signed-in.png.
# Needs: root, as_port (DOT), install_venv and await_process (scripts/authorization-server.sh).

web_pid=""

stop_web_example() {
    if [ -n "$web_pid" ]; then
        kill "$web_pid" 2>/dev/null || true
        wait "$web_pid" 2>/dev/null || true
    fi
    web_pid=""
}

# web_example_answers URL: whether the web example serves URL yet.
web_example_answers() {
    "$root/.build/browser/venv/bin/python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "$1" 2>/dev/null
}

run_browser_test() {
    if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
        echo "chromium or chromium-driver not found; installing them with apt-get" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    install_venv "$root/.build/browser/venv" "$root/Tests/Browser/requirements.txt"
    # Built with everything else by `swift build --build-tests` (a target of the root package).
    local app="$root/.build/debug/WebSignInExample"
    local log="$root/.build/artifacts/web-example.log"
    mkdir -p "$root/.build/artifacts"
    OAUTHFLOW_WEB_SECRET="web-test-secret-0123456789abcdef" "$app" --port "$OAUTHFLOW_WEB_PORT" \
        --providers-dir "$root/Tests/OAuthFlowTests/Fixtures/providers" \
        --client django=oauthflow-web --secret django=OAUTHFLOW_WEB_SECRET --var "django.port=$as_port" >"$log" 2>&1 &
    web_pid=$!
    local url="http://localhost:$OAUTHFLOW_WEB_PORT/"
    if ! await_process "the web example" "$web_pid" "$log" web_example_answers "$url"; then
        stop_web_example
        return 1
    fi
    echo "web example: $url" >&2
    if ! "$root/.build/browser/venv/bin/python" "$root/Tests/Browser/web_signin.py" "$url" "$root/.build/artifacts"; then
        echo "the web example's log:" >&2
        cat "$log" >&2
        stop_web_example
        return 1
    fi
    stop_web_example
}
