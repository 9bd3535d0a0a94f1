#!/usr/bin/env python3
"""What an Apple build at Package.swift's floor would refuse in Sources/, Examples/ and Tests/, found on Linux with no
build.

    python3 scripts/apple-portability.py               # scan Sources/, Examples/, Tests/; exit 1 on any finding
    python3 scripts/apple-portability.py --self-test   # the gate on its fixtures: every kind found, nothing else
    python3 scripts/apple-portability.py --root DIR    # scan another tree (an export of an older commit, say)

Each finding is `path:line:column: message`, for example
`Sources/X/Y.swift:77:35: String(validating:as:) needs macOS 15.0 / iOS 18.0 / tvOS 18.0 / watchOS 11.0
(floor macOS 13.0 / iOS 16.0 / tvOS 16.0 / watchOS 9.0)`.

How it decides, for each of macOS, iOS, tvOS and watchOS:
- The floor is Package.swift's `platforms:` (SwiftPM's default for a platform it leaves out), for every target a
  Mac's `swift build` / `swift test` builds, test targets and their helpers included (SwiftPM gives a test target no
  floor of its own). A target Package.swift declares only in a branch no Apple build takes (`#if os(Linux)`) is left
  out; a file no target holds (an Xcode example's) is read at the floor too: raise it with `@available`.
- `#if` is evaluated as an Apple build answers it: `os(...)` by the platform; `canImport(...)` true for the SDK's
  modules (Darwin, Foundation, Security, ...), false for Linux-only ones (Glibc, Musl, FoundationNetworking, ...), and
  for a module of a package dependency true only when Package.swift links it to the file's target on that platform;
  `compiler(>=X)` true up to the manifest's tools version; `targetEnvironment(macCatalyst)` false (Mac Catalyst is not
  evaluated). What cannot be known (`arch`, `DEBUG`, `targetEnvironment(simulator)`, a newer compiler) counts as
  possibly true: both branches are read.
- Availability comes from the toolchain's own `.swiftinterface` files (`lib/swift/<os>/*.swiftmodule`, beside the
  `swift` found on PATH), which keep Apple's `@available` for the standard library, _Concurrency, Synchronization,
  _StringProcessing, RegexBuilder, Observation, Distributed and the rest; the dependencies' from their sources in
  .build/checkouts (`swift package resolve`; --checkouts DIR): each public declaration's `@available`, with the
  package's availability macros expanded (`@available(hummingbird 2.0, *)` is macOS 14 / iOS 17 / tvOS 17); the
  project's own from its files (`@available(iOS 17.0, macOS 14.0, *) final class SignInModel`), which shadow the
  others where the file sees them (its module and those it imports). A module's declarations count only in files
  that import it, directly or through an `@_exported import` (Swift, _Concurrency and _StringProcessing always). Checked: types and macros by name, free functions
  and initialisers by name and argument labels against every overload (a call one overload at the floor accepts is
  fine), and static members through their type's name (`Task.sleep(for:)`). A name the project declares itself is
  left to it.
- A use inside `if #available(...)`, after `guard #available(...)`, or in a declaration marked `@available(...)` (its
  signature included; an extension is raised only by its own `@available`) is checked against those versions instead.
  Swift Testing skips a suite or test marked `@available` on an older system, so that is how a test says it needs more.
- Linux-only names: the modules Glibc, Musl, FoundationNetworking, FoundationXML, ...; C names Darwin does not declare
  (`environ`, `st_mtim`, `posix_fallocate`, `epoll_*`, ...); Foundation's `Process` on iOS, tvOS and watchOS; a
  `"/proc..."` path in a string literal an Apple build compiles.
- `import M` of a module Package.swift links to the file's target only on other platforms, and `#if canImport(M)` of a
  package module the target does not link on that platform: every module of one SwiftPM build shares one modules
  folder, so the answer depends on what else the build built. Test `os(...)` as the manifest's condition does.

What it cannot see (Docs/testing.md): members reached through a value (`text.utf8Span`, `router.addRoutes()`) or a
nested type's name (`Outer.Inner`), Foundation's availability (no interfaces for it in the toolchain), a dependency's
declarations inside `#if` branches past the first, C differences beyond its list, and anything a type checker would
find; a bare `/regex/` literal is read as code. A line can be let through with `// apple-portability: ok <reason>` on it or on the line above; the reason is
required.

Python 3 standard library only; it reads files and runs nothing (the toolchain's interfaces are found beside the
`swift` on PATH, or given with --interfaces DIR).
"""

import argparse
import os
import re
import shutil
import sys

PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS")
# SwiftPM's floor for a platform that Package.swift does not name (tools version 6.0).
DEFAULT_FLOOR = {"macOS": (10, 13, 0), "iOS": (12, 0, 0), "tvOS": (12, 0, 0), "watchOS": (4, 0, 0)}
IMPLICIT_MODULES = {"Swift", "_Concurrency", "_StringProcessing", "SwiftOnoneSupport"}
ATTRIBUTE_PLATFORMS = {"macOS": "macOS", "OSX": "macOS", "iOS": "iOS", "tvOS": "tvOS", "watchOS": "watchOS"}

# canImport(M) as an Apple SDK answers it (None: depends on the platform or the build; both branches are read).
APPLE_MODULES = {
    "Darwin": True, "Foundation": True, "Dispatch": True, "ObjectiveC": True, "CoreFoundation": True,
    "Security": True, "Network": True, "os": True, "Combine": True, "CryptoKit": True, "Synchronization": True,
    "Observation": True, "RegexBuilder": True, "Distributed": True, "_Concurrency": True, "_StringProcessing": True,
    "Swift": True, "AuthenticationServices": True, "CommonCrypto": True, "SystemConfiguration": None,
    "UIKit": {"iOS": True, "tvOS": True, "macOS": False, "watchOS": False},
    "AppKit": {"macOS": True, "iOS": False, "tvOS": False, "watchOS": False},
    "WatchKit": {"watchOS": True, "macOS": False, "iOS": False, "tvOS": False},
}
# Modules that exist only off Apple platforms: `import` of one is a finding, canImport of one is false.
LINUX_ONLY_MODULES = {
    "Glibc": "the GNU C library's module", "Musl": "musl's module", "Bionic": "Android's C library",
    "Android": "Android's module", "WASILibc": "WASI's C library", "WinSDK": "Windows' module", "ucrt": "Windows' C library",
    "CRT": "Windows' C runtime", "FoundationNetworking": "URLSession lives in Foundation on Apple platforms",
    "FoundationXML": "XMLParser lives in Foundation on Apple platforms",
}
# C names the Darwin module does not declare, or declares differently.
LINUX_ONLY_NAMES = {
    "environ": "Darwin does not declare it to Swift (getenv, or _NSGetEnviron() on macOS)",
    "__environ": "glibc's name", "program_invocation_name": "glibc's name", "program_invocation_short_name": "glibc's name",
    "posix_fallocate": "not in Darwin (fcntl F_PREALLOCATE)", "fallocate": "Linux only (fcntl F_PREALLOCATE)",
    "O_TMPFILE": "Linux only", "O_PATH": "Linux only", "O_DIRECT": "Linux only (fcntl F_NOCACHE)", "O_NOATIME": "Linux only",
    "SOCK_CLOEXEC": "Linux only", "SOCK_NONBLOCK": "Linux only", "MSG_NOSIGNAL": "Linux only (SO_NOSIGPIPE)",
    "accept4": "Linux only", "pipe2": "Linux only", "dup3": "Linux only", "eventfd": "Linux only", "signalfd": "Linux only",
    "timerfd_create": "Linux only", "timerfd_settime": "Linux only", "inotify_init": "Linux only",
    "inotify_init1": "Linux only", "inotify_add_watch": "Linux only", "getrandom": "Linux only (getentropy)",
    "memfd_create": "Linux only", "statx": "Linux only", "renameat2": "Linux only (renameatx_np)",
    "copy_file_range": "Linux only", "splice": "Linux only", "sysinfo": "Linux only", "getauxval": "Linux only",
    "secure_getenv": "glibc only", "get_nprocs": "glibc only", "sched_getaffinity": "Linux only", "gettid": "Linux only",
    "prctl": "Linux only", "mallinfo": "glibc only", "malloc_usable_size": "glibc only (malloc_size)",
    "strchrnul": "glibc only", "mempcpy": "glibc only", "SO_PEERCRED": "Linux only (LOCAL_PEERCRED)",
    "CLOCK_BOOTTIME": "Linux only", "__errno_location": "glibc only",
}
LINUX_ONLY_PREFIXES = {"epoll_": "Linux only (kqueue)"}
LINUX_ONLY_FIELDS = {"st_atim": "st_atimespec", "st_mtim": "st_mtimespec", "st_ctim": "st_ctimespec"}
# Foundation names that exist on macOS only (Foundation's availability is not in the toolchain's interfaces).
MACOS_ONLY_TYPES = {"Process": "Foundation has Process on macOS only", "NSTask": "Foundation has NSTask on macOS only",
                    "NSUserUnixTask": "macOS only", "NSAppleScript": "macOS only",
                    "DistributedNotificationCenter": "macOS only", "NSWorkspace": "AppKit, macOS only"}
