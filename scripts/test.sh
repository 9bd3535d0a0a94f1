#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone.
#
# 0. Installs git if missing, checks the dependencies out (`swift package resolve`) and starts
#    `swift build --build-tests` (on CI, CI=true, without debug information and a module at a time) in the
#    background: step 1, the installs of step 2 and the servers' launches run beside it, and the script waits for it
#    before the checks of the build's output (step 2).
# 1. Checks Sources with `swift format lint --strict` and .swift-format (its layout, and rules
#    against force unwraps, force tries and implicitly unwrapped optionals); any finding fails.
#    Then the Apple-platform gate (scripts/apple-portability.py, no build, seconds, over the
#    dependencies step 0 checked out): what an Apple build at Package.swift's floor would refuse
#    in Sources/, Examples/ and Tests/ (an API newer than the floor, by the toolchain's own .swiftinterface
#    availability, the dependencies' and the project's own @available, with #if evaluated as an Apple
#    build; a Linux-only module or C name; Process off macOS; a module chosen by canImport that the
#    manifest links only on Linux). Its self-test runs first, over scripts/fixtures/apple-portability, so that
#    a gate that finds nothing cannot pass unnoticed. Any finding fails (Docs/testing.md). Then every
#    guide of Docs/ must make its DocC articles, and none may be committed (scripts/docc-articles.py --check).
#    Then the house's size and naming rules (scripts/house.py, no build, under a second; Docs/design.md, Style): no
#    function, initializer, subscript or computed property in Sources over 80 lines, no Sources file over 600, each
#    file named after the type it holds; its self-test runs first, over scripts/fixtures/house. Any finding fails.
# 2. Installs, into one virtualenv (.build/python/venv), each pinned requirements file of the Python test peers:
#    Django OAuth Toolkit (Tests/AuthorizationServer); for service tokens, Authlib
#    (Tests/ServiceServer: client credentials, JWT bearer, JWT and mutual-TLS client authentication)
#    and idpyoidc (Tests/ExchangeServer: token exchange; Tests/PARServer: pushed authorization
#    requests and DPoP, with a proof-checking resource; Tests/LogoutServer: RP-initiated, back-channel and
#    front-channel logout); the official Python MCP SDK
#    (Tests/MCPServer: an MCP server with one tool behind the SDK's own authorization server, with Dynamic
#    Client Registration); PyJWT (Tests/IDJAGServer: an enterprise identity provider and an authorization
#    server that redeems its ID-JAGs, MCP's enterprise-managed authorization); and Selenium for the browser test,
#    while the build runs (the files pin the same version of each package they share: one install, not six).
#    Once it is built (every package trait enabled; a warning from the package's own code fails the run), five checks
#    start side by side and run beside the tests (step 6): what five scratch consumers of the package resolve, against
#    scripts/consumers/*/packages.txt and the budgets of scripts/consumers.py (an app with the default traits at most
#    10 packages, a Vapor server Vapor's graph and 4 more, no framework a consumer did not enable); the public and package API of
#    each library product is compared with api/*.txt (scripts/api-listing.py --check; a difference fails with its
#    diff); the CLI is type-checked as a plain host (scripts/cli-public.py); scripts/apple-typecheck.sh type-checks the
#    Apple-only lines against shims of Apple's SDK (Shims/AppleSDK; Docs/apple.md); and the DocC catalog of each
#    library product (Sources/<Module>/<Module>.docc) is built over the build's symbol graphs with the toolchain's
#    docc, warnings as errors, into .build/docs (scripts/docs.py). Any failure fails the run with its output, once the
#    tests are done.
# 3. Creates the server's state (database, RS256 key, test user, clients) in a
#    temporary directory and starts it on 127.0.0.1 on a free port.
# 4. Serves a git repository over HTTP on 127.0.0.1 (git-http-backend behind a small front
#    that accepts a token only when the server's introspection calls it active).
# 5. Starts a private PostgreSQL cluster (Debian's, installed beside the build if missing) under .build on
#    127.0.0.1, for the shared token store (scripts/postgres.sh).
# 6. Runs the tests (the test bundle itself for the whole suite, `swift test --skip-build` for a filtered run) with
#    OAUTHFLOW_TEST_AS_URL, OAUTHFLOW_TEST_AS_PYTHON, OAUTHFLOW_TEST_AS_AGENT, OAUTHFLOW_TEST_GIT_URL,
#    OAUTHFLOW_TEST_WEB_PORT, OAUTHFLOW_TEST_SERVICE_AS, OAUTHFLOW_TEST_EXCHANGE_AS, OAUTHFLOW_TEST_PAR_AS,
#    OAUTHFLOW_TEST_LOGOUT_OP, OAUTHFLOW_TEST_MCP_SERVER, OAUTHFLOW_TEST_IDJAG_SERVER and OAUTHFLOW_TEST_PG_* set, at most
#    16 tests at a time (run_tests says why), and SWIFTNIO_STRICT=1: a task scheduled on an event loop already shut
#    down crashes the run instead of printing an error.
# 7. Serves the web sign-in examples (Examples/WebSignIn on Hummingbird, then Examples/VaporSignIn on
#    Vapor, built with the tests), signs in, calls their protected API and signs out through DOT in
#    headless Chromium (Debian's chromium and chromium-driver, driven by Selenium); then serves
#    both over https (a self-signed certificate) and signs in with Apple through them against a
#    stand-in that answers as Apple documents (Tests/Browser/apple_standin.py); then stops every
#    server it started.
#
# Any failure to install or start the server fails this script: the end-to-end
# tests must run, never silently skip. Extra arguments go to `swift test` (a filtered run: `--filter X`), which then
# leaves step 7, the browser and its Debian packages, out (Selenium is in the peers' one virtualenv all the same).
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

