#!/usr/bin/env python3
"""The house's size and naming rules over Sources/ (Docs/design.md, Style), checked with no build in well under a second.

    python3 scripts/house.py               # check Sources/; exit 1 on any finding
    python3 scripts/house.py --self-test   # the check on its fixtures (scripts/fixtures/house): every kind found, nothing else
    python3 scripts/house.py --root DIR    # check another tree (an export of an older commit, say)

Each finding is `path:line: message`, for example
`Sources/OAuthFlow/Sessions/TokenManager.swift:120: refreshUnderLock is 106 lines long; at most 80 (split it into named steps)`.

The rules:
- function-length: a function, initializer, deinitializer, subscript or computed property (a `var` whose body is a
  block of code or accessors) is at most 80 lines long, from its declaration's first line to its closing brace. A
  function nested in another counts on its own, and in the one around it too.
- file-length: a Swift file under Sources/ is at most 600 lines long.
- file-name: a file holds the type it is named after. `X.swift` declares the type `X` at its top level and no other
  top-level type (struct, class, enum, protocol, actor, typealias), though it may extend others (`extension
  ErrorCode where Domain == X`); `X+Y.swift` extends `X` and declares no top-level type. A `private` or
  `fileprivate` top-level type may stay beside the type that uses it: the compiler keeps it to that file, so nobody
  looks for it elsewhere. A file that declares no type and extends none (free functions, `@_exported import`s) is
  named after what it holds and is not checked.
- jose-room: jwt-kit is imported only in Sources/OAuthFlow/JWT/ (JOSE_ROOM), where every signature OAuthFlow makes or
  checks with it is; any other folder signs and verifies through that folder's types (Docs/design.md, Layers).
- json-gate: a server's answer (`response.body`, `answer.body`) is never handed to `JSONDecoder` or
  `JSONSerialization` directly: it is read through ServerJSON (Sources/OAuthFlow/Support/ServerJSON.swift), the gate
  whose strict reader refuses text two readers could read differently (a member given twice, not UTF-8).
- sign-in-run: an authorization-code sign-in is started only by SignInRun (SIGN_IN_RUN) and the engine itself
  (Sources/OAuthFlow/Flow/): a presenter, a host module or the command line calls `SignInRun.start()`, never
  `OAuthClient.startAuthorization()`, so that every sign-in runs in the one order (Docs/design.md, Layers).
- client-door: an `OAuthClient` is made only in the core (Sources/OAuthFlow/, CORE), whose layers below the front door
  are handed the discovery cache they share; every other module (the sign-ins, the web routes, MCP, the command line)
  asks an `OAuth` for its clients (`client(of:configuration:)`), so that every client of a provider shares one
  discovery cache (Docs/flow.md, One sign-in run).

A rule can be waived for one file, with its reason, in EXCEPTIONS below (PENDING holds what other branches of issue 57
are splitting); an entry that no longer matches a finding is itself a finding (stale-exception), so the lists cannot
outlive what they excuse.

Python 3 standard library only; it reads files and runs nothing. It reads Swift with a small scanner: comments and
string literals (with interpolations, raw and multi-line strings) are masked, then braces are matched. It does not read
regex literals: a file whose braces do not pair once masked is reported (unreadable) rather than measured wrong.
"""

import argparse
import bisect
import fnmatch
import os
import re
import sys

