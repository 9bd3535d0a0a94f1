#!/usr/bin/env python3
"""The CLI is a plain host of the library: what it uses beyond the public API is listed, and may only shrink.

Re-runs the debug build's own compiler invocation of the `oauthflow` executable (read from .build/debug.yaml: its
sources, module search paths, defines and language mode) as a type-check under another `-package-name`, so that no
`package` declaration of OAuthFlow or of any other product is visible to it. Each use of one is a compiler error.
Those errors, by file and message (positions left out), must be those scripts/cli-package-uses.txt lists: a new one fails
with its position (use the public API, or make what a host needs public); one gone fails until the listing is
written again with `--write`, so that each change to it is committed and seen. Needs a debug build (the test command runs it right
after the build); takes a few seconds.

    python3 scripts/cli-public.py [--write]
"""
import os
import re
import subprocess
import sys

from build_plan import checking, invocations as build_invocations

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "oauthflow"
LISTING = os.path.join(ROOT, "scripts", "cli-package-uses.txt")
HEADER = ("// What the oauthflow CLI uses beyond the public API (scripts/cli-public.py --write): it may only shrink.\n"
          "// Each line: a file of Sources/oauthflow and the compiler's error there when the package API is hidden.\n")


def fail(message):
    print(f"cli-public: error: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    modules = build_invocations()
    if modules is None:
        fail(".build/debug.yaml is missing: run `swift build --build-tests` first")
    if MODULE not in modules:
        fail(f"the debug build has no {MODULE} module: run `swift build --build-tests` first")
    args = modules[MODULE]
    flags, sources = checking(args)
    if "-package-name" not in flags:
        fail("the build's invocation names no -package-name: this check cannot hide the package API")
    index = flags.index("-package-name")
    flags[index + 1] = "oauthflow_cli_as_a_host"
    result = subprocess.run([args[0], "-typecheck", "-continue-building-after-errors", "-no-color-diagnostics"] + flags + sources,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=ROOT)
    errors = re.findall(r"^(\S+?\.swift):(\d+):\d+: error: (.*)$", result.stdout, re.M)
    if result.returncode != 0 and not errors:
        print(result.stdout.rstrip())
        fail("the type-check failed without an error this check can read (the compiler's output is above)")
    # Every error, by file and message: a hidden declaration named ('X' is inaccessible, cannot find 'X'), and what it
    # causes where a public overload of the same name is then chosen (an extra argument). Removing one use may bring
    # to light others it hid: the listing is then written again, and its diff shows them.
    errors = [(path, line, message) for path, line, message in errors]
    uses = sorted({f"{os.path.relpath(path, ROOT)}: {message}" for path, _, message in errors})
    if "--write" in sys.argv[1:]:
        with open(LISTING, "w", encoding="utf-8") as handle:
            handle.write(HEADER + "".join(use + "\n" for use in uses))
        print(f"cli-public: wrote {os.path.relpath(LISTING, ROOT)} ({len(uses)} uses)")
        return
    listed = set()
    if os.path.exists(LISTING):
        listed = {line.rstrip("\n") for line in open(LISTING, encoding="utf-8") if line.strip() and not line.startswith("//")}
    new = [(path, line, message) for path, line, message in errors if f"{os.path.relpath(path, ROOT)}: {message}" not in listed]
    gone = sorted(listed - set(uses))
    for path, line, message in new:
        print(f"{os.path.relpath(path, ROOT)}:{line}: the CLI uses what a host cannot: {message}")
    for use in gone:
        print(f"no longer used: {use}")
    if new:
        fail(f"{len(new)} new uses of the package API by the CLI: use the public API, as a host would")
    if gone:
        fail(f"{len(gone)} listed uses are gone: run `python3 scripts/cli-public.py --write` and commit the shorter listing")
    print(f"cli-public: the CLI ({len(sources)} files) uses {len(uses)} listed things beyond the public API")

if __name__ == "__main__":
    main()