source "$root/scripts/servers.sh"
source "$root/scripts/postgres.sh"
source "$root/scripts/browser.sh"

# On CI (CI=true: a fresh clone, built once) the build leaves debug information out of the Swift and the C alike
# (`-debug-info-format none`: SwiftPM then passes -gnone and -g0, where a -g0 given with -Xcc came before its own -g).
# A crash in a test still names the functions in its backtrace, without file and line. The index store stays: SwiftPM's
# test discovery on Linux reads it even with XCTest disabled (`--disable-index-store` fails the build at its end). It
# also compiles each module whole (-wmo, still unoptimized, its code generated on two threads), and emits each module's
# interface from that same job (-no-emit-module-separately-wmo): no file is parsed and type-checked once per batch, nor
# again in a job of its own that only emits the interface, so the cold build takes about 790 s of CPU instead of 1,150
# (Docs/benchmarks.md). A whole-module build is not incremental: elsewhere the build keeps the
# defaults, so that `swift build` and `swift test` run by hand reuse this build and rebuild only what changed.
build_flags=()
if [ "${CI:-}" = true ]; then build_flags=(-debug-info-format none -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 2 -Xswiftc -no-emit-module-separately-wmo); fi

# --- the build, from here on behind everything else ----------------------------------------
# The checks below, the installs and the servers take little CPU and mostly wait; the build takes the
# cores for seven to eight minutes on a fresh machine, so it starts as soon as the dependencies are checked out.
state=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-as.XXXXXX")
git_pid=""
build_pid=""
# Every pid the cleanup reads, set now: a check that fails before the servers start exits through it under `set -u`.
as_pid="" service_pid="" exchange_pid="" logout_pid="" par_pid="" mcp_pid="" idjag_pid=""
check_pids=() check_names=()
cleanup() {
    stop_web_example
    stop_postgres
    for pid in "$build_pid" "$git_pid" "$as_pid" "$service_pid" "$exchange_pid" "$logout_pid" "$par_pid" "$mcp_pid" "$idjag_pid" \
        "${check_pids[@]}"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$state"
}
trap cleanup EXIT INT TERM

# The dependencies' @available is read from their sources in .build/checkouts (Hummingbird's Router needs
# macOS 14), which the Apple-platform gate below reads while the build runs.
# SwiftPM checks the dependencies out with git, as the credential-helper tests use it.
if ! command -v git >/dev/null 2>&1; then
    echo "git not found; installing it with apt-get" >&2
    apt-get update -qq && apt-get install -y -qq git >/dev/null
fi
# Every package trait (Package.swift): the CLI, the servers' adapters, PostgreSQL and the MCP SDK are built and tested.
swift package resolve --enable-all-traits >/dev/null
# Its output is kept too: the package's own code must build without a warning (checked once it is built).
swift build --build-tests --enable-all-traits "${build_flags[@]}" > >(tee "$state/build.log") 2>&1 &
build_pid=$!