FUNCTION_LINES = 80
FILE_LINES = 600
# The one folder under Sources/ that may import jwt-kit, and an import of it in any form (`@preconcurrency import
# JWTKit`, `import struct JWTKit.JWTHeader`).
JOSE_ROOM = "OAuthFlow/JWT/"
# A server's answer decoded around ServerJSON, the one gate (JSON_GATE) that may hand a body to Foundation's readers.
JSON_GATE = "OAuthFlow/Support/ServerJSON.swift"
AROUND_JSON_GATE = re.compile(r"(?:JSONDecoder\(\)\s*\.\s*decode|JSONSerialization\s*\.\s*jsonObject)\s*\([^)]*\b(?:response|answer)\.body\b")
# The one type besides the engine that starts an authorization-code sign-in, and a call that starts one.
SIGN_IN_RUN = "OAuthFlow/SignIn/SignInRun.swift"
ENGINE = "OAuthFlow/Flow/"
STARTS_SIGN_IN = re.compile(r"\.\s*startAuthorization\s*\(")
# The module whose layers make clients, and a client made: `OAuthClient(`, `OAuthClient.init` (called or handed on as
# a function), or `: OAuthClient = .init(`.
CORE = "OAuthFlow/"
MAKES_CLIENT = re.compile(r"\bOAuthClient\s*(?:\(|\.\s*init\b)|:\s*OAuthClient\s*=\s*\.\s*init\s*\(")
JWTKIT_IMPORT = re.compile(r"^[ \t]*(?:@[\w()]+[ \t]+)*import[ \t]+(?:(?:class|struct|enum|protocol|func|var|let|typealias)[ \t]+)?JWTKit\b", re.M)

# A rule waived for a file: path under Sources/ (or a pattern of paths) -> {rule: reason}. Keep each reason a sentence a
# newcomer can check.
EXCEPTIONS = {
    "OAuthFlowLint/Rules/*Rules.swift": {
        "file-name": "the lint rules stay in a file per topic (SecurityRules.swift holds the security rules, each a "
        "type named ...Rule): a rule is a declaration of its id and examples and a short validate, read best beside its "
        "neighbours, and 38 files would repeat that declaration's shape 38 times (Docs/design.md, Style)",
    },
}

# Pending: a file in the middle of being split by another branch of work, excused until that branch lands; the
# integrator removes its entry then, and an entry left behind fails the check as stale. Empty: nothing is pending.
ELSEWHERE = "pending: being split elsewhere"
PENDING: dict[str, dict[str, str]] = {}

TYPE_KEYWORDS = ("struct", "class", "enum", "protocol", "actor", "typealias")
MODIFIERS = {
    "public", "package", "internal", "fileprivate", "private", "open", "final", "indirect", "nonisolated", "static",
    "override", "mutating", "nonmutating", "convenience", "required", "dynamic", "lazy", "weak", "unowned",
    "isolated", "consuming", "borrowing", "distributed", "optional", "prefix", "postfix", "infix", "class",
}


CODE_TOKEN = re.compile(r'//|/\*|#*"')
COMMENT_TOKEN = re.compile(r"/\*|\*/")
INTERPOLATION_TOKEN = re.compile(r'[()]|#*"')
STRING_TOKENS = {}


def string_token(hashes, multi):
    """What ends or interrupts a string's text: its escape, its closing delimiter, or (single-line) a line break."""
    key = (hashes, multi)
    if key not in STRING_TOKENS:
        close = ('"""' if multi else '"') + "#" * hashes
        ends = [re.escape("\\" + "#" * hashes), re.escape(close)] + ([] if multi else ["\n"])
        STRING_TOKENS[key] = re.compile("|".join(ends))
    return STRING_TOKENS[key]


def skip_string(text, index):
    """The index just past the string literal that starts at `index` (its first `#` or quote)."""
    hashes = 0
    while text[index] == "#":
        hashes, index = hashes + 1, index + 1
    multi = text.startswith('"""', index)
    index += 3 if multi else 1
    token = string_token(hashes, multi)
    while True:
        match = token.search(text, index)
        if not match:
            return len(text)
        found = match.group()
        if found == "\n":
            return match.start()
        if found.startswith("\\"):
            index = match.end()
            if text.startswith("(", index):
                index = skip_interpolation(text, index + 1)
            else:
                index += 1
            continue
        return match.end()


def skip_interpolation(text, index):
    """The index just past the `)` that closes the interpolation whose code starts at `index`."""
    depth = 0
    while True:
        match = INTERPOLATION_TOKEN.search(text, index)
        if not match:
            return len(text)
        found = match.group()
        if found == "(":
            depth, index = depth + 1, match.end()
        elif found == ")":
            if depth == 0:
                return match.end()
            depth, index = depth - 1, match.end()
        else:
            index = skip_string(text, match.start())


