#!/usr/bin/env bash
# What metrics and tracing cost the API's repeated-token route (Docs/operations.md, "Overhead"): /jwt against
# /jwt-instrumented, the same API reporting to in-process metrics and tracing backends that keep every counter and
# histogram and build every span (Benchmarks/Sources/APIProtectionBenchmark/Instrumented.swift), in one server.
#
# Builds APIProtectionBenchmark in release mode, makes the keys and tokens, starts its server pinned to core 0 and
# drives it with wrk pinned to core 1 (keep-alive, one thread, CONNECTIONS connections), as api-protection.sh does.
# Each round runs the two routes back to back for SECONDS each, the order reversed every other round, for RS256 and
# ES256 tokens sent again and again; before each run it waits (up to a minute) for both cores to be idle. Prints each
# run, then per algorithm the instrumented route's req/s as a share of the plain one's, paired by round: the median
# and the spread (lowest, highest), against the goal (no more than 3% lost).
#
#   bash Benchmarks/instrumentation-overhead.sh [SECONDS] [ROUNDS]     (defaults 10 and 6)
#   CONNECTIONS=16 BUILD=release
#   SYSTEM_RANDOM_IDS=1: the tracer draws trace and span ids from SystemRandomNumberGenerator (a getrandom system
#   call each) instead of a generator seeded once (Instrumented.swift)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
seconds="${1:-10}"
rounds="${2:-6}"
connections="${CONNECTIONS:-16}"
configuration="${BUILD:-release}"

if ! command -v wrk >/dev/null 2>&1; then
    privileged=""
    if [ "$(id -u)" != 0 ]; then privileged="sudo"; fi
    $privileged apt-get install -y wrk >&2 || { $privileged apt-get update >&2 && $privileged apt-get install -y wrk >&2; }
fi
for tool in taskset python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "instrumentation-overhead.sh needs $tool" >&2; exit 1; }
done

(cd "$root/Benchmarks" && swift build -c "$configuration" --product APIProtectionBenchmark >&2)
bin="$(cd "$root/Benchmarks" && swift build -c "$configuration" --show-bin-path)/APIProtectionBenchmark"

work=$(mktemp -d "${TMPDIR:-/tmp}/oauthflow-overhead.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(swift --version 2>/dev/null | head -1), $configuration build, $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
changed=$(git -C "$root" status --porcelain -- Sources Package.swift Benchmarks 2>/dev/null | wc -l)
echo "OAuthFlow $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$([ "$changed" = 0 ] || echo " with $changed uncommitted change(s) in Sources, Package.swift or Benchmarks"), load average $(cut -d' ' -f1-3 /proc/loadavg), ids from $([ "${SYSTEM_RANDOM_IDS:-0}" = 1 ] && echo SystemRandomNumberGenerator || echo 'a generator seeded once')"
"$bin" tokens "$work" 1000 >/dev/null

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NIO_SINGLETON_GROUP_LOOP_COUNT=1 taskset -c 0 "$bin" serve "$port" "$work" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
    [ -e "$work/ready" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server stopped" >&2; exit 1; }
    sleep 0.2
done
[ -e "$work/ready" ] || { cat "$work/server.log" >&2; echo "the server did not get ready" >&2; exit 1; }
cat "$work/server.log"

cat >"$work/token.lua" <<'LUA'
local header
function init(args)
    for line in io.lines(args[1]) do
        if #line > 0 then header = "Bearer " .. line; break end
    end
end
function request() return wrk.format("GET", nil, { ["Authorization"] = header }) end
LUA

# Waits (at most a minute) until neither core is more than 10% busy for a second; says so when it never is.
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

# run ROUND NAME PATH FILE DURATION: one wrk run; appends "ROUND NAME REQ/S NON-2XX" to results unless ROUND is "warm".
run() {
    local round=$1 name=$2 path=$3 file=$4 duration=$5 output rps failed
    [ "$round" = warm ] || wait_quiet
    output=$(taskset -c 1 wrk -t1 -c"$connections" -d"${duration}s" -s "$work/token.lua" "http://127.0.0.1:$port$path" -- "$work/$file")
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server stopped" >&2; exit 1; }
    [ "$round" = warm ] && return
    rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$output")
    failed=$(awk '/Non-2xx/ { print $NF }' <<<"$output")
    echo "$round $name $rps ${failed:-0}" >>"$work/results"
    printf 'round %s  %-22s %8.0f req/s  non-2xx %s\n' "$round" "$name" "$rps" "${failed:-0}"
}

cases=(
    "RS256-plain /jwt rs256-one.txt"
    "RS256-instrumented /jwt-instrumented rs256-one.txt"
    "ES256-plain /jwt es256-one.txt"
    "ES256-instrumented /jwt-instrumented es256-one.txt"
)
echo "warm-up: each case for 3 s"
for entry in "${cases[@]}"; do
    read -r name path file <<<"$entry"
    run warm "$name" "$path" "$file" 3
done
for round in $(seq 1 "$rounds"); do
    order=("${cases[@]}")
    if [ $((round % 2)) = 0 ]; then order=("${cases[1]}" "${cases[0]}" "${cases[3]}" "${cases[2]}"); fi
    for entry in "${order[@]}"; do
        read -r name path file <<<"$entry"
        run "$round" "$name" "$path" "$file" "$seconds"
    done
done

python3 - "$work/results" "$seconds" "$connections" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    round, name, rps, failed = line.split()
    runs.setdefault(name, {})[round] = (float(rps), int(failed))
print(f"\n{len(runs['RS256-plain'])} rounds of {sys.argv[2]} s, wrk -t1 -c{sys.argv[3]}, server on core 0, wrk on core 1:\n")
print("| Tokens | /jwt req/s (median) | /jwt-instrumented req/s (median) | instrumented / plain, paired: median (lowest, highest) | non-2xx |")
print("| --- | ---: | ---: | ---: | ---: |")
for kind in ("RS256", "ES256"):
    plain, instrumented = runs[f"{kind}-plain"], runs[f"{kind}-instrumented"]
    ratios = sorted(instrumented[r][0] / plain[r][0] for r in plain)
    failed = sum(v[1] for v in plain.values()) + sum(v[1] for v in instrumented.values())
    print(f"| {kind} repeated | {statistics.median(v[0] for v in plain.values()):,.0f} | {statistics.median(v[0] for v in instrumented.values()):,.0f} "
          f"| {statistics.median(ratios):.3f} ({ratios[0]:.3f}, {ratios[-1]:.3f}) | {failed} |")
    print(f"  goal (at most 3% lost): {'met' if statistics.median(ratios) >= 0.97 else 'missed'}", file=sys.stderr)
PY
