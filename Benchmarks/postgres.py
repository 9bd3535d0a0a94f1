#!/usr/bin/env python3
"""Drives PostgresWorker processes for Benchmarks/postgres.sh and prints the figures.

Usage: postgres.py WORKER AS_PORT   (OAUTHFLOW_TEST_PG_*, OAUTHFLOW_AS_STATE and the agent set)

1. Signs alice in once and stores the session (table bench_sessions).
2. Reads: one process loads the valid session as fast as it can for 5 s, at 1, 4 and 16
   concurrent readers; then 2 processes of 16 each.
3. Fan-in: 7 rounds of "expire the session, then 4 processes x 250 callers ask for a valid
   token at once"; per round, the time until every caller of every process has its token,
   the token requests the processes sent, and the refreshes DOT's journal saw.
"""
import json
import os
import statistics
import subprocess
import sys

worker, as_port = sys.argv[1], sys.argv[2]
env = dict(os.environ, OAUTHFLOW_TEST_PG_TABLE="bench_sessions")
journal = os.path.join(os.environ["OAUTHFLOW_AS_STATE"], "token-requests.log")
providers = "Tests/OAuthFlowTests/Fixtures/providers"
account = "bench"
login = [providers, as_port, "oauthflow-public"]


def run(*arguments):
    result = subprocess.run([worker, *arguments], env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit(f"PostgresWorker {' '.join(arguments)} failed: {result.stderr}")
    return result.stdout.strip().splitlines()


def journal_lines():
    try:
        with open(journal, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except FileNotFoundError:
        return []


def main():
    run("sign-in", account, *login)

    print("reads of a valid stored session (load: one round trip, AES-GCM open, JSON decode)")
    for concurrency in (1, 4, 16):
        report = json.loads(run("bench-read", account, "5", str(concurrency))[-1])
        print(f"  1 process x {concurrency:>2} readers: {report['reads'] / report['ms'] * 1000:8.0f} reads/s")
    processes = [subprocess.Popen([worker, "bench-read", account, "5", "16"], env=env, stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
    total = 0.0
    for process in processes:
        out, _ = process.communicate(timeout=120)
        report = json.loads(out.strip().splitlines()[-1])
        total += report["reads"] / report["ms"] * 1000
    print(f"  2 processes x 16 readers: {total:8.0f} reads/s in all")

    print("refresh fan-in: 4 processes x 250 callers on one expired session")
    times, sent, seen = [], [], []
    for round_number in range(7):
        run("expire", account)
        before = len(journal_lines())
        workers = [subprocess.Popen([worker, "callers", account, *login, "250"], env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True) for _ in range(4)]
        for process in workers:
            if process.stdout.readline().strip() != "ready":
                sys.exit("a worker did not get ready")
        for process in workers:
            process.stdin.write("go\n")
            process.stdin.flush()
        reports = [json.loads(process.stdout.readline()) for process in workers]
        for process in workers:
            process.wait(timeout=60)
        errors = [error for report in reports for error in report["errors"]]
        tokens = {token for report in reports for token in report["tokens"]}
        if errors or len(tokens) != 1:
            sys.exit(f"round {round_number}: {len(tokens)} tokens, errors {errors[:3]}")
        refreshes = [line for line in journal_lines()[before:] if line.startswith("refresh_token ") and line.split()[2] == "200"]
        slowest = max(report["ms"] for report in reports)
        times.append(slowest)
        sent.append(sum(report["requests"] for report in reports))
        seen.append(len(refreshes))
        print(f"  round {round_number + 1}: all 1,000 callers served in {slowest:6.1f} ms; "
              f"{sent[-1]} token request sent, {seen[-1]} refresh seen at DOT")
    print(f"  median {statistics.median(times):.1f} ms, min {min(times):.1f}, max {max(times):.1f}; "
          f"token requests per round: {sorted(set(sent))}, refreshes at DOT per round: {sorted(set(seen))}")


main()
