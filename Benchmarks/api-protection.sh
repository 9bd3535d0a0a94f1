#!/usr/bin/env bash
# The API protection benchmark (Docs/benchmarks.md, "API protection"): what ProtectedResource and
# AccessTokenMiddleware add per request, next to a route with no auth and a bare Hummingbird + jwt-kit route, and
# next to Apache with mod_auth_openidc (Debian's libapache2-mod-auth-openidc) verifying the same tokens against the
# same key set as an OAuth 2.0 resource server, with a no-auth route of its own.
#
# Builds APIProtectionBenchmark in release mode, makes the keys and tokens (both cores), starts its server
# pinned to core 0 (taskset -c 0) and drives it with wrk pinned to core 1 (keep-alive, one thread, CONNECTIONS
# connections). Apache runs beside it, pinned to core 0 too: one child process (mpm_event, ThreadsPerChild
# APACHE_THREADS), no access log, /none a static "ok" and /protected the same behind `AuthType oauth20`, with
# `Require claim` for iss, aud and the scope read; mod_auth_openidc reads the benchmark's JWKS (served over TLS
# by the same Apache, as OIDCOAuthVerifyJwksUri takes https only). It is installed with apt-get when missing;
# when it cannot be installed or started, its cases are left out with a message (APACHE=0 leaves them out).
# Each case runs once to warm up, then ROUNDS times, in one interleaved order (each algorithm's three servers
# back to back), reversed every other round;
# the first-seen cases send the distinct tokens in turn (a Lua script), the others one token again and
# again. Prints each run, then the medians: req/s, µs per request (1e6 / req/s, the server having one
# core), the server's CPU time per request (from /proc), latency, and µs added against the same server's
# /none in the same round; then the three servers side by side, with per-round ratios (median, lowest,
# highest). Then (unless DIAGNOSE=0) times /jwt's first-seen check inside the server's handler (thread CPU
# time, the /jwt-timed and /stats routes), and runs `micro` (in process, pinned to core 0) unless MICRO=0.
# Stops the servers at the end. Before each run it waits (up to a minute) for both cores to
# be idle, and it reports how busy each core was, so a run that shared the machine shows.
#
#   bash Benchmarks/api-protection.sh [SECONDS] [ROUNDS] [TOKENS]     (defaults 10, 3 and 100000)
#   CONNECTIONS=16 MICRO=1 DIAGNOSE=1 BUILD=release APACHE=1 APACHE_THREADS=16
#   CACHE_CAPACITY=0 (the server's verified-token cache; the library's default is 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
seconds="${1:-10}"
rounds="${2:-3}"
tokens="${3:-100000}"
connections="${CONNECTIONS:-16}"
configuration="${BUILD:-release}"

if ! command -v wrk >/dev/null 2>&1; then
    privileged=""
    if [ "$(id -u)" != 0 ]; then privileged="sudo"; fi
    $privileged apt-get install -y wrk >&2 || { $privileged apt-get update >&2 && $privileged apt-get install -y wrk >&2; }
fi
for tool in taskset python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "api-protection.sh needs $tool" >&2; exit 1; }
done

(cd "$root/Benchmarks" && swift build -c "$configuration" --product APIProtectionBenchmark >&2)
bin="$(cd "$root/Benchmarks" && swift build -c "$configuration" --show-bin-path)/APIProtectionBenchmark"

