#!/usr/bin/env python3
"""The CLI is a plain host of the library: it uses the public API only, as any host would.

Re-runs the debug build's own compiler invocation of the `oauthflow` executable (read from .build/debug.yaml: its
sources, module search paths, defines and language mode) as a type-check under another `-package-name`, so that no
`package` declaration of OAuthFlow or of any other product is visible to it. Each use of one is a compiler error, and
any error fails this check with its position: use the public API, or make public what a host needs too. Needs a debug
build (the test command runs it right after the build); takes a few seconds.

    python3 scripts/cli-public.py
"""
import os
import re
import subprocess
import sys

from build_plan import checking, invocations as build_invocations

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "oauthflow"
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
    # Every error: a hidden declaration named ('X' is inaccessible, cannot find 'X'), and what it causes where a public
    # overload of the same name is then chosen (an extra argument).
    for path, line, message in errors:
        print(f"{os.path.relpath(path, ROOT)}:{line}: the CLI uses what a host cannot: {message}")
    if errors:
        fail(f"{len(errors)} uses of the package API by the CLI: use the public API, as a host would")
    print(f"cli-public: the CLI ({len(sources)} files) uses the public API only")


if __name__ == "__main__":
    main()
