"""The debug build's compiler invocations, read from .build/debug.yaml, and each as a type-check.

Shared by scripts/apple-typecheck.sh (the Apple-only lines against the shims) and scripts/cli-public.py (the CLI
against the public API alone), which re-run the build's own command lines with other flags.
"""
import json
import os
import re

PLAN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "debug.yaml")

# Driver flags that make outputs or choose how (CI builds whole modules), and those followed by a value: a type-check
# makes none, one file at a time.
OUTPUT_FLAGS = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics",
                "-parseable-output", "-emit-objc-header", "-whole-module-optimization", "-wmo",
                "-no-emit-module-separately-wmo"}
OUTPUT_VALUES = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path", "-o", "-num-threads"}


def invocations():
    """Each Swift module's compiler command line in the debug build, by module name; None without a build plan."""
    if not os.path.exists(PLAN):
        return None
    plan = open(PLAN, encoding="utf-8").read()
    found = {}
    for match in re.finditer(r'\n  "C\.([A-Za-z0-9_]+)-[^"]*-debug\.module":\n(.*?)(?=\n  "|\Z)', plan, re.S):
        args = re.search(r"\n    args: (\[.*?\])\n", match.group(2) + "\n")
        if args:
            found[match.group(1)] = json.loads(args.group(1))
    return found


def checking(args):
    """A module's invocation as a type-check: (the flags, the source files), the compiler itself left out."""
    flags, sources, skip = [], [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in OUTPUT_VALUES:
            skip = True
        elif arg in OUTPUT_FLAGS or re.fullmatch(r"-j\d+", arg):
            pass
        elif arg.startswith("@"):
            # A dependency the last build did not build (another platform's, say) has no list: nothing to check.
            if os.path.exists(arg[1:]):
                sources += open(arg[1:], encoding="utf-8").read().split()
        else:
            flags.append(arg)
    return flags, sources