work=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-api-bench.XXXXXX")
server_pid=""
apache_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -n "$apache_pid" ]; then kill -TERM "$apache_pid" 2>/dev/null || true; wait "$apache_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(swift --version 2>/dev/null | head -1), $configuration build, $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
changed=$(git -C "$root" status --porcelain -- Sources Package.swift 2>/dev/null | wc -l)
echo "OAuthFlow $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$([ "$changed" = 0 ] || echo " with $changed uncommitted change(s) in Sources or Package.swift")"
"$bin" tokens "$work" "$tokens"
# The verified-token cache keeps up to CACHE_CAPACITY tokens: a list no longer than that comes back from it.
if [ "$tokens" -le "${CACHE_CAPACITY:-10000}" ]; then
    echo "note: $tokens tokens is no more than the verified-token cache holds (${CACHE_CAPACITY:-10000}): /jwt's first-seen cases are answered from it" >&2
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
# One event loop thread for the one core (NIO would start one per online core).
NIO_SINGLETON_GROUP_LOOP_COUNT=1 taskset -c 0 "$bin" serve "$port" "$work" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
    [ -e "$work/ready" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server stopped" >&2; exit 1; }
    sleep 0.2
done
[ -e "$work/ready" ] || { cat "$work/server.log" >&2; echo "the server did not get ready" >&2; exit 1; }
cat "$work/server.log"

# Sends the tokens of the file given after `--` in turn, one per request, from a random place in the list
# (no file: no Authorization header).
cat >"$work/tokens.lua" <<'LUA'
local tokens, count, index = {}, 0, 0
function init(args)
    local path = args[1]
    if path == nil or path == "" then return end
    for line in io.lines(path) do
        if #line > 0 then
            count = count + 1
            tokens[count] = "Bearer " .. line
        end
    end
    math.randomseed(os.time() + count)
    index = math.random(count) - 1
end
function request()
    if count == 0 then return wrk.format("GET") end
    index = index % count + 1
    return wrk.format("GET", nil, { ["Authorization"] = tokens[index] })
end
LUA

# Apache with mod_auth_openidc beside the Swift server: installed when missing, configured in $work/apache,
# started pinned to core 0 in the foreground (so that this script owns it and stops it), and checked to accept
# one token of each algorithm before it is measured. Any failure leaves its cases out, with the reason.
apache_port=""
start_apache() {
    local module=/usr/lib/apache2/modules/mod_auth_openidc.so privileged="" dir="$work/apache" jwks_port user=""
    if ! command -v apache2 >/dev/null 2>&1 || [ ! -e "$module" ]; then
        if [ "$(id -u)" != 0 ]; then privileged="sudo"; fi
        $privileged apt-get install -y apache2 libapache2-mod-auth-openidc >&2 \
            || { $privileged apt-get update >&2 && $privileged apt-get install -y apache2 libapache2-mod-auth-openidc >&2; } || true
    fi
    if ! command -v apache2 >/dev/null 2>&1 || [ ! -e "$module" ]; then
        echo "mod_auth_openidc left out: apache2 and libapache2-mod-auth-openidc are not installed and could not be" >&2
        return 1
    fi
    command -v openssl >/dev/null 2>&1 || { echo "mod_auth_openidc left out: openssl is needed for the JWKS over TLS" >&2; return 1; }
    mkdir -p "$dir/docs" "$dir/keys"
    printf ok >"$dir/docs/none"
    printf ok >"$dir/docs/protected"
    cp "$work/jwks.json" "$dir/keys/jwks.json"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/tls.key" -out "$dir/tls.crt" -days 2 \
        -subj /CN=127.0.0.1 >/dev/null 2>&1 || { echo "mod_auth_openidc left out: openssl could not make a certificate" >&2; return 1; }
    apache_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    jwks_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    # The children run as www-data when Apache starts as root: they read the work directory.
    if [ "$(id -u)" = 0 ] && id www-data >/dev/null 2>&1; then
        user=$'User www-data\nGroup www-data'
        chmod -R a+rX "$work"
    fi
    local threads="${APACHE_THREADS:-16}" modules=/usr/lib/apache2/modules
    cat >"$dir/httpd.conf" <<CONF
ServerRoot "$dir"
ServerName 127.0.0.1
PidFile "$dir/httpd.pid"
ErrorLog "$dir/error.log"
LogLevel warn
$user
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule ssl_module $modules/mod_ssl.so
LoadModule auth_openidc_module $module
# One child process with a thread per connection wrk opens: one process on one core, as the Swift server.
StartServers 1
ServerLimit 1
ThreadsPerChild $threads
ThreadLimit $threads
MaxRequestWorkers $threads
MinSpareThreads 1
MaxSpareThreads $threads
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 60
Listen 127.0.0.1:$apache_port
DocumentRoot "$dir/docs"
<Directory "$dir/docs">
    Require all granted
</Directory>
# The benchmark's JWKS over TLS (a self-signed certificate): OIDCOAuthVerifyJwksUri takes https URLs only.
Listen 127.0.0.1:$jwks_port
<VirtualHost 127.0.0.1:$jwks_port>
    SSLEngine on
    SSLCertificateFile "$dir/tls.crt"
    SSLCertificateKeyFile "$dir/tls.key"
    DocumentRoot "$dir/keys"
    <Directory "$dir/keys">
        Require all granted
    </Directory>
</VirtualHost>
OIDCCryptoPassphrase benchmark-only-passphrase
OIDCOAuthVerifyJwksUri https://127.0.0.1:$jwks_port/jwks.json
OIDCOAuthSSLValidateServer Off
OIDCOAuthRemoteUserClaim sub
<Location /protected>
    AuthType oauth20
    <RequireAll>
        Require claim iss:https://issuer.bench.example
        Require claim aud:https://api.bench.example
        Require claim "scope~(^| )read( |$)"
    </RequireAll>
</Location>
CONF
    taskset -c 0 apache2 -f "$dir/httpd.conf" -DFOREGROUND >"$dir/stdout.log" 2>&1 &
    apache_pid=$!
    local ready="" token
    for _ in $(seq 1 100); do
        kill -0 "$apache_pid" 2>/dev/null || break
        if python3 - "$apache_port" "$work/rs256-one.txt" "$work/es256-one.txt" <<'PY' 2>/dev/null; then ready=1; break; fi
import sys, urllib.request
port = sys.argv[1]
urllib.request.urlopen(f"http://127.0.0.1:{port}/none", timeout=2).read()
for path in sys.argv[2:]:
    token = open(path).read().strip()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/protected", headers={"Authorization": "Bearer " + token})
    assert urllib.request.urlopen(request, timeout=5).read() == b"ok"
PY
        sleep 0.2
    done
    if [ -z "$ready" ]; then
        echo "mod_auth_openidc left out: Apache did not start or did not accept the tokens; its log:" >&2
        tail -20 "$dir/error.log" "$dir/stdout.log" >&2 2>/dev/null || true
        kill -TERM "$apache_pid" 2>/dev/null || true
        wait "$apache_pid" 2>/dev/null || true
        apache_pid=""
        return 1
    fi
    echo "Apache $(apache2 -v | sed -n 's/^Server version: Apache\/\([^ ]*\).*/\1/p') with mod_auth_openidc $(dpkg-query -W -f '${Version}' libapache2-mod-auth-openidc 2>/dev/null || echo '?') on 127.0.0.1:$apache_port (pid $apache_pid, core 0, ThreadsPerChild $threads)"
}

# name, server, path, token file ("-" for none); each algorithm's three servers back to back.
cases=(
    "none swift /none -"
    "apache-none apache /none -"
    "none+header swift /none rs256-one.txt"
    "jwt-RS256-first swift /jwt rs256-distinct.txt"
    "bare-RS256 swift /bare rs256-distinct.txt"
    "oidc-RS256-first apache /protected rs256-distinct.txt"
    "jwt-ES256-first swift /jwt es256-distinct.txt"
    "bare-ES256 swift /bare es256-distinct.txt"
    "oidc-ES256-first apache /protected es256-distinct.txt"
    "jwt-RS256-repeat swift /jwt rs256-one.txt"
    "oidc-RS256-repeat apache /protected rs256-one.txt"
    "jwt-ES256-repeat swift /jwt es256-one.txt"
    "oidc-ES256-repeat apache /protected es256-one.txt"
    "opaque-repeat swift /opaque opaque-one.txt"
)
if [ "${APACHE:-1}" = 0 ] || ! start_apache; then
    [ "${APACHE:-1}" = 0 ] && echo "mod_auth_openidc left out (APACHE=0)"
    kept=()
    for entry in "${cases[@]}"; do
        read -r _ server _ _ <<<"$entry"
        [ "$server" = apache ] || kept+=("$entry")
    done
    cases=("${kept[@]}")
fi

ticks=$(getconf CLK_TCK)
# CPU seconds (user + system) of SERVER's processes: the Swift server, or Apache's parent and its child.
cpu_seconds() {
    local pids=("$server_pid")
    if [ "$1" = apache ]; then
        pids=("$apache_pid" $(awk -v parent="$apache_pid" '$4 == parent { print $1 }' /proc/[0-9]*/stat 2>/dev/null))
    fi
    for pid in "${pids[@]}"; do cat "/proc/$pid/stat"; done | awk -v t="$ticks" '{ sum += $14 + $15 } END { printf "%.3f", sum / t }'
}
cores_snapshot() { grep -E '^cpu[01] ' /proc/stat | tr '\n' ';'; }
# CPU seconds of this shell's waited-for children (wrk among them), user + system, as `times` wrote them
# to FILE (`times` must run in this shell, not in a $(...) subshell, whose counts start at zero).
children_seconds() { tail -1 "$1" | awk '{ gsub(/[ms]/, " "); split($0, t, " "); printf "%.3f", t[1] * 60 + t[2] + t[3] * 60 + t[4] }'; }
# Waits (at most a minute) until neither core is more than 10% busy for a second: other work on the
# machine (a build, a test run) would share the cores with the server or wrk. Says so when it never is.
wait_quiet() {
    local tries=0 busy
    while :; do
        busy=$(python3 -c '
import time
def read():
    return [[int(v) for v in line.split()[1:]] for line in open("/proc/stat") if line.startswith(("cpu0 ", "cpu1 "))]
a = read(); time.sleep(1); b = read()
print(max(100 * ((sum(y) - y[3] - y[4]) - (sum(x) - x[3] - x[4])) / max(1, sum(y) - sum(x)) for x, y in zip(a, b)))')
        if python3 -c "import sys; sys.exit(0 if float('$busy') <= 10 else 1)"; then return; fi
        tries=$((tries + 1))
        if [ "$tries" -ge 30 ]; then echo "note: a core is still ${busy%.*}% busy with other work; running anyway" >&2; return; fi
        sleep 1
    done
}

# run ROUND NAME SERVER PATH FILE DURATION: one wrk run; appends a line to results.tsv unless ROUND is "warm".
run() {
    local round=$1 name=$2 server=$3 path=$4 file=$5 duration=$6 args=() before after cores_before cores_after load_before load_after started ended output
    local target_port=$port
    if [ "$server" = apache ]; then target_port=$apache_port; fi
    if [ "$file" != "-" ]; then args=(-- "$work/$file"); fi
    [ "$round" = warm ] || wait_quiet
    before=$(cpu_seconds "$server")
    started=$(date +%s.%N)
    cores_before=$(cores_snapshot)
    times >"$work/times-before"
    output=$(taskset -c 1 wrk -t1 -c"$connections" -d"${duration}s" --latency -s "$work/tokens.lua" "http://127.0.0.1:$target_port$path" "${args[@]}")
    times >"$work/times-after"
    load_before=$(children_seconds "$work/times-before")
    load_after=$(children_seconds "$work/times-after")
    cores_after=$(cores_snapshot)
    ended=$(date +%s.%N)
    after=$(cpu_seconds "$server")
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server stopped" >&2; exit 1; }
    if [ "$server" = apache ]; then kill -0 "$apache_pid" 2>/dev/null || { tail -20 "$work/apache/error.log" >&2; echo "Apache stopped" >&2; exit 1; }; fi
    [ "$round" = warm ] && return
    WRK_OUTPUT="$output" CORES_BEFORE="$cores_before" CORES_AFTER="$cores_after" \
        python3 - "$round" "$name" "$before" "$after" "$load_before" "$load_after" "$started" "$ended" <<'PY' >>"$work/results.tsv"
import os, re, sys
round, name, before, after = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
wall = float(sys.argv[8]) - float(sys.argv[7])  # the run, wrk's start and end included
load = (float(sys.argv[6]) - float(sys.argv[5])) / wall * 100
text = os.environ["WRK_OUTPUT"]
def cores(snapshot):  # per core: (busy, total) jiffies
    result = []
    for line in filter(None, snapshot.split(";")):
        values = [int(v) for v in line.split()[1:]]
        result.append((sum(values) - values[3] - values[4], sum(values)))
    return result
busy = [100 * (b2 - b1) / max(1, t2 - t1) for (b1, t1), (b2, t2) in zip(cores(os.environ["CORES_BEFORE"]), cores(os.environ["CORES_AFTER"]))]
def micros(pattern):
    found = re.search(pattern + r"\s+([\d.]+)(us|ms|s|m|h)\b", text)
    if not found:
        return float("nan")
    number, unit = found.groups()
    return float(number) * {"us": 1, "ms": 1e3, "s": 1e6, "m": 6e7, "h": 3.6e9}[unit]
try:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    requests = int(re.search(r"(\d+) requests in", text).group(1))
except AttributeError:
    sys.exit("cannot read this wrk output:\n" + text)
average = micros(r"Latency")
p50 = micros(r"50%")
p99 = micros(r"99%")
failed = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
cpu = after - before
print(f"{round}\t{name}\t{rps:.1f}\t{requests}\t{cpu:.3f}\t{cpu / wall * 100:.0f}\t{average:.0f}\t{p50:.0f}\t{p99:.0f}\t{failed.group(1) if failed else 0}\t{busy[0]:.0f}\t{busy[1]:.0f}\t{load:.0f}\t{errors.group(1) if errors else ''}")
PY
    tail -1 "$work/results.tsv" | awk -F'\t' '{ printf "round %s  %-17s %6.0f req/s %6.1f µs/req  server CPU %3s%% wrk %3s%% (core 0 busy %3s%%, core 1 %3s%%)  latency avg %5s µs p99 %5s µs  non-2xx %s %s\n", $1, $2, $3, 1e6 / $3, $6, $13, $11, $12, $7, $9, $10, $14 }'
}

echo "warm-up: each case for 3 s"
for entry in "${cases[@]}"; do
    read -r name server path file <<<"$entry"
    run warm "$name" "$server" "$path" "$file" 3
done
for round in $(seq 1 "$rounds"); do
    order=("${cases[@]}")
    if [ $((round % 2)) = 0 ]; then
        order=()
        for ((i = ${#cases[@]} - 1; i >= 0; i--)); do order+=("${cases[$i]}"); done
    fi
    for entry in "${order[@]}"; do
        read -r name server path file <<<"$entry"
        run "$round" "$name" "$server" "$path" "$file" "$seconds"
    done
done

python3 - "$work/results.tsv" "$connections" "$seconds" <<'PY'
import statistics, sys
path, connections, seconds = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(path)]
runs = {}
for round, name, rps, requests, cpu, busy, average, p50, p99, failed, core0, core1, load, errors in rows:
    runs.setdefault(name, {})[round] = dict(rps=float(rps), requests=int(requests), cpu=float(cpu), busy=float(busy),
                                            average=float(average), p99=float(p99), failed=int(failed), core0=float(core0), core1=float(core1),
                                            load=float(load))
median = statistics.median
def us(run): return 1e6 / run["rps"]
def cpu_us(run): return run["cpu"] / run["requests"] * 1e6
# Each case against its own server's no-auth route: Apache's cases against Apache's /none.
def base_of(name): return "apache-none" if name.startswith(("oidc-", "apache-")) else "none"
def added_by_round(name):
    base = runs[base_of(name)]
    return {r: us(runs[name][r]) - us(base[r]) for r in sorted(runs[name])}
def rps_ratio_by_round(name, against):
    return {r: runs[name][r]["rps"] / runs[against][r]["rps"] for r in sorted(runs[name])}
def spread(values, digits):
    values = list(values)
    return f"{median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"
base = runs["none"]
print(f"\nMedians over {len(base)} rounds of {seconds} s, wrk -t1 -c{connections}, server on core 0, wrk on core 1:\n")
print("| Case | req/s | µs/req | server CPU µs/req | added vs its server's /none (µs) | latency avg / p99 (µs) | server CPU, wrk CPU (core 0 / core 1 busy) | non-2xx |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
added = {}
for name, by_round in runs.items():
    rounds = sorted(by_round)
    added[name] = median(added_by_round(name).values())
    print(f"| {name} | {median([by_round[r]['rps'] for r in rounds]):,.0f} | {median([us(by_round[r]) for r in rounds]):.1f} "
          f"| {median([cpu_us(by_round[r]) for r in rounds]):.1f} | {added[name]:+.1f} "
          f"| {median([by_round[r]['average'] for r in rounds]):.0f} / {median([by_round[r]['p99'] for r in rounds]):.0f} "
          f"| {median([by_round[r]['busy'] for r in rounds]):.0f}%, {median([by_round[r]['load'] for r in rounds]):.0f}% ({median([by_round[r]['core0'] for r in rounds]):.0f}% / "
          f"{median([by_round[r]['core1'] for r in rounds]):.0f}%) | {sum(by_round[r]['failed'] for r in rounds)} |")
def ratio(name, against):
    return median(rps_ratio_by_round(name, against).values())
def added_ratio_by_round(name, against):
    mine, theirs = added_by_round(name), added_by_round(against)
    return {r: mine[r] / theirs[r] for r in mine}

apache = "oidc-RS256-first" in runs
print(f"\nSide by side, paired by round: the median of the {len(base)} rounds' values (lowest–highest):\n")
print("| added µs per request vs the server's own no-auth route | RS256 | ES256 |")
print("| --- | ---: | ---: |")
rows = [("OAuthFlow AccessTokenMiddleware, first-seen token", "jwt-{}-first"), ("bare jwt-kit verify in a Hummingbird handler", "bare-{}")]
if apache:
    rows.append(("Apache mod_auth_openidc, every request", "oidc-{}-first"))
for label, pattern in rows:
    print(f"| {label} | " + " | ".join(spread(added_by_round(pattern.format(kind)).values(), 1) for kind in ("RS256", "ES256")) + " |")
print("| OAuthFlow ÷ jwt-kit (goal ≤ 1.1) | "
      + " | ".join(spread(added_ratio_by_round(f"jwt-{kind}-first", f"bare-{kind}").values(), 2) for kind in ("RS256", "ES256")) + " |")
if apache:
    print("| OAuthFlow ÷ mod_auth_openidc (goal < 1) | "
          + " | ".join(spread(added_ratio_by_round(f"jwt-{kind}-first", f"oidc-{kind}-first").values(), 2) for kind in ("RS256", "ES256")) + " |")
print("| repeated token: OAuthFlow req/s ÷ its /none | "
      + " | ".join(spread(rps_ratio_by_round(f"jwt-{kind}-repeat", "none").values(), 2) for kind in ("RS256", "ES256")) + " |")
if apache:
    print("| repeated token: mod_auth_openidc req/s ÷ Apache's /none | "
          + " | ".join(spread(rps_ratio_by_round(f"oidc-{kind}-repeat", "apache-none").values(), 2) for kind in ("RS256", "ES256")) + " |")

print("\nGoals (paired by round):\n")
for kind in ("RS256", "ES256"):
    first, bare = f"jwt-{kind}-first", f"bare-{kind}"
    line = (f"- (1) {kind} first seen: /jwt adds {added[first]:.1f} µs, /bare (jwt-kit) adds {added[bare]:.1f} µs: "
            f"{median(added_ratio_by_round(first, bare).values()):.2f}x the bare added cost (goal <= 1.1x); req/s {ratio(first, bare):.2f}x /bare's")
    if apache:
        oidc = f"oidc-{kind}-first"
        line += f"; mod_auth_openidc adds {added[oidc]:.1f} µs: /jwt {median(added_ratio_by_round(first, oidc).values()):.2f}x it (goal < 1)"
    print(line)
for kind in ("RS256", "ES256"):
    name = f"jwt-{kind}-repeat"
    print(f"- (2) {kind} repeated: {ratio(name, 'none'):.2f}x the req/s of /none (goal >= 0.8x), "
          f"{ratio(name, 'none+header'):.2f}x /none sent the same header; adds {added[name]:.1f} µs")
print(f"- (3) opaque, introspection cache hit: {ratio('opaque-repeat', 'none'):.2f}x the req/s of /none, adds {added['opaque-repeat']:.1f} µs "
      f"(a repeated JWT adds {added['jwt-RS256-repeat']:.1f} µs RS256, {added['jwt-ES256-repeat']:.1f} µs ES256)")
PY

if [ "${DIAGNOSE:-1}" != 0 ]; then
    # The same first-seen checks made in a handler, with the thread CPU time they take (GET /stats): what the
    # check itself costs inside the server, apart from what the server spends around it.
    echo
    echo "In-server CPU time of /jwt's check itself (first seen, the handler timing its own call; ${seconds} s each):"
    stats() { python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$port/stats').read().decode().strip())"; }
    stats >/dev/null
    for file in rs256-distinct.txt es256-distinct.txt; do
        wait_quiet
        rps=$(taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" -s "$work/tokens.lua" "http://127.0.0.1:$port/jwt-timed" -- "$work/$file" | awk '/Requests\/sec/ { print $2 }')
        echo "  /jwt-timed with $file: $rps req/s; $(stats)"
    done
fi

kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=""
if [ -n "$apache_pid" ]; then
    kill -TERM "$apache_pid" 2>/dev/null || true
    wait "$apache_pid" 2>/dev/null || true
    apache_pid=""
fi

if [ "${MICRO:-1}" != 0 ]; then
    echo
    echo "micro (in process, core 0):"
    wait_quiet
    taskset -c 0 "$bin" micro
fi