def mask(text):
    """The text with every comment and string literal (and what its interpolations hold) replaced by spaces, line
    breaks kept, so that braces and keywords are the code's own."""
    parts, kept, index = [], 0, 0
    while True:
        match = CODE_TOKEN.search(text, index)
        if not match:
            break
        start, found = match.start(), match.group()
        if found == "//":
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
        elif found == "/*":
            depth, end = 1, match.end()
            while depth:
                inner = COMMENT_TOKEN.search(text, end)
                if not inner:
                    end = len(text)
                    break
                depth += 1 if inner.group() == "/*" else -1
                end = inner.end()
        else:
            end = skip_string(text, start)
        parts.append(text[kept:start])
        parts.append(re.sub(r"[^\n]", " ", text[start:end]))
        kept = index = end
    parts.append(text[kept:])
    return "".join(parts)


def line_of(starts, offset):
    """The 1-based line of `offset`, given the offsets at which lines start."""
    return bisect.bisect_right(starts, offset)


def matching_braces(code):
    """The offset of each `{` mapped to its `}`; and the offsets of the braces with the depth just after each, for
    `depth_at`."""
    pairs, stack, offsets, depths = {}, [], [], []
    for match in re.finditer(r"[{}]", code):
        index = match.start()
        if code[index] == "{":
            stack.append(index)
        elif stack:
            pairs[stack.pop()] = index
        offsets.append(index)
        depths.append(len(stack))
    return pairs, (offsets, depths)


def depth_at(braces, offset):
    """How many braces are open at `offset`."""
    offsets, depths = braces
    index = bisect.bisect_left(offsets, offset)
    return depths[index - 1] if index else 0


DECLARATION = re.compile(
    r"(?m)^[ \t]*(?:@\w+(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?\s+)*((?:(?:%s)(?:\([^)\n]*\))?\s+)*)"
    r"(func\s+(?P<func>[^\s(<]+)|init\b[?!]?|deinit\b|subscript\b|var\s+(?P<var>\w+)\s*:|(?P<kind>%s)\s+(?P<type>[A-Za-z_]\w*)"
    r"|extension\s+(?P<extended>[A-Za-z_][\w.]*))" % ("|".join(sorted(MODIFIERS)), "|".join(TYPE_KEYWORDS))
)


def body_start(code, index, is_var):
    """The offset of the `{` that opens the body of the declaration whose signature starts at `index`, or None when it
    has none (a protocol requirement, a stored property)."""
    depth = 0
    length = len(code)
    while index < length:
        char = code[index]
        if char in "([<":
            depth += 1
        elif char in ")]>":
            if char == ">" and code[index - 1] == "-":
                pass
            else:
                depth -= 1
        elif depth <= 0:
            if char == "{":
                return index
            if char == "}":
                return None
            if is_var and char == "=":
                return None
            if char == "\n":
                rest = code[index + 1:].lstrip(" \t")
                if not re.match(r"(?:\{|->|where\b|throws\b|rethrows\b|async\b|[&,:])", rest):
                    return None
        index += 1
    return None