# --- style: .swift-format over Sources (its rules and its layout) ---------------------------
# `swift format format --in-place --recursive Sources` fixes the layout; the rules it cannot fix.
if ! lint_output=$(swift format lint --strict --recursive Sources 2>&1) \
    || [ -n "$lint_output" ]; then
    echo "error: swift format lint --strict found problems in Sources (.swift-format):" >&2
    printf '%s\n' "$lint_output" >&2
    exit 1
fi

# --- Apple platforms: what a build at Package.swift's floor would refuse (no build; seconds) -----------
python3 "$root/scripts/apple-portability.py" --self-test
if ! python3 "$root/scripts/apple-portability.py"; then
    echo "error: Sources, Examples or Tests use what an Apple build at Package.swift's floor refuses (above; Docs/testing.md)" >&2
    exit 1
fi

# --- the guides make their DocC articles, and none is committed (no build; well under a second) ---------------
# A link to a heading or guide that is not there fails here, as does a generated article added to a catalog.
python3 "$root/scripts/docc-articles.py" --check

# --- the house's rules: function and file sizes, a file per type (no build; under a second) ---------------------
python3 "$root/scripts/house.py" --self-test
if ! python3 "$root/scripts/house.py"; then
    echo "error: Sources break the house's size or naming rules (above; Docs/design.md, Style)" >&2
    exit 1
fi

# pip mostly waits on the network and the disk, beside the build. The first call installs every peer; the others
# set their server's Python.
install_authorization_server
install_server service
install_server exchange
install_server logout
install_server par
install_server mcp
install_server idjag
# The browser sign-ins run only for the whole suite (below).
if [ "$#" -eq 0 ]; then install_browser; fi
# Debian's PostgreSQL, on a fresh machine downloaded now rather than after the build.
install_postgres

# `swift test`, its output kept in $state/swift-test.log. A failure is listed again at the end, where
# a truncated CI log still shows it. A failed test fails the run: nothing is run a second time.
#
# At most 16 tests run at once (Swift Testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH; set it to
# choose another width). Unbounded, all 1,300 tests started together on two cores: an await waited over 30 s
# for a thread, and deadlines the tests rely on (a 5 s request, a 60 s DPoP proof window, DOT's code
# lifetime) passed while nothing was wrong. With 16, the whole suite passed beside two busy loops taking both
# cores, in 204 s of `swift test`, and in 130 s beside a release build; unbounded, CI's last run took 72 s.
#
# The whole suite runs the test bundle itself, as `swift test` does (`--testing-library swift-testing`; the package has
# no XCTest tests): `swift test --skip-build` first loads and compiles every package's manifest again, 9 s on a fresh
# machine. A filtered run (extra arguments), or a package with an XCTest test, goes through `swift test`.
run_tests() {
    local log="$state/swift-test.log" status=0
    local command=(swift test --skip-build --enable-all-traits "$@")
    local bundle="$root/.build/debug/OAuthFlowPackageTests.xctest"
    # On Linux the bundle is an executable; on macOS a directory that only `swift test` runs.
    if [ "$#" -eq 0 ] && [ -f "$bundle" ] && [ -x "$bundle" ] && ! grep -rqs --include='*.swift' '^import XCTest' "$root/Tests"; then
        command=("$bundle" --testing-library swift-testing)
    fi
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}" \
        "${command[@]}" 2>&1 | tee "$log" || status=$?
    [ "$status" -eq 0 ] && return 0
    echo "=== swift test failed (exit $status); the tests that failed: $(python3 "$root/scripts/failed-tests.py" "$log") ===" >&2
    grep -a -E "✘|error:|Fatal error|Expectation failed" "$log" | head -n 60 >&2 || true
    return "$status"
}

# The web example's port, chosen now: DOT registers its redirect URI at bootstrap.
export OAUTHFLOW_WEB_PORT=$(quiet_port)
launch_authorization_server "$state"
mkdir -p "$state/service" "$state/exchange" "$state/logout" "$state/par" "$state/mcp"
launch_server service "$state/service"
launch_server exchange "$state/exchange"
launch_server logout "$state/logout"
launch_server par "$state/par"
launch_server mcp "$state/mcp"
launch_server idjag "$state/idjag"

wait "$build_pid"
build_pid=""

# --- no warning from the package's own code (Sources, Tests, Examples; the dependencies' are theirs) -------------------
# The compiler prints a warning where it compiles the file: a fresh clone's build compiles every file, a build by hand
# only what changed. Read now, reported and failed once the tests have run (as the checks below are).
own_warnings=$(python3 "$root/scripts/own-warnings.py" "$state/build.log")
report_warnings() {
    [ -z "$own_warnings" ] && return 0
    echo "error: the build warns about the package's own code ($(printf '%s\n' "$own_warnings" | wc -l) warnings):" >&2
    printf '%s\n' "$own_warnings" >&2
    return 1
}

