#!/usr/bin/env python3
"""Prints each warning a build log holds about the package's own code (Sources, Tests, Examples), one a line, sorted.

    python3 scripts/own-warnings.py BUILD_LOG

A warning the compiler gives at a line of ours is printed as it is. One it gives inside a macro's expansion (Swift
Testing's `#expect` and `#require`) is named `macro expansion #expect:1:22`, and the place it came from follows in a
note ("expanded code originates here"): it is printed at that place. The dependencies' warnings are theirs.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = re.compile(r"^%s/(?:Sources|Tests|Examples)/[^:\s]+:\d+:\d+: warning: .*$" % re.escape(ROOT))
IN_MACRO = re.compile(r"^macro expansion [^:]+:\d+:\d+: warning: (.*)$")
ORIGIN = re.compile(r"(%s/(?:Sources|Tests|Examples)/[^:\s]+:\d+:\d+): note: expanded code originates here" % re.escape(ROOT))
ANY_ORIGIN = re.compile(r"note: expanded code originates here")


def own_warnings(lines):
    found = set()
    for index, line in enumerate(lines):
        if OURS.match(line):
            found.add(line.rstrip())
            continue
        macro = IN_MACRO.match(line)
        if not macro:
            continue
        # The first origin note after the warning names where the macro was written.
        for later in lines[index + 1:index + 60]:
            if ANY_ORIGIN.search(later):
                origin = ORIGIN.search(later)
                if origin:
                    found.add(f"{origin.group(1)}: warning: {macro.group(1)} (in a macro's expansion)")
                break
    return sorted(found)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        for warning in own_warnings(log.read().splitlines()):
            print(warning)