def scan(relative, text, limits):
    """The findings in one file: (line, rule, message)."""
    findings = []
    lines = text.split("\n")
    count = len(lines) - 1 if text.endswith("\n") else len(lines)
    if count > limits["file"]:
        findings.append((1, "file-length", "%d lines long; at most %d (split it by type or by topic)" % (count, limits["file"])))
    code = mask(text)
    if code.count("{") != code.count("}"):
        # A string or comment the scanner misread: say so rather than measure the wrong braces.
        return findings + [(1, "unreadable", "its braces do not pair once strings and comments are masked; scripts/house.py "
                            "misreads a literal here (fix its scanner)")]
    starts = [0] + [match.end() for match in re.finditer("\n", code)]
    pairs, braces = matching_braces(code)
    declared, extended, nested = [], [], set()
    extension_depth = []  # the depth of each top-level extension's body: (its opening, its closing)
    for match in DECLARATION.finditer(code):
        offset = match.start(2)
        modifiers = {word.split("(")[0] for word in match.group(1).split()}
        level = depth_at(braces, offset)
        if match.group("kind"):
            if level == 0 and not {"private", "fileprivate"} & modifiers:
                declared.append((match.group("type"), line_of(starts, offset)))
            elif level == 1:
                for (start, end), (outer, _) in zip(extension_depth, extended):
                    if start < offset < end:
                        nested.add(outer + "." + match.group("type"))
            continue
        if match.group("extended"):
            if level == 0:
                extended.append((match.group("extended"), line_of(starts, offset)))
                opening = code.find("{", match.end())
                if opening in pairs:
                    extension_depth.append((opening, pairs[opening]))
            continue
        is_var = match.group("var") is not None
        opening = body_start(code, match.end(2), is_var)
        if opening is None or opening not in pairs:
            continue
        first, last = line_of(starts, offset), line_of(starts, pairs[opening])
        size = last - first + 1
        if size > limits["function"]:
            name = match.group("func") or match.group("var") or match.group(2).split("(")[0].strip()
            findings.append((first, "function-length", "%s is %d lines long; at most %d (split it into named steps)"
                             % (name, size, limits["function"])))
    findings += naming(relative, declared, extended, nested)
    if not relative.replace(os.sep, "/").startswith(JOSE_ROOM):
        for match in JWTKIT_IMPORT.finditer(code):
            findings.append((line_of(starts, match.start()), "jose-room", "imports jwt-kit outside %s: sign and verify through "
                             "that folder's types (JWSPrivateKey, CompactJWS, SigningKeys)" % JOSE_ROOM))
    if relative.replace(os.sep, "/") != JSON_GATE:
        for match in AROUND_JSON_GATE.finditer(code):
            findings.append((line_of(starts, match.start()), "json-gate", "decodes a server's answer around ServerJSON: read it with "
                             "ServerJSON.object, .value or .decode, whose strict reader refuses a member given twice and non-UTF-8"))
    if relative.replace(os.sep, "/") != SIGN_IN_RUN and not relative.replace(os.sep, "/").startswith(ENGINE):
        for match in STARTS_SIGN_IN.finditer(code):
            findings.append((line_of(starts, match.start()), "sign-in-run", "starts a sign-in around SignInRun: make one "
                             "(OAuth.signInRun(to:redirectURI:), or SignInRun(client:)) and call its start() or run(_:account:in:)"))
    if not relative.replace(os.sep, "/").startswith(CORE):
        for match in MAKES_CLIENT.finditer(code):
            findings.append((line_of(starts, match.start()), "client-door", "makes an OAuthClient outside the core: ask the "
                             "front door for it (OAuth.client(of:configuration:), or an OAuth.over(store:environment:) of "
                             "the module's own), so that every client of a provider shares its discovery cache"))
    return findings


def naming(relative, declared, extended, nested):
    """`declared`: the file's top-level types (not private ones), with their lines; `extended`: the types its top-level
    extensions extend; `nested`: the types declared directly inside those extensions, by their full names."""
    stem = os.path.basename(relative)[: -len(".swift")]
    findings, seen = [], set()
    owner = stem.split("+")[0]

    def spellings(name):
        # `OAuthFlowCommand.Credential.Git` may be named Git, CredentialGit or OAuthFlowCommandCredentialGit.
        parts = name.split(".")
        return {"".join(parts[index:]) for index in range(len(parts))}

    def extends_owner():
        # `ProviderDescriptor+X.swift` may extend `ProviderDescriptor.Authorization`; `Login+X.swift`,
        # `OAuthFlowCommand.Login`.
        return any(owner in spellings(name) or owner == name.split(".")[0] for name, _ in extended)

    for name, line in declared:
        if name in seen or ("+" not in stem and name == stem):
            continue
        seen.add(name)
        if "+" in stem:
            message = "declares %s, but %s.swift extends %s and declares no type: move %s to %s.swift"
            findings.append((line, "file-name", message % (name, stem, owner, name, name)))
        else:
            findings.append((line, "file-name", "declares %s in %s.swift: move it to %s.swift" % (name, stem, name)))
    if "+" in stem:
        if not extends_owner():
            line = extended[0][1] if extended else 1
            findings.append((line, "file-name", "%s.swift does not extend %s, which it is named after" % (stem, owner)))
    elif (declared or extended) and not any(name == stem for name, _ in declared) \
            and not any(stem in spellings(name) for name in nested) \
            and not extends_owner():
        line = (declared or extended)[0][1]
        findings.append((line, "file-name", "%s.swift declares no type %s (name it after the type it declares, or "
                         "Type+Topic.swift for an extension)" % (stem, stem)))
    return findings