# --- five checks of what the build made, run side by side and beside the tests (each mostly one core for a few seconds;
# together about 30 s of CPU, which the tests, waiting on their servers about a third of the time, leave room for).
# Each writes to its own log, shown when it fails, after the tests:
# - what scratch consumers resolve against this checkout (an Apple app with the default traits, a Vapor server, a
#   Hummingbird server, an MCP host, Vapor alone), held to scripts/consumers/*/packages.txt and its budgets
#   (scripts/consumers.py --check; resolution only, from the packages the build checked out);
# - the Apple-only lines and every Darwin-only branch, each file in its Apple view (`#if` as an Apple build evaluates
#   it), type-checked on Linux against shims laid out as Apple's SDK is, warnings included (scripts/apple-typecheck.sh);
# - the public and package API of each library product, read from the build's modules: a change to it fails with a
#   diff until api/*.txt is regenerated and committed with it (scripts/api-listing.py --check);
# - the CLI as a plain host: the public API only (a type-check of its sources under another package name;
#   scripts/cli-public.py);
# - DocC for each library product, warnings as errors: an unresolved ``Symbol`` link, a parameter documented that
#   does not exist or left undocumented, or a public top-level type no landing page places fails with DocC's
#   diagnostics (scripts/docs.py).
start_check() {
    local name=$1
    shift
    "$@" >"$state/check-$name.log" 2>&1 &
    check_pids+=("$!")
    check_names+=("$name")
}
start_check consumers python3 "$root/scripts/consumers.py" --check
start_check api-listing python3 "$root/scripts/api-listing.py" --check
start_check cli-public python3 "$root/scripts/cli-public.py"
start_check apple-typecheck bash "$root/scripts/apple-typecheck.sh"
start_check docs python3 "$root/scripts/docs.py"
# finish_checks: waits for the five checks; fails with the output of each that failed.
finish_checks() {
    local index failed=""
    for index in "${!check_pids[@]}"; do
        if ! wait "${check_pids[$index]}"; then
            echo "error: ${check_names[$index]} failed:" >&2
            cat "$state/check-${check_names[$index]}.log" >&2
            failed=yes
        fi
    done
    check_pids=()
    [ -z "$failed" ]
}

await_authorization_server
port=$as_port
await_server service
await_server exchange
await_server logout
await_server par
await_server mcp
await_server idjag

# --- a git repository over HTTP, for the credential-helper tests (git installed above) ----------------------
git_root="$state/git"
mkdir -p "$git_root"
git init -q --bare "$git_root/repo.git"
git -C "$git_root/repo.git" config http.receivepack true
seed="$state/seed"
git init -q "$seed"
git -C "$seed" -c user.name=OAuthFlow -c user.email=tests@oauthflow.invalid commit -q --allow-empty -m "first commit"
git -C "$seed" push -q "$git_root/repo.git" HEAD:refs/heads/main
git -C "$git_root/repo.git" symbolic-ref HEAD refs/heads/main
OAUTHFLOW_AS_URL="http://127.0.0.1:$port" "$as_python" "$root/Tests/GitServer/front.py" "$git_root" "$state/git-ready" \
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
export OAUTHFLOW_TEST_AS_PYTHON="$as_python"
export OAUTHFLOW_TEST_AS_AGENT="$root/Tests/AuthorizationServer/agent.py"
export OAUTHFLOW_TEST_WEB_PORT="$OAUTHFLOW_WEB_PORT"
# A task scheduled on an event loop already shut down is a crash, not a printed error (SwiftNIO's strict mode, which
# it means to make the default): a server or receiver that shuts its loop down twice fails the run.
export SWIFTNIO_STRICT=1
tests_status=0
run_tests "$@" || tests_status=$?
checks_status=0
finish_checks || checks_status=1
report_warnings || checks_status=1
[ "$checks_status" -eq 0 ] || exit 1
[ "$tests_status" -eq 0 ] || exit "$tests_status"

# --- the web sign-in example in a real browser ----------------------------------------------
# Only for the whole suite: a filtered run (`scripts/test.sh --filter X`) skips it.
if [ "$#" -eq 0 ]; then
    run_browser_test
fi
