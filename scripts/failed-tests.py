"""Prints a `swift test --filter` pattern naming the tests a `swift test` log says failed.

Swift Testing writes `✘ Test name(…) failed …` or `✘ Test name(…) recorded an issue …` for each
failing test; XCTest writes `Test Case 'Suite.name' failed`. Prints nothing when the log names none
(a crash, a build error), so the caller does not run anything again.
"""

import re
import sys

names = []
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        # Swift Testing colours its symbols on a terminal and under CI: the escape sequences come out first.
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        match = re.search(r"✘ Test (?:case passing .*? to )?([A-Za-z_][A-Za-z0-9_]*)\(", line)
        if not match:
            match = re.search(r"Test Case '[^']*?\.([A-Za-z_][A-Za-z0-9_]*)' failed", line)
        if match and match.group(1) not in names:
            names.append(match.group(1))
print("|".join(re.escape(name) + r"\(" for name in names))