MACOS_ONLY_MEMBERS = {"homeDirectoryForCurrentUser": "FileManager has it on macOS only",
                      "homeDirectory(forUser": "FileManager has it on macOS only"}

DECL_KEYWORDS = ("func", "init", "subscript", "var", "let", "struct", "class", "enum", "actor", "protocol", "extension",
                 "typealias", "case", "associatedtype", "macro", "deinit", "precedencegroup", "operator")
TYPE_KINDS = {"struct", "class", "enum", "actor", "protocol", "typealias"}
MODIFIERS = ("public", "open", "package", "internal", "private", "fileprivate", "final", "static", "override",
             "mutating", "nonmutating", "nonisolated", "convenience", "required", "indirect", "dynamic", "optional",
             "lazy", "weak", "unowned", "consuming", "borrowing", "distributed", "__consuming", "prefix", "postfix",
             "infix", "isolated", "rethrows")
DECL_LINE = re.compile(
    r"^(?P<mods>(?:(?:%s|class(?=\s+(?:func|var|let|subscript|override|final|public|open)\b))\b(?:\([^)]*\))?\s+)*)"
    r"(?P<kind>%s)\b[?!]?\s*(?P<name>`[^`]+`|[^\s(<:={]*)" % ("|".join(MODIFIERS), "|".join(DECL_KEYWORDS)))
ATTRIBUTE = re.compile(r"@[A-Za-z_][\w.]*")
DIRECTIVE = re.compile(r"^[ \t]*#(if|elseif|else|endif)\b(.*)$")
NAMES = re.compile(r"(?<![.\w$])(%s|(?:%s)\w*)\b(?!\s*:(?!:))" % (
    "|".join(sorted(list(LINUX_ONLY_NAMES) + list(MACOS_ONLY_TYPES), key=len, reverse=True)),
    "|".join(LINUX_ONLY_PREFIXES)))


