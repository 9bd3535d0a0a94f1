#!/usr/bin/env python3
"""Paired benchmarks of the hot paths: a tool asking oauthflow for a valid token, against git's own helper.

Usage: python3 Benchmarks/hotpaths.py RELEASE_DIR FLOOR_BARE FLOOR_FOUNDATION WORK_DIR [RUNS]

Run through Benchmarks/hotpaths.sh, which builds the release binaries (static Swift runtime, as the README
installs them) and the two floors. Every row is measured against `git credential-store get` in the same
loop, A B A B ...: each pair gives a ratio B/A, and the row reports the median of those ratios with their
minimum and maximum (the spread), for the CPU time each process took (user + system, from wait4, its waited-for
children included) and for the wall time. A pair sees the same machine, so a busy moment moves both sides;
unpaired medians minutes apart do not have that property. The CPU ratio is the goal's (at most 2x); the wall
ratio also counts the time the kernel takes to start and reap each process on an idle core.

Rows:
- the launcher (installed as `oauthflow`, the full command beside it as `oauthflow-full`): `credential
  git get` (answered from the memo the first, full, request left), `store`, `erase` (the session put back
  before each run, outside the timing), and `token print`;
- the full command alone, for the same `get` and `token print` (what they cost before the launcher);
- `git credential fill` with oauthflow as the helper, against git with credential-store as the helper;
- trivial Swift programs linked statically like the CLI, without and with Foundation: the floors.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import describe, load

RELEASE, FLOOR_BARE, FLOOR_FOUNDATION, WORK = (Path(arg) for arg in sys.argv[1:5])
RUNS = int(sys.argv[5]) if len(sys.argv) > 5 else 40
GIT = shutil.which("git") or "/usr/bin/git"


def run_once(argv, stdin_path, env):
    """(wall seconds, CPU seconds) of one run, spawned directly (no shell), stdin from a file, stdout to /dev/null."""
    source = os.open(stdin_path or os.devnull, os.O_RDONLY)
    sink = os.open(os.devnull, os.O_WRONLY)
    try:
        started = time.perf_counter()
        pid = os.posix_spawn(str(argv[0]), [str(a) for a in argv], env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, source, 0), (os.POSIX_SPAWN_DUP2, sink, 1), (os.POSIX_SPAWN_DUP2, sink, 2)])
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - started
    finally:
        os.close(source)
        os.close(sink)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(str(a) for a in argv)}")
    return elapsed, usage.ru_utime + usage.ru_stime


class Pairs:
    """The A B pairs of one row: each side's median, and the median, minimum and maximum of the ratios B/A."""

    def __init__(self, a, b):
        ratios = [y / x for x, y in zip(a, b) if x > 0]
        self.a, self.b = statistics.median(a), statistics.median(b)
        self.ratio, self.low, self.high = statistics.median(ratios), min(ratios), max(ratios)


def paired(baseline, candidate, env, prepare=None, runs=RUNS):
    """(CPU Pairs, wall Pairs) over `runs` A B pairs."""
    a_runs, b_runs = [], []
    for _ in range(runs):
        a_runs.append(run_once(*baseline, env))
        if prepare:
            prepare()
        b_runs.append(run_once(*candidate, env))
    return Pairs([a[1] for a in a_runs], [b[1] for b in b_runs]), Pairs([a[0] for a in a_runs], [b[0] for b in b_runs])


