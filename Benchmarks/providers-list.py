#!/usr/bin/env python3
"""`oauthflow providers list` against a trivial Swift + Foundation program, with catalogs of 100 and 1,000 descriptors.

Usage: python3 Benchmarks/providers-list.py OAUTHFLOW FLOOR WORK_DIR [PAIRS]

Run through Benchmarks/providers-list.sh, which builds the static release binary and the floor. Each row runs its
command alternately with the floor, run for run (A B A B), PAIRS times (default 15); a pair gives a ratio of wall
times and one of CPU times (user + system, from wait4), and the row prints the medians with their minimum and
maximum. BASELINE=path runs another `oauthflow` binary (the build before a change) in the same rounds, after or
before this one in alternate rounds, and prints its figures and this build's time over its.

The catalogs are Benchmarks/corpus/generate.py's varied descriptors (seed 47), 100 and 1,000 of them, read two
ways: as the bundled catalog (an installed copy of the binary whose `OAuthFlow_OAuthFlow.resources/BundledProviders`
holds them, with the index `providers list` reads, made here from `providers list --json` of the same files) and
as a `--providers-dir` directory beside the 103 bundled descriptors (each file parsed). Every listing's output is
checked to be the same with the binaries and ways that should agree.
"""
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import describe, load

OAUTHFLOW, FLOOR, WORK = (Path(arg) for arg in sys.argv[1:4])
PAIRS = int(sys.argv[4]) if len(sys.argv) > 4 else 15
BASELINE = Path(os.environ["BASELINE"]) if os.environ.get("BASELINE") else None
ROOT = Path(__file__).resolve().parent.parent
RESOURCES = "OAuthFlow_OAuthFlow.resources"