def swift_files(root):
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(folder for folder in folders if not folder.endswith(".docc") and not folder.startswith("."))
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.relpath(os.path.join(directory, name), root)


def run(root, limits, waivers):
    """(findings, waived): each finding `(path, line, rule, message)` with its path relative to `root`'s parent, and how
    many findings `waivers` excused. A waiver's path may be a pattern (`Rules/*Rules.swift`)."""
    findings, used, waived = [], set(), 0
    for relative in swift_files(root):
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            text = handle.read()
        for line, rule, message in scan(relative, text, limits):
            excusing = [key for key, rules in waivers.items() if rule in rules and fnmatch.fnmatchcase(relative, key)]
            if excusing:
                used.update((key, rule) for key in excusing)
                waived += 1
                continue
            findings.append((os.path.join(os.path.basename(root), relative), line, rule, message))
    for key, rules in sorted(waivers.items()):
        for rule in sorted(rules):
            if (key, rule) not in used:
                findings.append((os.path.join(os.path.basename(root), key), 1, "stale-exception",
                                 "excused from %s in scripts/house.py, but nothing to excuse: remove the entry" % rule))
    return findings, waived


def self_test():
    """The check over its fixtures: each `// expect: RULE` line must be reported with that rule, and nothing else may
    be. The fixtures use small limits (a function of 8 lines, a file of 40) so that they stay short."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "house", "Sources")
    waivers = {
        "Waived*.swift": {"file-name": "the fixture of an exception, by a pattern"},
        os.path.join("Module", "Good.swift"): {"file-length": "the fixture of an exception with nothing to excuse"},
    }
    findings, waived = run(root, {"function": 8, "file": 40}, waivers)
    expected = set()
    for relative in swift_files(root):
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                for rule in re.findall(r"expect:\s*([\w-]+)", line):
                    expected.add((os.path.join("Sources", relative), number, rule))
    reported = {(path, line, rule) for path, line, rule, _ in findings}
    missing, unexpected = sorted(expected - reported), sorted(reported - expected)
    for path, line, rule in missing:
        print("self-test: %s:%d: expected a %s finding, got none" % (path, line, rule), file=sys.stderr)
    for path, line, rule, message in findings:
        if (path, line, rule) in unexpected:
            print("self-test: unexpected finding: %s:%d: %s [%s]" % (path, line, message, rule), file=sys.stderr)
    if missing or unexpected or waived != 2:
        if waived != 2:
            print("self-test: expected 2 findings waived by their exception, got %d" % waived, file=sys.stderr)
        print("house self-test FAILED (%d expected, %d reported)" % (len(expected), len(reported)), file=sys.stderr)
        return 1
    rules = sorted({rule for _, _, rule in expected})
    print("house self-test: %d findings of %d rules (%s) found in the fixtures, 2 waived, nothing else"
          % (len(expected), len(rules), ", ".join(rules)), file=sys.stderr)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="The package to check (its Sources/).")
    parser.add_argument("--self-test", action="store_true", help="Run the check over its fixtures.")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    waivers = {}
    for table in (EXCEPTIONS, PENDING):
        for path, rules in table.items():
            waivers.setdefault(path, {}).update(rules)
    findings, waived = run(os.path.join(arguments.root, "Sources"), {"function": FUNCTION_LINES, "file": FILE_LINES}, waivers)
    for path, line, rule, message in findings:
        print("%s:%d: %s [%s]" % (path, line, message, rule))
    sys.stdout.flush()
    print("house: %d finding(s) (functions at most %d lines, files at most %d, each file named after its type, jwt-kit only in %s, "
          "server answers read through ServerJSON, sign-ins started by SignInRun, clients made in the core%s)"
          % (len(findings), FUNCTION_LINES, FILE_LINES, JOSE_ROOM, "; %d excused by EXCEPTIONS and PENDING in scripts/house.py" % waived if waived else ""),
          file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