def main():
    describe("release, --static-swift-stdlib, installed as the README says (launcher as oauthflow, the full command "
             "as oauthflow-full)")
    WORK.mkdir(parents=True, exist_ok=True)
    home = WORK / "home"
    shutil.rmtree(home, ignore_errors=True)
    state = home / ".local" / "state" / "oauthflow"
    state.mkdir(parents=True)
    os.chmod(state, 0o700)
    config = home / ".config" / "oauthflow"
    config.mkdir(parents=True)
    (config / "clients.yaml").write_text(
        "github:\n  client_id: bench\ncredential_helpers:\n  git:\n    - url: https://git.example.com\n      provider: github\n")
    session = {
        "formatVersion": 1, "key": {"providerID": "github", "account": "default"}, "variables": {}, "clientID": "bench",
        "redirectURI": "http://127.0.0.1:8765/callback", "updatedAt": "2026-01-01T00:00:00Z",
        "tokens": {"accessToken": "gho_bench-access-token", "tokenType": "bearer", "expiresAt": "2099-01-01T00:00:00Z",
                   "scopes": ["repo"], "issuedAt": "2026-01-01T00:00:00Z", "additionalFields": {}},
    }
    session_text = json.dumps(session, indent=2, sort_keys=True)
    session_file = state / "github--default.json"

    def put_session_back():
        session_file.write_text(session_text)
        os.chmod(session_file, 0o600)

    put_session_back()
    # The installed layout.
    bin_dir = WORK / "bin"
    shutil.rmtree(bin_dir, ignore_errors=True)
    bin_dir.mkdir()
    shutil.copy(RELEASE / "oauthflow-launcher", bin_dir / "oauthflow")
    shutil.copy(RELEASE / "oauthflow", bin_dir / "oauthflow-full")
    shutil.copytree(RELEASE / "OAuthFlow_OAuthFlow.resources", bin_dir / "OAuthFlow_OAuthFlow.resources")
    launcher, full = bin_dir / "oauthflow", bin_dir / "oauthflow-full"
    env = {"HOME": str(home), "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "LANG": "C.UTF-8"}
    request = WORK / "request"
    request.write_text("protocol=https\nhost=git.example.com\n\n")
    store_request = WORK / "store-request"
    store_request.write_text("protocol=https\nhost=git.example.com\nusername=oauth2\npassword=gho_bench-access-token\n\n")
    credentials = WORK / "git-credentials"
    credentials.write_text("https://oauth2:gho_bench-access-token@git.example.com\n")
    os.chmod(credentials, 0o600)
    # The first request goes to the full command, which answers and leaves the memo.
    first = subprocess.run([launcher, "credential", "git", "get"], stdin=request.open(), env=env, capture_output=True, text=True)
    if first.returncode != 0 or "password=gho_bench-access-token" not in first.stdout:
        sys.exit(f"credential git get failed: {first.stderr}")
    if not (state / "git-credential.memo").exists():
        sys.exit("the full command left no memo")

    git_store = ([GIT, "credential-store", "--file", credentials, "get"], request)
    rows = [
        ("oauthflow credential git get", paired(git_store, ([launcher, "credential", "git", "get"], request), env), 2.0),
        ("oauthflow credential git store", paired(git_store, ([launcher, "credential", "git", "store"], store_request), env), 2.0),
        ("oauthflow credential git erase", paired(git_store, ([launcher, "credential", "git", "erase"], request), env, put_session_back), 2.0),
    ]
    put_session_back()
    rows += [
        ("oauthflow token print", paired(git_store, ([launcher, "token", "print", "github"], None), env), 2.0),
        ("oauthflow-full credential git get", paired(git_store, ([full, "credential", "git", "get"], request), env), None),
        ("oauthflow-full token print", paired(git_store, ([full, "token", "print", "github"], None), env), None),
        ("floor: static Swift, no Foundation", paired(git_store, ([FLOOR_BARE], None), env), None),
        ("floor: static Swift with Foundation", paired(git_store, ([FLOOR_FOUNDATION], None), env), None),
    ]
    fill = [GIT, "-c", "credential.helper=", "-c", "credential.helper=!oauthflow credential git", "credential", "fill"]
    fill_store = [GIT, "-c", "credential.helper=", "-c", f"credential.helper=store --file {credentials}", "credential", "fill"]
    put_session_back()
    rows.append(("git credential fill via oauthflow", paired((fill_store, request), (fill, request), env, runs=max(10, RUNS // 2)),
                 None))

    print(f"A = git credential-store get (or git credential fill with it, last row); {RUNS} A B pairs per row; "
          f"CPU = user + system time; times are medians, ratios the median of the pairs' ratios (min-max)")
    print(f"{'B':38} {'A CPU':>8} {'B CPU':>8} {'CPU B/A':>8} {'min-max':>11} {'A wall':>8} {'B wall':>8} {'wall B/A':>8} {'min-max':>11}  target (CPU)")
    for name, (cpu, wall), target in rows:
        verdict = "" if target is None else f"<= {target:.0f}x: " + ("met" if cpu.ratio <= target else "NOT met")
        print(f"{name:38} {cpu.a * 1000:6.2f}ms {cpu.b * 1000:6.2f}ms {cpu.ratio:7.2f}x {cpu.low:5.2f}-{cpu.high:<5.2f} "
              f"{wall.a * 1000:6.2f}ms {wall.b * 1000:6.2f}ms {wall.ratio:7.2f}x {wall.low:5.2f}-{wall.high:<5.2f}  {verdict}")
    print(f"load:    {load()} at the end")


if __name__ == "__main__":
    main()
