"""What a benchmark ran on, printed before its figures: the date, the machine, the build and the load.

Imported by compare.py and hotpaths.py (Docs/benchmarks.md asks every figure to state the machine, the build,
the command and the spread; the scripts print the first three, the rows the spread).
"""
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _first(path, prefix):
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def _output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def load():
    """The load averages over 1, 5 and 15 minutes."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def describe(build):
    """Prints the date (UTC), the machine, the commit and the command line; `build` says how the binaries were built."""
    memory = _first("/proc/meminfo", "MemTotal")
    memory = f"{int(memory.split()[0]) / 1024 / 1024:.0f} GiB" if memory != "?" else "?"
    commit = _output(["git", "rev-parse", "--short", "HEAD"])
    dirty = " (with uncommitted changes)" if _output(["git", "status", "--porcelain", "--untracked-files=no"]) else ""
    swift = _output(["swift", "--version"]).splitlines()
    print(f"date:    {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"machine: {os.cpu_count()} cores ({_first('/proc/cpuinfo', 'model name')}), {memory}, "
          f"{platform.system()} {platform.release()}")
    print(f"build:   commit {commit}{dirty}; {swift[0] if swift else 'swift ?'}; {build}")
    # The shell scripts pass the line they were run with; the Python scripts' own arguments are build paths.
    print(f"command: {os.environ.get('BENCHMARK_COMMAND') or ' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}")
    print(f"load:    {load()} at the start")
