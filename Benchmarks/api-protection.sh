#!/usr/bin/env bash
# The API protection benchmark (Docs/benchmarks.md, "API protection"): what ProtectedResource and
# AccessTokenMiddleware add per request, next to a route with no auth and a bare Hummingbird + jwt-kit route.
#
# Builds APIProtectionBenchmark in release mode, makes the keys and tokens (both cores), starts its server
# pinned to core 0 (taskset -c 0) and drives it with wrk pinned to core 1 (keep-alive, one thread, CONNECTIONS
# connections). Each case runs once to warm up, then ROUNDS times, the order reversed every other round;
# the first-seen cases send the distinct tokens in turn (a Lua script), the others one token again and
# again. Prints each run, then the medians: req/s, µs per request (1e6 / req/s, the server having one
# core), the server's CPU time per request (from /proc), latency, and µs added against /none in the same
# round. Then (unless DIAGNOSE=0) times /jwt's first-seen check inside the server's handler (thread CPU
# time, the /jwt-timed and /stats routes), and runs `micro` (in process, pinned to core 0)
# unless MICRO=0. Stops the server at the end. Before each run it waits (up to a minute) for both cores to
# be idle, and it reports how busy each core was, so a run that shared the machine shows.
#
#   bash Benchmarks/api-protection.sh [SECONDS] [ROUNDS] [TOKENS]     (defaults 10, 3 and 100000)
#   CONNECTIONS=16 MICRO=1 DIAGNOSE=1 BUILD=release
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
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(swift --version 2>/dev/null | head -1), $configuration build, $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
changed=$(git -C "$root" status --porcelain -- Sources Package.swift 2>/dev/null | wc -l)
echo "OAuthFlow $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$([ "$changed" = 0 ] || echo " with $changed uncommitted change(s) in Sources or Package.swift")"
"$bin" tokens "$work" "$tokens"

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

# name, path, token file ("-" for none)
cases=(
    "none /none -"
    "none+header /none rs256-one.txt"
    "jwt-RS256-first /jwt rs256-distinct.txt"
    "bare-RS256 /bare rs256-distinct.txt"
    "jwt-ES256-first /jwt es256-distinct.txt"
    "bare-ES256 /bare es256-distinct.txt"
    "jwt-RS256-repeat /jwt rs256-one.txt"
    "jwt-ES256-repeat /jwt es256-one.txt"
    "opaque-repeat /opaque opaque-one.txt"
)

ticks=$(getconf CLK_TCK)
cpu_seconds() { awk -v t="$ticks" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$server_pid/stat"; }
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

# run ROUND NAME PATH FILE DURATION: one wrk run; appends a line to results.tsv unless ROUND is "warm".
run() {
    local round=$1 name=$2 path=$3 file=$4 duration=$5 args=() before after cores_before cores_after load_before load_after started ended output
    if [ "$file" != "-" ]; then args=(-- "$work/$file"); fi
    [ "$round" = warm ] || wait_quiet
    before=$(cpu_seconds)
    started=$(date +%s.%N)
    cores_before=$(cores_snapshot)
    times >"$work/times-before"
    output=$(taskset -c 1 wrk -t1 -c"$connections" -d"${duration}s" --latency -s "$work/tokens.lua" "http://127.0.0.1:$port$path" "${args[@]}")
    times >"$work/times-after"
    load_before=$(children_seconds "$work/times-before")
    load_after=$(children_seconds "$work/times-after")
    cores_after=$(cores_snapshot)
    ended=$(date +%s.%N)
    after=$(cpu_seconds)
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server stopped" >&2; exit 1; }
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
    read -r name path file <<<"$entry"
    run warm "$name" "$path" "$file" 3
done
for round in $(seq 1 "$rounds"); do
    order=("${cases[@]}")
    if [ $((round % 2)) = 0 ]; then
        order=()
        for ((i = ${#cases[@]} - 1; i >= 0; i--)); do order+=("${cases[$i]}"); done
    fi
    for entry in "${order[@]}"; do
        read -r name path file <<<"$entry"
        run "$round" "$name" "$path" "$file" "$seconds"
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
base = runs["none"]
print(f"\nMedians over {len(base)} rounds of {seconds} s, wrk -t1 -c{connections}, server on core 0, wrk on core 1:\n")
print("| Case | req/s | µs/req | server CPU µs/req | added vs /none (µs) | latency avg / p99 (µs) | server CPU, wrk CPU (core 0 / core 1 busy) | non-2xx |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
added = {}
for name, by_round in runs.items():
    rounds = sorted(by_round)
    added[name] = median([us(by_round[r]) - us(base[r]) for r in rounds])
    print(f"| {name} | {median([by_round[r]['rps'] for r in rounds]):,.0f} | {median([us(by_round[r]) for r in rounds]):.1f} "
          f"| {median([cpu_us(by_round[r]) for r in rounds]):.1f} | {added[name]:+.1f} "
          f"| {median([by_round[r]['average'] for r in rounds]):.0f} / {median([by_round[r]['p99'] for r in rounds]):.0f} "
          f"| {median([by_round[r]['busy'] for r in rounds]):.0f}%, {median([by_round[r]['load'] for r in rounds]):.0f}% ({median([by_round[r]['core0'] for r in rounds]):.0f}% / "
          f"{median([by_round[r]['core1'] for r in rounds]):.0f}%) | {sum(by_round[r]['failed'] for r in rounds)} |")
def ratio(name, against):
    return median([runs[name][r]["rps"] / runs[against][r]["rps"] for r in sorted(runs[name])])
print("\nGoals (paired by round):\n")
for kind in ("RS256", "ES256"):
    first, bare = f"jwt-{kind}-first", f"bare-{kind}"
    print(f"- (1) {kind} first seen: /jwt adds {added[first]:.1f} µs, /bare (jwt-kit) adds {added[bare]:.1f} µs: "
          f"{added[first] / added[bare]:.2f}x the bare added cost (goal <= 1.1x); req/s {ratio(first, bare):.2f}x /bare's")
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

if [ "${MICRO:-1}" != 0 ]; then
    echo
    echo "micro (in process, core 0):"
    wait_quiet
    taskset -c 0 "$bin" micro
fi