def version(text):
    """`15`, `15.0` and `15.0.0` as one comparable value."""
    parts = [int(part) for part in text.split(".")[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def show(v):
    v = tuple(v) + (0,) * (3 - len(v))
    return "%d.%d" % v[:2] if v[2] == 0 else "%d.%d.%d" % v


# --- reading Swift text -----------------------------------------------------------------------------------------------

def mask(text):
    """The text with comments and the contents of string literals blanked (line breaks kept), code in interpolations
    kept: what is left is what the compiler reads as code, at the same offsets."""
    out = list(text)
    n = len(text)

    def blank(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    def code(i, inside_interpolation):
        depth = 0
        while i < n:
            c = text[i]
            if c == "/" and text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
                continue
            if c == "/" and text.startswith("/*", i):
                j, level = i + 2, 1
                while j < n and level:
                    if text.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif text.startswith("*/", j):
                        level, j = level - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
                continue
            if c == '"' or (c == "#" and re.match(r'#+"', text[i:i + 8])):
                i = string(i)
                continue
            if c == "#" and text.startswith("#/", i):
                end = text.find("/#", i + 2)
                end = n if end < 0 else end + 2
                blank(i + 1, end - 1)
                i = end
                continue
            if inside_interpolation:
                if c == "(":
                    depth += 1
                elif c == ")":
                    if depth == 0:
                        return i
                    depth -= 1
            i += 1
        return n

    def string(i):
        hashes = 0
        while text[i + hashes] == "#":
            hashes += 1
        j = i + hashes
        quotes = 3 if text.startswith('"""', j) else 1
        j += quotes
        closing = '"' * quotes + "#" * hashes
        escape = "\\" + "#" * hashes
        start = j
        while j < n:
            if text.startswith(escape, j):
                k = j + len(escape)
                if k < n and text[k] == "(":
                    blank(start, k + 1)
                    end = code(k + 1, True)
                    blank(end, end + 1)
                    j = start = end + 1
                    continue
                j = k + 1
                continue
            if text.startswith(closing, j):
                blank(start, j)
                return j + len(closing)
            if quotes == 1 and text[j] == "\n":
                blank(start, j)
                return j
            j += 1
        blank(start, n)
        return n

    code(0, False)
    return "".join(out)


def balanced(text, start, open_char="(", close_char=")"):
    """The index just past the bracket that closes the one at `start` (in masked text), or -1."""
    depth = 0
    for k in range(start, len(text)):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k + 1 if c == close_char else -1
    return -1


def top_level_spans(text, start, end):
    """(start, end) of each part of text[start:end] between the commas no bracket encloses."""
    spans, depth, begin = [], 0, start
    for k in range(start, end):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((begin, k))
            begin = k + 1
    spans.append((begin, end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def split_top_level(text):
    """`text` split at the commas that no bracket encloses."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()] if any(part.strip() for part in parts) else []


# --- the toolchain's interfaces ---------------------------------------------------------------------------------------

class Availability:
    """Per platform: None (always there), a version it was introduced in, or "unavailable"."""

    def __init__(self, entries=None):
        self.entries = dict(entries or {})

    @staticmethod
    def parse(arguments):
        """One `@available(...)` or `#available(...)` argument list; None when it names no Apple platform version."""
        entries = {}
        parts = [part.strip() for part in arguments.split(",")]
        if parts and parts[0] in ATTRIBUTE_PLATFORMS and len(parts) > 1 and not re.match(r"^\d", parts[0]):
            platform = ATTRIBUTE_PLATFORMS[parts[0]]
            for part in parts[1:]:
                if part == "unavailable":
                    entries[platform] = "unavailable"
                m = re.match(r"introduced:\s*([\d.]+)", part)
                if m:
                    entries[platform] = version(m.group(1))
            return Availability(entries) if entries else None
        for part in parts:
            m = re.match(r"^(macOS|OSX|iOS|tvOS|watchOS)\s+([\d.]+)$", part)
            if m:
                entries[ATTRIBUTE_PLATFORMS[m.group(1)]] = version(m.group(2))
        return Availability(entries) if entries else None

    def merged(self, other):
        if other is None:
            return self
        entries = dict(self.entries)
        for platform, value in other.entries.items():
            mine = entries.get(platform)
            if mine == "unavailable" or value == "unavailable":
                entries[platform] = "unavailable"
            elif mine is None or value > mine:
                entries[platform] = value
        return Availability(entries)

    def on(self, platform):
        return self.entries.get(platform)


class Declaration:
    def __init__(self, module, kind, availability, labels=None, static=False):
        self.module = module
        self.kind = kind
        self.availability = availability
        self.labels = labels  # [(label, has_default, is_function)] for functions and initialisers
        self.static = static


def parameters(text):
    """The parameters of a declaration's parameter clause (its text inside the parentheses)."""
    out = []
    for part in split_top_level(text):
        m = re.match(r"\s*(`?[\w]+`?)(?:\s+(`?[\w]+`?))?\s*:(.*)$", part, re.S)
        if not m:
            out.append(("_", False, False))
            continue
        label = m.group(1).strip("`")
        rest = m.group(3)
        depth, default = 0, False
        for c in rest:
            if c in "([{<":
                depth += 1
            elif c in ")]}>":
                depth -= 1
            elif c == "=" and depth == 0:
                default = True
                break
        type_text = rest.split("=")[0] if default else rest
        out.append((label, default, "->" in type_text))
    return out


def interfaces_directory(explicit):
    if explicit:
        return explicit
    swift = shutil.which("swift")
    if not swift:
        sys.exit("apple-portability: no `swift` on PATH (or pass --interfaces DIR)")
    toolchain = os.path.dirname(os.path.dirname(os.path.realpath(swift)))
    return os.path.join(toolchain, "lib", "swift", sys.platform.rstrip("0123456789"))


def read_interfaces(directory):
    """Every public declaration of the toolchain's modules, with its Apple availability (its own and its scopes')."""
    table = {"types": {}, "functions": {}, "initialisers": {}, "members": {}, "macros": {}}
    count = 0
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".swiftmodule"):
            continue
        module = entry[: -len(".swiftmodule")]
        folder = os.path.join(directory, entry)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".swiftinterface") and not name.endswith(".private.swiftinterface"):
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    read_interface(module, handle.read(), table)
                count += 1
                break
    return table, count


def first_branches(masked):
    """Interface text with every `#if` reduced to its first branch (the compiler's, for this toolchain)."""
    lines = masked.split("\n")
    stack = []
    for index, line in enumerate(lines):
        m = DIRECTIVE.match(line)
        if m:
            kind = m.group(1)
            if kind == "if":
                stack.append(True)
            elif kind in ("elseif", "else"):
                stack[-1] = False
            elif stack:
                stack.pop()
            lines[index] = ""
        elif not all(stack):
            lines[index] = ""
    return lines


def read_interface(module, text, table, access="interface", macros=None):
    """Records the declarations of one file in `table`. `access` says which count: "interface" (a .swiftinterface:
    all but those marked internal, package or private), "source" (the project's own files: all but private and
    fileprivate ones) or "public" (a dependency's sources: only public and open ones, and the members of a
    `public extension`). `macros` expands a package's availability macros (`hummingbird 2.0`)."""
    lines = first_branches(mask(text))
    hidden_modifiers = {"interface": r"\b(internal|private|fileprivate|package)\b",
                        "source": r"(?!)", "public": r"\b(internal|private|fileprivate|package)\b"}
    # Scopes: (kind "decl" or "code", type path, availability, hidden, members public by default)
    scopes = []
    pending = []
    for line in lines:
        stripped = line.strip()
        if scopes and scopes[-1][0] == "code":
            for c in stripped:
                if c == "{":
                    scopes.append(("code", None, None, True, False))
                elif c == "}":
                    scopes.pop()
            continue
        if not stripped:
            continue
        # Leading attributes (several may share the line with the declaration).
        rest = stripped
        while rest.startswith("@"):
            m = ATTRIBUTE.match(rest)
            end = m.end()
            if end < len(rest) and rest[end] == "(":
                end = balanced(rest, end)
                if end < 0:
                    end = len(rest)
            pending.append(rest[:end])
            rest = rest[end:].lstrip()
        if not rest:
            continue
        m = DECL_LINE.match(rest)
        enclosing = scopes[-1] if scopes else None
        parent_path = enclosing[1] if enclosing else None
        inherited = enclosing[2] if enclosing else Availability()
        hidden = bool(enclosing and enclosing[3])
        attributes = " ".join(pending)
        pending = []
        own = Availability()
        for arguments in re.findall(r"@available\s*\(([^)]*)\)", attributes):
            if re.match(r"\s*\*\s*,\s*unavailable", arguments):
                hidden = True
            parsed = Availability.parse(expand_macros(arguments, macros))
            own = own.merged(parsed)
        availability = inherited.merged(own)
        if m:
            mods = m.group("mods")
            kind = m.group("kind")
            name = kind.rstrip("?!") if kind in ("init", "subscript", "deinit") else m.group("name").strip("`")
            if "@_spi" in attributes or re.search(hidden_modifiers[access], mods):
                hidden = True
            public = bool(re.search(r"\b(public|open)\b", mods))
            if access == "public" and not public and not (enclosing and enclosing[4]) and kind != "extension":
                hidden = True
            if "@usableFromInline" in attributes and not re.search(r"\b(public|open)\b", mods):
                hidden = True
            if kind == "extension":
                name = strip_module(name)
            if name.startswith("_") or name.startswith("$"):
                hidden = True
            static = bool(re.search(r"\b(static|class)\b", mods))
            record(table, module, kind, name, rest[m.end():], parent_path, availability, static, hidden)
            opens_body = kind in ("struct", "class", "enum", "actor", "protocol", "extension")
            if opens_body:
                if kind == "extension":
                    path = re.sub(r"<.*", "", name)
                    path = strip_module(path)
                else:
                    path = (parent_path + "." + name) if parent_path else name
            first = True
            for c in rest:
                if c == "{":
                    if first and opens_body:
                        scopes.append(("decl", path, availability, hidden, kind == "extension" and public))
                    else:
                        scopes.append(("code", None, None, True, False))
                    first = False
                elif c == "}":
                    if scopes:
                        scopes.pop()
                    first = False
        else:
            for c in rest:
                if c == "{":
                    scopes.append(("code", None, None, True, False))
                elif c == "}" and scopes:
                    scopes.pop()


def expand_macros(arguments, macros):
    """An `@available` argument list with each availability macro (`hummingbird 2.0`) replaced by its platforms."""
    if not macros:
        return arguments
    return ", ".join(macros.get(part.strip(), part.strip()) for part in arguments.split(","))


MODULE_PREFIX = re.compile(r"^(?:Swift|_Concurrency|_StringProcessing|Synchronization|Observation|Distributed|"
                           r"RegexBuilder|_RegexParser|Foundation|Dispatch|Runtime|_Volatile|_Differentiation|Cxx)\.")


def strip_module(path):
    while MODULE_PREFIX.match(path):
        path = MODULE_PREFIX.sub("", path, count=1)
    return path


def record(table, module, kind, name, rest, parent, availability, static, hidden):
    if hidden or not name:
        return
    if kind in ("func", "init", "subscript", "macro"):
        clause = rest
        if clause.startswith("<"):
            end = clause.find(">(")
            clause = clause[end + 1:] if end >= 0 else clause
        labels = None
        start = clause.find("(")
        if start >= 0:
            end = balanced(clause, start)
            if end > 0:
                labels = parameters(clause[start + 1:end - 1])
        declaration = Declaration(module, kind, availability, labels, static)
        if kind == "macro":
            table["macros"].setdefault(name, []).append(declaration)
        elif kind == "init" and parent:
            table["initialisers"].setdefault(parent, []).append(declaration)
        elif kind == "func" and not parent:
            table["functions"].setdefault(name, []).append(declaration)
        elif kind == "func":
            table["members"].setdefault(parent, {}).setdefault(name, []).append(declaration)
    elif kind in TYPE_KINDS:
        declaration = Declaration(module, kind, availability, static=True)
        if parent:
            table["members"].setdefault(parent, {}).setdefault(name, []).append(declaration)
        else:
            table["types"].setdefault(name, []).append(declaration)
    elif kind in ("var", "let", "case") and parent:
        names = [name]
        if kind == "case":
            names = [re.match(r"\s*`?(\w*)", part).group(1) for part in split_top_level(name + rest.split("=")[0])]
        for one in names:
            if one:
                declaration = Declaration(module, kind, availability, static=static or kind == "case")
                table["members"].setdefault(parent, {}).setdefault(one, []).append(declaration)


# --- the manifest -----------------------------------------------------------------------------------------------------

class Manifest:
    def __init__(self, root):
        path = os.path.join(root, "Package.swift")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        code = mask(text)
        self.tools = version(re.search(r"swift-tools-version:\s*([\d.]+)", text).group(1))
        self.floor = dict(DEFAULT_FLOOR)
        m = re.search(r"\bplatforms\s*:\s*\[", code)
        if m:
            end = balanced(code, m.end() - 1, "[", "]")
            for platform, major, minor, quoted in re.findall(
                    r'\.(macOS|iOS|tvOS|watchOS)\(\s*(?:\.v(\d+)(?:_(\d+))?|"([\d.]+)")\s*\)', text[m.end():end]):
                self.floor[platform] = version(quoted) if quoted else version("%s.%s" % (major, minor or 0))
        self.targets = []  # (name, path, {module: platforms or None})
        self.package_modules = set()
        for m in re.finditer(r"\.(target|executableTarget|testTarget|macro|plugin)\s*\(", code):
            end = balanced(code, m.end() - 1)
            body, body_code = text[m.end():end - 1], code[m.end():end - 1]
            name = re.search(r'\bname\s*:\s*"([^"]+)"', body).group(1)
            path_match = re.search(r'\bpath\s*:\s*"([^"]+)"', body)
            default = ("Tests/" if m.group(1) == "testTarget" else "Sources/") + name
            dependencies = {}
            deps = re.search(r"\bdependencies\s*:\s*\[", body_code)
            if deps:
                close = balanced(body_code, deps.end() - 1, "[", "]")
                for start, stop in top_level_spans(body_code, deps.end(), close - 1):
                    item, item_code = body[start:stop].strip(), body_code[start:stop]
                    named = re.match(r'"([^"]+)"$', item) or re.search(r'\bname\s*:\s*"([^"]+)"', item)
                    if not named:
                        continue
                    platforms = None
                    condition = re.search(r"platforms\s*:\s*\[([^\]]*)\]", item_code)
                    if condition:
                        platforms = set(re.findall(r"\.(\w+)", condition.group(1)))
                    dependencies[named.group(1)] = platforms
                    self.package_modules.add(named.group(1))
            self.package_modules.add(name)
            self.targets.append((name, (path_match.group(1) if path_match else default).rstrip("/"), dependencies,
                                 text[:m.start()].count("\n")))
        self.defines = {}
        for name, condition in re.findall(r'\.define\(\s*"(\w+)"([^)]*)\)', text):
            platforms = re.search(r"platforms\s*:\s*\[([^\]]*)\]", condition)
            self.defines[name] = {p for p in re.findall(r"\.(\w+)", platforms.group(1))} if platforms else None
        # A target declared only in a branch no Apple build takes (`#if os(Linux)`) is not part of a Mac's build.
        skipped = set(range(len(code.split("\n"))))
        for platform in PLATFORMS:
            skipped &= inactive_lines(code, Condition(self, platform, None, lambda module: None))
        self.apple_targets = [t for t in self.targets if t[3] not in skipped]
        self.linux_targets = [t for t in self.targets if t[3] in skipped]
        self.package_modules -= {t[0] for t in self.linux_targets}

    def target_of(self, relative, targets=None):
        best = None
        for target in self.targets if targets is None else targets:
            if relative == target[1] or relative.startswith(target[1] + "/"):
                if best is None or len(target[1]) > len(best[1]):
                    best = target
        return best

    def built_on_apple(self, relative):
        """Whether an Apple build compiles the file: False for the files of a target it never declares."""
        linux = self.target_of(relative, self.linux_targets)
        return linux is None or self.target_of(relative) is not linux

    def floor_text(self):
        return " / ".join("%s %s" % (p, show(self.floor[p])) for p in PLATFORMS)


def inactive_lines(code, condition):
    """The indexes of the lines of `code` (masked) in an `#if` branch that `condition`'s build never takes."""
    inactive, stack = set(), []  # [parent active, taken, active]
    for index, line in enumerate(code.split("\n")):
        m = DIRECTIVE.match(line)
        parent = all(frame[2] for frame in stack)
        if m and m.group(1) == "if":
            value = condition.evaluate(m.group(2)) if parent else False
            stack.append([parent, value is True, value is not False])
        elif m and m.group(1) in ("elseif", "else") and stack:
            frame = stack[-1]
            value = (condition.evaluate(m.group(2)) if m.group(1) == "elseif" else True) if not frame[1] else False
            frame[2] = frame[0] and not frame[1] and value is not False
            frame[1] = frame[1] or value is True
        elif m and stack:
            stack.pop()
        elif not parent:
            inactive.add(index)
    return inactive


def linked(target, module, platform):
    """Whether Package.swift links `module` to `target` on `platform`: True, False, or None (not a dependency)."""
    if target is None or module not in target[2]:
        return None
    platforms = target[2][module]
    return platforms is None or platform.lower() in {p.lower() for p in platforms}


# --- `#if` as an Apple build answers it -------------------------------------------------------------------------------

class Condition:
    TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[A-Za-z_$][\w$]*\s*\((?:[^()]|\([^()]*\))*\)|[A-Za-z_$][\w$]*)")

    def __init__(self, manifest, platform, target, on_can_import):
        self.manifest = manifest
        self.platform = platform
        self.target = target
        self.on_can_import = on_can_import

    def evaluate(self, text):
        tokens = []
        position = 0
        text = text.strip()
        while position < len(text):
            m = self.TOKEN.match(text, position)
            if not m:
                return None
            tokens.append(m.group(1))
            position = m.end()
        self.tokens, self.index = tokens, 0
        try:
            value = self.disjunction()
        except (IndexError, ValueError):
            return None
        return value if self.index == len(tokens) else None

    def disjunction(self):
        values = [self.conjunction()]
        while self.index < len(self.tokens) and self.tokens[self.index] == "||":
            self.index += 1
            values.append(self.conjunction())
        if True in values:
            return True
        return None if None in values else False

    def conjunction(self):
        values = [self.unary()]
        while self.index < len(self.tokens) and self.tokens[self.index] == "&&":
            self.index += 1
            values.append(self.unary())
        if False in values:
            return False
        return None if None in values else True

    def unary(self):
        token = self.tokens[self.index]
        self.index += 1
        if token == "!":
            value = self.unary()
            return None if value is None else not value
        if token == "(":
            value = self.disjunction()
            if self.tokens[self.index] != ")":
                raise ValueError
            self.index += 1
            return value
        return self.atom(token)

    def atom(self, token):
        m = re.match(r"([\w$]+)\s*\((.*)\)$", token, re.S)
        if not m:
            if token in ("true", "false"):
                return token == "true"
            if token == "DEBUG":
                return None
            if token in self.manifest.defines:
                platforms = self.manifest.defines[token]
                return True if platforms is None else (self.platform.lower() in {p.lower() for p in platforms})
            return False
        function, argument = m.group(1), m.group(2).strip()
        if function == "os":
            if argument in PLATFORMS:
                return argument == self.platform
            return False if argument in ("Linux", "Android", "Windows", "FreeBSD", "OpenBSD", "WASI", "Cygwin",
                                         "PS4", "Haiku", "visionOS", "none") else None
        if function == "canImport":
            module = argument.split(",")[0].strip()
            if module in LINUX_ONLY_MODULES:
                return False
            if module in self.manifest.package_modules:
                answer = linked(self.target, module, self.platform) or module == (self.target or ("",))[0]
                if not answer:
                    self.on_can_import(module)
                    return None
                return True
            value = APPLE_MODULES.get(module)
            return value.get(self.platform) if isinstance(value, dict) else value
        if function in ("compiler", "swift"):
            m2 = re.match(r"(>=|<)\s*([\d.]+)$", argument)
            if not m2:
                return None
            at_least = version(m2.group(2)) <= self.manifest.tools
            if m2.group(1) == ">=":
                return True if at_least else None
            return False if at_least else None
        if function == "targetEnvironment":
            return False if argument == "macCatalyst" else None
        if function == "_endian":
            return argument == "little"
        if function == "_runtime":
            return argument == "_ObjC"
        return None


# --- one file, one platform -------------------------------------------------------------------------------------------

class Scanner:
    def __init__(self, root, manifest, table, declared, own=None):
        self.root = root
        self.manifest = manifest
        self.table = table  # the toolchain's declarations and the dependencies'
        self.declared = declared  # names the scanned tree declares: {"types", "functions", "values"}
        self.own = own or empty_table()  # the scanned tree's declarations, by module, with their @available
        self.findings = {}  # (path, line, column, key) -> [message parts, platforms]

    def add(self, path, line, column, key, platform, message):
        entry = self.findings.setdefault((path, line, column, key), [message, set()])
        entry[1].add(platform)

    def scan(self, relative, text, masked, exported):
        target = self.manifest.target_of(relative)
        for platform in PLATFORMS:
            self.scan_platform(relative, masked, target, platform, exported, text)

    def scan_platform(self, relative, masked, target, platform, exported, text=None):
        lines = masked.split("\n")
        original = (text if text is not None else masked).split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        can_imports = []
        current = [0]  # the line of the directive being evaluated
        condition = Condition(self.manifest, platform, target, lambda module: can_imports.append((current[0], module)))
        stack = []  # [parent_active, taken, active]
        active_lines = []
        active_text = []  # the same lines unmasked: what string literals an Apple build compiles
        for index, line in enumerate(lines):
            m = DIRECTIVE.match(line)
            parent = all(frame[2] for frame in stack)
            if m:
                kind, text = m.group(1), m.group(2)
                current[0] = index
                if kind == "if":
                    value = condition.evaluate(text) if parent else False
                    stack.append([parent, value is True, value is not False])
                elif kind == "elseif" and stack:
                    frame = stack[-1]
                    outer = all(f[2] for f in stack[:-1])
                    value = condition.evaluate(text) if outer and not frame[1] else False
                    frame[2] = not frame[1] and value is not False
                    frame[1] = frame[1] or value is True
                elif kind == "else" and stack:
                    frame = stack[-1]
                    frame[2] = not frame[1]
                    frame[1] = True
                elif kind == "endif" and stack:
                    stack.pop()
                active_lines.append(" " * len(line))
                active_text.append("")
                continue
            active_lines.append(line if parent else " " * len(line))
            active_text.append(original[index] if parent and index < len(original) else "")
        code = "\n".join(active_lines)

        def place(offset):
            line = bisect(starts, offset)
            return line + 1, offset - starts[line] + 1

        for line_index, module in can_imports:
            column = lines[line_index].find("canImport(" + module) + 1
            self.add(relative, line_index + 1, column, "can-import:" + module, platform,
                     "canImport(%s): Package.swift does not link %s to %s on Apple platforms, and in one SwiftPM build "
                     "every module shares one modules folder, so the answer depends on what else was built: test "
                     "os(...) as the manifest's condition does" % (module, module, target[0] if target else "this target"))

        # Imports.
        imports = set()
        for m in re.finditer(r"(?m)^[ \t]*(?:@[\w]+(?:\([^)]*\))?[ \t]+)*import[ \t]+(?:(?:typealias|struct|class|enum|"
                             r"protocol|let|var|func)[ \t]+)?([\w]+)", code):
            module = m.group(1)
            imports.add(module)
            imports |= exported.get(module, set())
            line, column = place(m.start(1))
            if module in LINUX_ONLY_MODULES:
                self.add(relative, line, column, "import:" + module, platform,
                         "import %s: no such module on Apple platforms (%s)" % (module, LINUX_ONLY_MODULES[module]))
            elif linked(target, module, platform) is False:
                platforms = ", ".join(sorted(target[2][module]))
                self.add(relative, line, column, "import:" + module, platform,
                         "import %s: Package.swift links %s to %s only on %s" % (module, module, target[0], platforms))
        modules = IMPLICIT_MODULES | imports | {module_of(self.manifest, relative)}
        code = re.sub(r"(?m)^[ \t]*(?:@[\w]+(?:\([^)]*\))?[ \t]+)*import[ \t][^\n]*", lambda m: " " * len(m.group(0)), code)

        raises = availability_scopes(code)

        def effective(offset):
            value = None
            for start, end, availability in raises:
                if start <= offset < end:
                    value = availability if value is None else value.merged(availability)
            return value

        def too_new(declarations, offset):
            """The availability an Apple build misses on `platform`, or None when one of `declarations` is there."""
            floor = self.manifest.floor[platform]
            raised = effective(offset)
            if raised is not None:
                at = raised.on(platform)
                if at == "unavailable":
                    return None
                if at is not None and at > floor:
                    floor = at
            missing = []
            for declaration in declarations:
                needed = declaration.availability.on(platform)
                if needed is None or (needed != "unavailable" and needed <= floor):
                    return None
                missing.append(declaration)
            return missing or None

        def report(offset, key, name, declarations):
            line, column = place(offset)
            needed = {}
            for declaration in declarations:
                for p in PLATFORMS:
                    value = declaration.availability.on(p)
                    if value is None:
                        continue
                    if p not in needed or value == "unavailable" or (needed[p] != "unavailable" and value < needed[p]):
                        needed[p] = value
            self.add(relative, line, column, "availability:" + key, platform, (name, needed))

        def in_modules(declarations):
            return [d for d in declarations if d.module in modules]

        def lookup(kind, name):
            """What `name` means here: the project's own declarations the file sees (its module's and those of the
            modules it imports) shadow the toolchain's and the dependencies'."""
            own = in_modules(self.own[kind].get(name, []))
            if own:
                return own
            if kind in ("types", "functions") and name in self.declared[kind] and not self.table[kind].get(name):
                return []
            return in_modules(self.table[kind].get(name, []))

        file_types = set(re.findall(r"\b(?:struct|class|enum|actor|extension)\s+([A-Z][\w]*)", code))

        def file_members(name):
            """A method of a type this file declares or extends, called unqualified or on `self`/`Self` inside it."""
            found = []
            for type_name in file_types:
                found += [d for d in in_modules(self.own["members"].get(type_name, {}).get(name, []))
                          if d.kind == "func"]
            return found

        # Types and macros.
        for m in re.finditer(r"(?<![.\w$])([@#]?)([A-Z][\w]*)\b", code):
            sigil, name = m.group(1), m.group(2)
            if sigil:
                declarations = in_modules(self.table["macros"].get(name, []))
            else:
                declarations = lookup("types", name)
                before = code[max(0, m.start() - 5):m.start()]
                if re.search(r"\b(any|some)\s+$", before):
                    declarations = [d for d in declarations if d.kind == "protocol"]
            if not declarations:
                continue
            missing = too_new(declarations, m.start(2))
            if missing:
                report(m.start(2), name, name, missing)

        # Free functions and initialisers, by name and argument labels.
        for m in re.finditer(r"(?<![.\w$])([A-Za-z_][\w]*)(?:\s*<[^<>()]*>)?(?:\s*\.\s*init)?\s*(\(|\{)", code):
            name = m.group(1)
            if name[0].isupper():
                own_types = in_modules(self.own["types"].get(name, []))
                # An initialiser of the project's own type: its own, or the type's (a memberwise one).
                declarations = (in_modules(self.own["initialisers"].get(name, [])) or own_types if own_types
                                else lookup("initialisers", name))
                kind = "init"
            else:
                if name in ("if", "while", "guard", "switch", "for", "return"):
                    continue
                declarations = lookup("functions", name) or file_members(name)
                kind = "func"
            if not declarations:
                continue
            labels = call_labels(code, m.end(2) - 1)
            matching = [d for d in declarations if accepts(d.labels, labels)]
            if not matching and m.group(2) == "(":
                matching = declarations  # arguments this reading cannot match: every overload is a candidate
            missing = too_new(matching, m.start(1)) if matching else None
            if missing:
                shown = signature(name, missing[0].labels)
                report(m.start(1), shown, shown, missing)

        # A member of a type this file declares or extends, called on `self` or `Self` (a suite's raised helper).
        for m in re.finditer(r"(?<![.\w$])(?:self|Self)\s*\.\s*([a-z_][\w]*)\s*(\(|\{)", code):
            name = m.group(1)
            declarations = file_members(name)
            if not declarations:
                continue
            labels = call_labels(code, m.end(2) - 1)
            matching = [d for d in declarations if accepts(d.labels, labels)] or declarations
            missing = too_new(matching, m.start(1))
            if missing:
                shown = signature(name, missing[0].labels)
                report(m.start(1), shown, shown, missing)

        # Static members through their type's name.
        for m in re.finditer(r"(?<![.\w$])([A-Z][\w]*(?:\.[A-Z][\w]*)*)\s*\.\s*([a-z_][\w]*)\b", code):
            path, member = m.group(1), m.group(2)
            if member == "init":
                continue
            if in_modules(self.own["types"].get(path.split(".")[0], [])):
                members = self.own["members"]
            elif path.split(".")[0] in self.declared["types"]:
                continue
            else:
                members = self.table["members"]
            declarations = [d for d in in_modules(members.get(path, {}).get(member, [])) if d.static]
            if not declarations:
                continue
            after = code[m.end():m.end() + 200]
            call = re.match(r"\s*(\(|\{)", after)
            labels = call_labels(code, m.end() + call.end(1) - 1) if call else None
            matching = [d for d in declarations if d.labels is None or labels is None or accepts(d.labels, labels)]
            missing = too_new(matching or declarations, m.start(2))
            if missing:
                shown = "%s.%s" % (path, member) if missing[0].labels is None else signature(path + "." + member,
                                                                                              missing[0].labels)
                report(m.start(2), shown, shown, missing)

        # Linux-only C names and fields, Foundation names macOS alone has.
        for m in NAMES.finditer(code):
            name = m.group(1)
            reason = LINUX_ONLY_NAMES.get(name)
            if reason is None and name not in MACOS_ONLY_TYPES:
                reason = next((why for prefix, why in LINUX_ONLY_PREFIXES.items() if name.startswith(prefix)), None)
            if reason is not None and name not in self.declared["values"] and name not in self.declared["functions"]:
                line, column = place(m.start(1))
                self.add(relative, line, column, "linux:" + name, platform, "%s: %s" % (name, reason))
            if name in MACOS_ONLY_TYPES and platform != "macOS" and name not in self.declared["types"]:
                line, column = place(m.start(1))
                self.add(relative, line, column, "macos-only:" + name, platform,
                         "%s does not exist on %%s (%s)" % (name, MACOS_ONLY_TYPES[name]))
        # Paths only Linux has, in a string literal an Apple build compiles: there the code reads nothing (or, where
        # it falls back, the fallback is all that runs), so the Linux path belongs behind `#if os(Linux)`.
        for index, line in enumerate(active_text):
            for m in re.finditer(r'"(/proc(?:/[^"]*)?)"', line):
                if lines[index][m.start():m.start() + 1] != '"':
                    continue  # in a comment: the masked line keeps only a literal's quotes
                self.add(relative, index + 1, m.start() + 1, "linux-path:" + m.group(1), platform,
                         "%s: Linux only (no procfs on Apple platforms); put it behind #if os(Linux)" % m.group(1))
        for m in re.finditer(r"\.\s*(st_atim|st_mtim|st_ctim)\b", code):
            line, column = place(m.start(1))
            self.add(relative, line, column, "linux:" + m.group(1), platform,
                     "%s: glibc's stat field (Darwin: %s)" % (m.group(1), LINUX_ONLY_FIELDS[m.group(1)]))
        for member, reason in MACOS_ONLY_MEMBERS.items():
            if platform == "macOS":
                continue
            for m in re.finditer(r"\.\s*" + re.escape(member) + r"\b", code):
                line, column = place(m.start())
                self.add(relative, line, column + 1, "macos-only:" + member, platform,
                         "%s does not exist on %%s (%s)" % (member.split("(")[0], reason))

    def report_lines(self, originals):
        out = []
        suppressed = 0
        for (path, line, column, key), (message, platforms) in sorted(self.findings.items()):
            lines = originals[path]
            nearby = lines[line - 1] + ("\n" + lines[line - 2] if line >= 2 else "")
            if re.search(r"apple-portability:\s*ok\s+\S", nearby):
                suppressed += 1
                continue
            ordered = [p for p in PLATFORMS if p in platforms]
            if key.startswith("availability:"):
                name, needed = message
                parts = []
                for p in ordered:
                    value = needed.get(p)
                    parts.append("%s %s" % (p, "unavailable" if value == "unavailable" else show(value))
                                 if value is not None else p)
                floors = " / ".join("%s %s" % (p, show(self.manifest.floor[p])) for p in ordered)
                text = "%s needs %s (floor %s)" % (name, " / ".join(parts), floors)
            elif key.startswith("macos-only:"):
                text = message % ", ".join(ordered)
            else:
                text = message
            out.append((path, line, column, key.split(":")[0], "%s:%d:%d: %s" % (path, line, column, text)))
        return out, suppressed


def signature(name, parameters):
    """`name(label:label:)`, as Swift's documentation names a function."""
    if parameters is None:
        return name
    return "%s(%s)" % (name, "".join(label + ":" for label, _, _ in parameters))


def bisect(starts, offset):
    low, high = 0, len(starts) - 1
    while low < high - 1:
        middle = (low + high) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle
    return low


def call_labels(code, open_index):
    """The argument labels of the call whose `(` or trailing `{` is at `open_index`: (labels before any trailing
    closure, number of trailing closures), or None when the arguments cannot be read."""
    labels = []
    index = open_index
    if code[open_index] == "(":
        end = balanced(code, open_index)
        if end < 0:
            return None
        for argument in split_top_level(code[open_index + 1:end - 1]):
            m = re.match(r"\s*([A-Za-z_][\w]*)\s*:(?!:)", argument)
            labels.append(m.group(1) if m else "_")
        index = end
    trailing = 0
    while True:
        m = re.match(r"\s*(?:([A-Za-z_][\w]*)\s*:\s*)?\{", code[index:index + 400])
        if not m or (trailing == 0 and m.group(1)):
            break
        close = balanced(code, index + m.end() - 1, "{", "}")
        if close < 0:
            break
        trailing += 1
        if m.group(1):
            labels.append(m.group(1))
        index = close
    return labels, trailing


def accepts(parameters, call):
    """Whether a declaration with `parameters` can take a call with these labels (default arguments skipped, trailing
    closures given to the parameters of function type that are left)."""
    if parameters is None or call is None:
        return True
    labels, trailing = call
    position = 0
    for label in labels:
        while position < len(parameters) and parameters[position][0] != label:
            if not parameters[position][1]:
                return False
            position += 1
        if position == len(parameters):
            return False
        position += 1
    rest = parameters[position:]
    if trailing:
        functions = [k for k, p in enumerate(rest) if p[2]]
        if not functions:
            return False
        rest = [p for k, p in enumerate(rest) if k != functions[0]]
    return all(p[1] or p[2] for p in rest)


def availability_scopes(code):
    """(start, end, availability) for every stretch of `code` that `if #available`, `guard #available` or an
    `@available` declaration raises: what code inside it may use."""
    scopes = []
    stack = []  # (open index, pending guard raise)
    guards = []  # (after, parent open index or None, availability)
    boundary = -1
    closes = {}
    for index, c in enumerate(code):
        if c == "{":
            head = code[boundary + 1:index]
            raise_here, guard, start = head_availability(head)
            stack.append((index, raise_here, guard, boundary + 1 + start))
            boundary = index
        elif c == "}":
            if stack:
                opened, raise_here, guard, start = stack.pop()
                closes[opened] = index
                if raise_here is not None:
                    scopes.append((start, index, raise_here))
                if guard is not None:
                    guards.append((index, stack[-1][0] if stack else None, guard))
            boundary = index
        elif c == ";":
            boundary = index
    for after, parent, availability in guards:
        end = closes.get(parent, len(code)) if parent is not None else len(code)
        scopes.append((after, end, availability))
    return scopes


def head_availability(head):
    """The availability a block's head gives the block (if/while #available, or an @available declaration), the one
    a `guard #available` gives the rest of its enclosing block, and where in `head` the raised stretch starts (an
    @available declaration's own head is raised too: `func f(router: Router<C>)`, `extension NewerType`)."""
    m = None
    for m in re.finditer(r"#available\s*\(([^)]*)\)", head):
        pass
    if m:
        keyword = None
        for k in re.finditer(r"\b(if|while|guard)\b", head[:m.start()]):
            keyword = k.group(1)
        availability = Availability.parse(m.group(1))
        if keyword == "guard":
            return None, availability, len(head)
        return availability, None, len(head)
    attributes = re.findall(r"@available\s*\(([^)]*)\)", head)
    if attributes:
        keyword = None
        for k in re.finditer(r"\b(func|init|subscript|var|let|struct|class|enum|actor|protocol|extension|deinit)\b",
                             head):
            keyword = k
        if keyword is None:
            return None, None, len(head)
        # Only the attributes of the declaration this block belongs to: those after the last statement before it.
        prefix = head[:keyword.start()]
        lines = prefix.split("\n")
        kept = []
        for line in reversed(lines):
            stripped = line.strip()
            if not stripped or stripped.startswith("@") or re.match(r"^(%s)\b" % "|".join(MODIFIERS), stripped):
                kept.append(line)
                continue
            kept.append(line)
            break
        own = "\n".join(reversed(kept))
        availability = None
        for arguments in re.findall(r"@available\s*\(([^)]*)\)", own):
            parsed = Availability.parse(arguments)
            if parsed is not None:
                availability = parsed if availability is None else availability.merged(parsed)
        return availability, None, keyword.start()
    return None, None, len(head)


# --- the run ----------------------------------------------------------------------------------------------------------

def swift_files(root, folders):
    for folder in folders:
        base = os.path.join(root, folder)
        for directory, subdirectories, files in os.walk(base):
            subdirectories.sort()
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.relpath(os.path.join(directory, name), root)


def empty_table():
    return {"types": {}, "functions": {}, "initialisers": {}, "members": {}, "macros": {}}


def merge_tables(into, other):
    for kind, entries in other.items():
        for name, value in entries.items():
            if kind == "members":
                for member, declarations in value.items():
                    into[kind].setdefault(name, {}).setdefault(member, []).extend(declarations)
            else:
                into[kind].setdefault(name, []).extend(value)


EXPORTED_IMPORT = re.compile(r"@_exported\s+import\s+(?:(?:class|struct|enum|protocol|typealias|func|let|var)\s+)?(\w+)")
IMPORT = re.compile(r"(?m)^[ \t]*(?:@[\w]+(?:\([^)]*\))?[ \t]+)*import[ \t]+(?:(?:typealias|struct|class|enum|protocol|let|"
                    r"var|func)[ \t]+)?([\w]+)")


def module_of(manifest, relative):
    """The module a file is compiled into: its target's, or for a file no target holds (an Xcode example's) one named
    after its folder (`Examples/AppleSignIn`)."""
    target = manifest.target_of(relative)
    return target[0] if target else "/".join(relative.split("/")[:2])


def dependency_folders(checkouts):
    """{module: (folder, availability macros)} for the package checkouts SwiftPM resolved (`.build/checkouts`)."""
    folders = {}
    for package in sorted(os.listdir(checkouts)):
        base = os.path.join(checkouts, package)
        try:
            with open(os.path.join(base, "Package.swift"), encoding="utf-8") as handle:
                manifest = handle.read()
        except OSError:
            continue
        macros = {}
        for name, platforms in re.findall(r'AvailabilityMacro=([^:"\\]+):([^"\\]+)"', manifest):
            macros.setdefault(name.strip(), platforms.strip())
        sources = os.path.join(base, "Sources")
        if os.path.isdir(sources):
            for entry in sorted(os.listdir(sources)):
                folders.setdefault(entry, (os.path.join(sources, entry), macros))
        for body in re.findall(r"\.(?:target|executableTarget)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", manifest):
            name, path = re.search(r'\bname\s*:\s*"([^"]+)"', body), re.search(r'\bpath\s*:\s*"([^"]+)"', body)
            if name and path:
                folders[name.group(1)] = (os.path.join(base, path.group(1)), macros)
    return folders


def read_dependencies(checkouts, wanted):
    """The public declarations, with their availability (the package's availability macros expanded), of each
    dependency module in `wanted` and of those they re-export; and {module: modules it re-exports, transitively}."""
    table, exported, read = empty_table(), {}, set()
    if not checkouts or not os.path.isdir(checkouts):
        return table, exported, read
    folders = dependency_folders(checkouts)
    pending = sorted(wanted)
    while pending:
        module = pending.pop()
        if module in read or module not in folders:
            continue
        read.add(module)
        folder, macros = folders[module]
        for directory, subdirectories, files in os.walk(folder):
            subdirectories.sort()
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                read_interface(module, text, table, "public", macros)
                for other in EXPORTED_IMPORT.findall(mask(text)):
                    exported.setdefault(module, set()).add(other)
                    pending.append(other)
    changed = True
    while changed:
        changed = False
        for module, others in exported.items():
            more = set().union(*(exported.get(other, set()) for other in others)) - others
            if more:
                others |= more
                changed = True
    return table, exported, read


def run(root, folders, interfaces, checkouts=None):
    manifest = Manifest(root)
    table, count = read_interfaces(interfaces)
    texts, masked, originals = {}, {}, {}
    declared = {"types": set(), "functions": set(), "values": set()}
    own = empty_table()
    exported, imported, skipped = {}, set(), 0
    for relative in swift_files(root, folders):
        if not manifest.built_on_apple(relative):
            skipped += 1
            continue
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            text = handle.read()
        texts[relative] = text
        masked[relative] = mask(text)
        originals[relative] = text.split("\n")
        code = masked[relative]
        declared["types"].update(re.findall(r"\b(?:struct|class|enum|actor|protocol|typealias)\s+([A-Za-z_]\w*)", code))
        declared["functions"].update(re.findall(r"\bfunc\s+([A-Za-z_]\w*)", code))
        declared["values"].update(re.findall(r"\b(?:var|let)\s+([A-Za-z_]\w*)", code))
        read_interface(module_of(manifest, relative), text, own, "source")
        imported.update(IMPORT.findall(code))
        target = manifest.target_of(relative)
        if target:
            for module in re.findall(r"(?m)^[ \t]*@_exported[ \t]+import[ \t]+(\w+)", code):
                if module not in LINUX_ONLY_MODULES:
                    exported.setdefault(target[0], set()).add(module)
    dependencies, dependency_exports, read = read_dependencies(
        checkouts, imported - {t[0] for t in manifest.targets} - set(APPLE_MODULES) - set(LINUX_ONLY_MODULES))
    merge_tables(table, dependencies)
    for module, others in dependency_exports.items():
        exported.setdefault(module, set()).update(others)
    scanner = Scanner(root, manifest, table, declared, own)
    for relative in texts:
        scanner.scan(relative, texts[relative], masked[relative], exported)
    lines, suppressed = scanner.report_lines(originals)
    summary = {"skipped": skipped, "dependencies": len(read), "checkouts": checkouts}
    return manifest, count, len(texts), lines, suppressed, summary


def self_test(interfaces):
    """The gate over its fixtures (a small package): each `// expect: KIND` line must be reported with that kind, and
    nothing else may be."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "apple-portability")
    folders = ["Sources", "Tests"]
    manifest, count, files, lines, suppressed, summary = run(root, folders, interfaces, os.path.join(root, "Checkouts"))
    expected = set()
    for relative in swift_files(root, folders):
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                for kind in re.findall(r"expect:\s*([\w-]+)", line):
                    expected.add((relative, number, kind))
    reported = {(path, line, kind) for path, line, _, kind, _ in lines}
    missing = sorted(expected - reported)
    unexpected = sorted(reported - expected)
    for path, line, kind in missing:
        print("self-test: %s:%d: expected a %s finding, got none" % (path, line, kind), file=sys.stderr)
    for path, line, column, kind, text in lines:
        if (path, line, kind) in unexpected:
            print("self-test: unexpected finding: %s" % text, file=sys.stderr)
    kinds = sorted({kind for _, _, kind in expected})
    if missing or unexpected or suppressed != 1 or summary["skipped"] != 1 or summary["dependencies"] != 2:
        if suppressed != 1:
            print("self-test: expected 1 finding let through by its comment, got %d" % suppressed, file=sys.stderr)
        if summary["skipped"] != 1:
            print("self-test: expected 1 file of a target only Linux declares left out, got %d" % summary["skipped"],
                  file=sys.stderr)
        if summary["dependencies"] != 2:
            print("self-test: expected 2 dependency modules read (Checkouts/), got %d" % summary["dependencies"],
                  file=sys.stderr)
        print("apple-portability self-test FAILED (%d expected, %d reported)" % (len(expected), len(reported)),
              file=sys.stderr)
        return 1
    print("apple-portability self-test: %d findings of %d kinds (%s) found in %d fixture files and 2 dependency "
          "modules, nothing else" % (len(expected), len(kinds), ", ".join(kinds), files), file=sys.stderr)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="The package to scan (its Package.swift, Sources/, Examples/ and Tests/).")
    parser.add_argument("--interfaces", help="The toolchain's lib/swift/<os> folder (default: beside `swift` on PATH).")
    parser.add_argument("--checkouts", help="The dependencies' sources (default: ROOT/.build/checkouts, which "
                        "`swift package resolve` fills).")
    parser.add_argument("--self-test", action="store_true", help="Run the gate over its fixtures.")
    arguments = parser.parse_args()
    interfaces = interfaces_directory(arguments.interfaces)
    if arguments.self_test:
        return self_test(interfaces)
    folders = [folder for folder in ("Sources", "Examples", "Tests")
               if os.path.isdir(os.path.join(arguments.root, folder))]
    checkouts = arguments.checkouts or os.path.join(arguments.root, ".build", "checkouts")
    manifest, count, files, lines, suppressed, summary = run(arguments.root, folders, interfaces, checkouts)
    for line in lines:
        print(line[4])
    sys.stdout.flush()
    if summary["dependencies"]:
        dependencies = "; the dependencies' from %d modules in %s" % (summary["dependencies"], checkouts)
    else:
        dependencies = "; the dependencies' NOT read: no %s (run `swift package resolve`)" % checkouts
    print("apple-portability: %d finding(s) in %d files against the floor %s (availability from %d interfaces in %s%s"
          "%s%s)" % (len(lines), files, manifest.floor_text(), count, interfaces, dependencies,
                     "; %d files of targets only Linux declares left out" % summary["skipped"] if summary["skipped"]
                     else "", "; %d let through by `apple-portability: ok`" % suppressed if suppressed else ""),
          file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
