#!/usr/bin/env python3
"""For Benchmarks/refresh-window.sh: refreshes a stored session RUNS times under strace and prints
how long each refresh answer stayed unrecorded (read() of the answer to pwrite() of its record).

Usage: refresh_window.py OAUTHFLOW SESSION_FILE RUNS [oauthflow flags...]

With SERVER_PID set to the token endpoint's process, that process is traced too (its write and
sendto calls), and the window is also given from the provider's side: from the write that sent
the answer's last bytes to the pwrite that recorded it, both stamped by the same clock.
"""
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

binary, session_file, runs, flags = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
stamp = re.compile(r"^(\d+)\s+(\d+):(\d+):(\d+\.\d+) (\w+)\((\d+), \"(.*)")


def seconds(match):
    return int(match[2]) * 3600 + int(match[3]) * 60 + float(match[4])


def expire():
    with open(session_file, encoding="utf-8") as handle:
        session = json.load(handle)
    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    session["tokens"]["expiresAt"] = past.strftime("%Y-%m-%dT%H:%M:%SZ")
    with open(session_file, "w", encoding="utf-8") as handle:
        json.dump(session, handle)
    os.chmod(session_file, 0o600)


server_pid = os.environ.get("SERVER_PID")
windows = []
provider_side = []
for _ in range(runs):
    expire()
    server_trace = tempfile.NamedTemporaryFile("r", suffix=".server.trace")
    tracer = None
    if server_pid:
        tracer = subprocess.Popen(["strace", "-f", "-tt", "-yy", "-s", "0", "-e", "trace=write,sendto,sendmsg", "-o", server_trace.name,
                                   "-p", server_pid], stderr=subprocess.DEVNULL)
        import time
        time.sleep(0.3)
    with tempfile.NamedTemporaryFile("r", suffix=".trace") as trace:
        result = subprocess.run(["strace", "-f", "--seccomp-bpf", "-tt", "-s", "32", "-e", "trace=read,pwrite64", "-o", trace.name,
                                 binary, "token", "refresh", "django", *flags], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"token refresh failed: {result.stderr}")
        answer = record = None
        for line in trace.read().splitlines():
            match = stamp.match(line)
            if not match:
                continue
            # The answer is the last 200 read before the record (discovery and others come earlier).
            if match[5] == "read" and match[7].startswith("HTTP/1.1 200"):
                answer = seconds(match)
            elif match[5] == "pwrite64" and re.match(r"\d{10}\\n", match[7]) and answer is not None:
                record = seconds(match)
                break
        if answer is None or record is None:
            sys.exit("the trace shows no answer, or no record of it")
        windows.append((record - answer) * 1e6)
    if tracer:
        tracer.terminate()
        tracer.wait()
        # The server's last write before the record: the end of the answer leaving the provider.
        sent = None
        for line in server_trace.read().splitlines():
            match = re.match(r"^(\d+)\s+(\d+):(\d+):(\d+\.\d+) (write|sendto|sendmsg)\(", line)
            # Only writes to a TCP socket: the server's journal and log writes are not the answer.
            if match and "TCP:" in line and seconds(match) <= record:
                sent = seconds(match)
        if sent is not None:
            provider_side.append((record - sent) * 1e6)
    server_trace.close()

windows.sort()
print(f"refresh answer unrecorded, {runs} runs: median {statistics.median(windows):.0f} µs, "
      f"90th percentile {windows[int(0.9 * (len(windows) - 1))]:.0f} µs, max {windows[-1]:.0f} µs")
if provider_side:
    provider_side.sort()
    print(f"from the provider's last write, {len(provider_side)} runs: median {statistics.median(provider_side):.0f} µs, "
          f"90th percentile {provider_side[int(0.9 * (len(provider_side) - 1))]:.0f} µs, max {provider_side[-1]:.0f} µs")