def run(argv, env):
    """Wall seconds and CPU seconds (user + system) of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(map(str, argv))} failed")
    return wall, usage.ru_utime + usage.ru_stime


def catalog(count):
    """COUNT varied descriptors (seed 47), written once."""
    directory = WORK / f"catalog-{count}"
    if not directory.exists():
        subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "corpus" / "generate.py"), str(directory), str(count)],
                       check=True, stderr=subprocess.DEVNULL)
    return directory


def install(binary, name, descriptors, env):
    """A copy of `binary` whose bundled providers are the files of `descriptors` (the built ones when None), with the
    index `providers list` reads made from the listing of those files."""
    target = WORK / name
    if target.exists():
        shutil.rmtree(target)
    bundled = target / RESOURCES / "BundledProviders"
    shutil.copytree(binary.parent / RESOURCES, target / RESOURCES)
    shutil.copy2(binary, target / "oauthflow")
    if descriptors is None:
        return target / "oauthflow"
    shutil.rmtree(bundled)
    shutil.copytree(descriptors, bundled)
    listing = subprocess.run([OAUTHFLOW, "providers", "list", "--json", "--providers-dir", str(descriptors)],
                             env=env, capture_output=True, text=True, check=True)
    lines = []
    for row in json.loads(listing.stdout):
        if row["source"] != str(descriptors):
            continue
        file = bundled / f"{row['id']}.yaml"
        entry = {"file": file.name, "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
                 "catalog": row["catalog"], "variables": row["variables"]}
        lines.append(json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":")))
    (bundled / "index.json").write_text('{\n"format": 1,\n"providers": [\n' + ",\n".join(lines) + "\n]\n}\n")
    return target / "oauthflow"


def launcher_layout(installed, name):
    """The README's layout beside the installed copy `installed`: the launcher as `oauthflow`, the full command as
    `oauthflow-full` (its bundled descriptors beside it), so that `providers list` is answered from the launcher's memo
    once the full command has written it."""
    directory = installed.parent
    target = WORK / f"{name}-launcher"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(directory, target)
    shutil.move(target / "oauthflow", target / "oauthflow-full")
    shutil.copy2(OAUTHFLOW.parent / "oauthflow-launcher", target / "oauthflow")
    return target / "oauthflow"


def output(argv, env):
    return subprocess.run(argv, env=env, capture_output=True, check=True).stdout


def main():
    describe("release, --static-swift-stdlib (the full command, as the README installs it); the floor as providers-list.sh builds it")
    home = WORK / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "state").mkdir(parents=True, exist_ok=True)
    # No user directory of providers: the bundled ones and the directories given.
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"), XDG_STATE_HOME=str(home / "state"))
    hundred, thousand = catalog(100), catalog(1000)
    binaries = {"this build": OAUTHFLOW} | ({"baseline": BASELINE} if BASELINE else {})
    rows = []
    for label, binary in binaries.items():
        key = "base" if binary is BASELINE else "this"
        installed = {count: install(binary, f"install-{key}-{count}", directory, env) for count, directory in ((100, hundred), (1000, thousand))}
        built = install(binary, f"install-{key}-built", None, env)
        launched = {count: launcher_layout(path, f"install-{key}-{count}") for count, path in installed.items()}
        launched[103] = launcher_layout(built, f"install-{key}-built")
        rows.append((label, [
            ("providers show google", [binary, "providers", "show", "google"]),
            ("providers list (103 bundled)", [binary, "providers", "list"]),
            ("providers list --json (103 bundled)", [binary, "providers", "list", "--json"]),
            ("providers list, 100 bundled", [installed[100], "providers", "list"]),
            ("providers list, 1,000 bundled", [installed[1000], "providers", "list"]),
            ("providers list --providers-dir 100", [binary, "providers", "list", "--providers-dir", str(hundred)]),
            ("providers list --providers-dir 1,000", [binary, "providers", "list", "--providers-dir", str(thousand)]),
            ("launcher: providers list (103 bundled)", [launched[103], "providers", "list"]),
            ("launcher: providers list --json (103)", [launched[103], "providers", "list", "--json"]),
            ("launcher: providers list, 100 bundled", [launched[100], "providers", "list"]),
            ("launcher: providers list, 1,000 bundled", [launched[1000], "providers", "list"]),
        ]))
    # The listings agree: this build with the baseline, and a bundled catalog with the same files given as a directory.
    this = dict(rows[0][1])
    for name, argv in this.items():
        if BASELINE:
            same = output(argv, env) == output(dict(rows[1][1])[name], env)
            print(f"same output as the baseline: {'yes' if same else 'NO'}: {name}")
    # The copies were made just now: the full command leaves no memo for files changed in the last two seconds.
    time.sleep(2.5)
    for name in [name for name in this if name.startswith("launcher: ")]:
        # Twice: the first run is the full command's, which leaves the memo the second is printed from.
        first, second = output(this[name], env), output(this[name], env)
        full = name.replace("launcher: ", "").replace("--json (103)", "--json (103 bundled)")
        direct = output(this[full], env) if full in this else first
        print(f"the launcher prints what the full command does: {'yes' if first == second == direct else 'NO'}: {name}")
    for count, directory in ((100, hundred), (1000, thousand)):
        bundled = output(this[f"providers list, {count:,} bundled"], env)
        given = output([OAUTHFLOW, "providers", "list", "--providers-dir", str(directory)], env)
        # Columns are as wide as their longest cell over all rows, so the lines are compared with their runs of spaces as one.
        def cells(text):
            return [b" ".join(line.split()) for line in text.splitlines()]
        ids = {line.split(b" ")[0] for line in cells(bundled)}
        kept = [line for line in cells(given) if line.split(b" ")[0] in ids]
        print(f"bundled {count:,} lists as the same files given with --providers-dir: {'yes' if cells(bundled) == kept else 'NO'}")

    print(f"{'what':40} {'wall':>8} {'x floor (min-max)':>22} {'CPU':>8} {'x floor (min-max)':>22}")
    for name in this:
        figures = {label: ([], [], [], []) for label, _ in rows}
        for round_number in range(PAIRS):
            order = rows if round_number % 2 == 0 else list(reversed(rows))
            floor_wall, floor_cpu = run([FLOOR], env)
            for label, commands in order:
                wall, cpu = run(dict(commands)[name], env)
                walls, cpus, wall_ratios, cpu_ratios = figures[label]
                walls.append(wall)
                cpus.append(cpu)
                wall_ratios.append(wall / floor_wall)
                cpu_ratios.append(cpu / floor_cpu)
        for label, (walls, cpus, wall_ratios, cpu_ratios) in figures.items():
            print(f"{name + ('' if label == 'this build' else ' [baseline]'):40} {statistics.median(walls) * 1000:6.1f}ms "
                  f"{statistics.median(wall_ratios):7.2f}x ({min(wall_ratios):.2f}-{max(wall_ratios):.2f}) "
                  f"{statistics.median(cpus) * 1000:6.1f}ms {statistics.median(cpu_ratios):7.2f}x ({min(cpu_ratios):.2f}-{max(cpu_ratios):.2f})")
        if BASELINE:
            this_walls, base_walls = figures["this build"][0], figures["baseline"][0]
            relative = [a / b for a, b in zip(this_walls, base_walls)]
            print(f"{'':40} this build's wall time over the baseline's: {statistics.median(relative):.3f} "
                  f"({min(relative):.3f}-{max(relative):.3f})")
    print(f"load:    {load()} at the end")


if __name__ == "__main__":
    main()
