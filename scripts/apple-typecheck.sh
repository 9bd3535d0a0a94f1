#!/usr/bin/env bash
# Type-checks the package's Apple-only lines on Linux, against shims of Apple's SDK (Docs/apple.md).
#
# The lines behind `#if canImport(Security)`, `canImport(CryptoKit)`, `canImport(AuthenticationServices)` (and any
# other module Shims/AppleSDK/ holds), and URLSessionTransport (behind `OAUTHFLOW_TYPECHECK_APPLE` off Apple
# platforms), are never compiled by a Linux build. This script:
#
# 1. builds each shim module (Shims/AppleSDK/<Module>/*.swift: Apple's documented signatures, `@MainActor` and
#    `Sendable` as Apple declares them, no behaviour) into .build/apple-shims, in the order their imports need;
# 2. re-runs the debug build's own compiler invocation of OAuthFlowApple, as a module built against the shims, and
#    of every other target (test targets too: the docs' examples are compiled there) whose files test one of those
#    conditions
#    (read from .build/debug.yaml: the same module search paths, C module maps, defines and language mode), as a
#    type-check with .build/apple-shims on the include path and `-D OAUTHFLOW_TYPECHECK_APPLE`, so that those
#    conditions are true; the files that test them are type-checked in full, the target's others only as far as
#    they are used (`-primary-file`);
# 3. type-checks the same way the Swift files of Examples/ that no target holds and that use OAuthFlowApple
#    (an app's model code; its SwiftUI views, behind `#if canImport(SwiftUI)`, stay unchecked).
#
# Each compile also gets a probe file that is an error unless every shimmed `canImport` and the define are true there,
# so a check that does not see the shims cannot pass unnoticed. It fails on any compiler error and prints the
# compiler's diagnostics. It needs a debug build
# (`swift build --build-tests`; the test command runs it right after the build) and takes a few seconds.
# What the shims cannot catch (runtime keychain semantics, entitlements, presentation, availability) is in
# Docs/apple.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swiftc >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swiftc ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    else
        echo "error: swiftc is not on PATH; install Swift 6.2 or later" >&2
        exit 1
    fi
fi

exec python3 - "$@" <<'PYTHON'
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.getcwd()
SHIMS = os.path.join(ROOT, "Shims", "AppleSDK")
OUT = os.path.join(ROOT, ".build", "apple-shims")
DEFINE = "OAUTHFLOW_TYPECHECK_APPLE"
started = time.monotonic()


def fail(message):
    print(f"apple-typecheck: error: {message}", file=sys.stderr)
    sys.exit(1)


sys.path.insert(0, os.path.join(ROOT, "scripts"))
from build_plan import checking, invocations as build_invocations  # noqa: E402

# --- the debug build's compiler invocations, by module --------------------------------------------------
invocations = build_invocations()
if invocations is None:
    fail(".build/debug.yaml is missing: run `swift build --build-tests` first")


def module_name(flags):
    return flags[flags.index("-module-name") + 1]


def without_module_name(flags):
    index = flags.index("-module-name")
    return flags[:index] + flags[index + 2:]


# A compile's diagnostics name the Apple view of a file (below) by its own path, which has the same lines.
VIEWS = os.path.join(OUT, "views")
OWN_WARNING = re.compile(r"^(?:%s/)?(?:Sources|Examples|Tests)/[^:\n]+:\d+:\d+: warning: " % re.escape(ROOT), re.M)


def run(command, what):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = re.sub(re.escape(VIEWS) + r"/(?:macOS|iOS)/", "", result.stdout).strip()
    if output:
        print(output)
    if result.returncode != 0:
        fail(f"{what} does not type-check against the shims (the compiler's diagnostics are above)")
    # The package's own code compiles without a warning in an Apple build too (dependencies' warnings are theirs).
    if OWN_WARNING.search(output):
        fail(f"{what} has warnings in an Apple build (above): the package's own code has none")


# --- the Apple view of a file -----------------------------------------------------------------------------
# A Linux compiler takes a file's Linux branches. Each file that tests the platform is copied under
# .build/apple-shims/views/<platform>/, line for line, with its `#if` and `#elseif` conditions as an Apple build
# evaluates them: Linux's C libraries and systems false, `os(macOS)` or `os(iOS)` true (one view each, where they
# differ). `canImport(Darwin)` and `canImport(MachO)` are true because the shims of those modules are on the include
# path; `canImport(FoundationNetworking)` is left as it is (true here), since Linux's URLSession lives there.
APPLE_FALSE = re.compile(r"canImport\((?:Glibc|Musl|Bionic|Android|WinSDK|WASILibc|ucrt)\)"
                         r"|os\((?:Linux|Android|Windows|FreeBSD|OpenBSD|WASI|Cygwin|Haiku|PS4|none)\)"
                         r"|_runtime\(_Native\)|targetEnvironment\((?:simulator|macCatalyst)\)")
APPLE_OS = re.compile(r"os\((macOS|OSX|iOS|tvOS|watchOS|visionOS)\)")
DIRECTIVE = re.compile(r"^(\s*#(?:if|elseif)\b)(.*)$", re.M)
PLATFORMS = ("macOS", "iOS")


def apple_view(text, platform):
    def condition(match):
        value = APPLE_FALSE.sub("false", match.group(2)).replace("_runtime(_ObjC)", "true")
        value = APPLE_OS.sub(lambda os_: "true" if os_.group(1) in (platform, "OSX" if platform == "macOS" else "") else "false", value)
        return match.group(1) + value
    return DIRECTIVE.sub(condition, text)


def viewed(sources, platform):
    """`sources` as an Apple build on `platform` sees them: (the paths to compile, the project's files whose view
    differs from what a Linux build compiles)."""
    paths, changed = [], []
    for source in sources:
        relative = os.path.relpath(os.path.realpath(source), ROOT)
        if not source.endswith(".swift") or relative.split(os.sep)[0] not in ("Sources", "Examples", "Tests"):
            paths.append(source)
            continue
        text = open(source, encoding="utf-8").read()
        view = apple_view(text, platform)
        if view == text:
            paths.append(source)
            continue
        path = os.path.join(VIEWS, platform, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as file:
            file.write(view)
        paths.append(path)
        changed.append(path)
    return paths, changed


# --- 1. the shim modules -----------------------------------------------------------------------------
shim_modules = sorted(os.path.basename(path) for path in glob.glob(os.path.join(SHIMS, "*")) if os.path.isdir(path))
if not shim_modules:
    fail("Shims/AppleSDK holds no shim module")
if "OAuthFlowApple" not in invocations:
    fail("the debug build has no OAuthFlowApple module: run `swift build --build-tests` first")
base, _ = checking(invocations["OAuthFlowApple"])
base = without_module_name(base)

shim_files = {name: sorted(glob.glob(os.path.join(SHIMS, name, "**", "*.swift"), recursive=True)) for name in shim_modules}
shim_imports = {}
for name, files in shim_files.items():
    text = "".join(open(file, encoding="utf-8").read() for file in files)
    shim_imports[name] = {other for other in re.findall(r"^\s*(?:@_exported\s+)?import\s+(\w+)", text, re.M) if other in shim_files}

shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
built = set()
while len(built) < len(shim_modules):
    ready = [name for name in shim_modules if name not in built and shim_imports[name] <= built]
    if not ready:
        fail(f"the shims import each other in a cycle: {sorted(set(shim_modules) - built)}")
    for name in ready:
        run(["swiftc", "-emit-module", "-module-name", name, "-emit-module-path", os.path.join(OUT, name + ".swiftmodule"),
             "-I", OUT] + base + shim_files[name], f"the shim {name}")
        built.add(name)

# --- the shims' own test: what an Apple build refuses is refused here ------------------------------------------
# scripts/fixtures/apple-typecheck: each file that names `expect:` lines must be refused in its macOS view, with an
# error or warning that quotes each of them (the two lines that once kept the package from building for Apple platforms
# are there), and each other file must type-check with no error and no warning. A shim that stopped refusing them fails
# the check.
FIXTURES = os.path.join(ROOT, "scripts", "fixtures", "apple-typecheck")
for fixture in sorted(glob.glob(os.path.join(FIXTURES, "*.swift"))):
    expected = re.findall(r"^// expect: (.+)$", open(fixture, encoding="utf-8").read(), re.M)
    view = os.path.join(VIEWS, "fixtures", os.path.basename(fixture))
    os.makedirs(os.path.dirname(view), exist_ok=True)
    with open(view, "w", encoding="utf-8") as file:
        file.write(apple_view(open(fixture, encoding="utf-8").read(), "macOS"))
    result = subprocess.run(["swiftc", "-typecheck", "-module-name", "Fixture", "-I", OUT] + base + [view],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    name = os.path.relpath(fixture, ROOT)
    findings = [line for line in result.stdout.splitlines() if re.search(r": (?:error|warning): ", line)]
    if expected:
        missing = [quoted for quoted in expected if not any(quoted in line for line in findings)]
        if missing:
            print(result.stdout.rstrip())
            fail(f"{name}: the shims no longer refuse what an Apple build refuses: {', '.join(missing)}")
    elif result.returncode != 0 or findings:
        print(result.stdout.rstrip())
        fail(f"{name}: what an Apple build compiles does not type-check cleanly against the shims")

# --- 2. every target with a file an Apple build compiles otherwise ------------------------------------------
# Each file that tests a condition the shims make true, or whose Apple view differs from the Linux build's, is
# type-checked in full in its Apple view, once as macOS sees it and again as iOS does where that differs.
condition = re.compile(r"canImport\((%s)\)|%s" % ("|".join(map(re.escape, shim_modules)), DEFINE))
covered_sources = set()
checked = []

# Compiled with every check: it fails unless the conditions the shims are to make true are true there, so that a
# check that sees no shim cannot pass unnoticed.
probe = os.path.join(OUT, "ShimProbe.swift")
with open(probe, "w", encoding="utf-8") as file:
    file.write("#if !(%s && %s)\n#error(\"apple-typecheck: this compile does not see the shims\")\n#endif\n"
               % (" && ".join(f"canImport({name})" for name in shim_modules), DEFINE))


def typecheck(module, flags, sources, primaries, platform):
    """Type-checks `primaries` in full, within the module `sources` make."""
    # The frontend job the driver runs for one file, made to type-check each of these files in full.
    driver = ["swiftc", "-typecheck", "-I", OUT, "-D", DEFINE, "-driver-print-jobs"] + flags + sources
    jobs = subprocess.run(driver, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    job = next((line for line in jobs.stdout.splitlines() if " -frontend " in line and " -typecheck" in line), None)
    if jobs.returncode != 0 or job is None:
        print(jobs.stdout.rstrip())
        fail(f"the compiler would not plan a type-check of {module}")
    frontend, words, skip, inputs = [], shlex.split(job), False, set(sources)
    for word in words:
        if skip:
            skip = False
        elif word in ("-primary-file", "-filelist", "-primary-filelist"):
            skip = True
        elif word not in inputs:
            frontend.append(word)
    with tempfile.NamedTemporaryFile("w", suffix=".filelist", delete=False) as filelist:
        filelist.write("\n".join(sources + [probe]) + "\n")
    try:
        command = frontend + ["-filelist", filelist.name]
        for primary in primaries + [probe]:
            command += ["-primary-file", primary]
        run(command, f"{module} ({platform})")
    finally:
        os.unlink(filelist.name)
    checked.append(f"{module} on {platform} ({len(primaries)} of {len(sources)} files)")


# Two modules first, whole, as modules in their macOS view, which the rest then see instead of the build's: OAuthFlowFiles,
# which re-exports the C library (Darwin, so that the launcher's calls meet Darwin's declarations), and OAuthFlowApple:
# what it declares only on Apple platforms (`KeychainTokenStore.init`, `SecureEnclaveDPoPKeys()`) is then there for the
# tests and examples that use it.
for first in ("OAuthFlowFiles", "OAuthFlowApple"):
    flags, sources = checking(invocations[first])
    first_sources, _ = viewed(sources, "macOS")
    run(["swiftc", "-emit-module", "-emit-module-path", os.path.join(OUT, first + ".swiftmodule"), "-I", OUT, "-D", DEFINE] + flags
        + first_sources + [probe], first)
    checked.append(f"{first} on macOS ({len(sources)} files)")

for module, args in sorted(invocations.items()):
    flags, sources = checking(args)
    covered_sources.update(os.path.realpath(source) for source in sources)
    views = {platform: viewed(sources, platform) for platform in PLATFORMS}
    mac, mac_changed = views["macOS"]
    ios, _ = views["iOS"]
    # The project's own files (a dependency's Apple branches are its own to check; a build's generated files test
    # nothing), in Sources/, Examples/ and Tests/ (where the docs' Apple-only examples are compiled).
    own = {source for source in sources if os.path.relpath(os.path.realpath(source), ROOT).split(os.sep)[0] in ("Sources", "Examples", "Tests")}
    primaries = [view for source, view in zip(sources, mac) if view in mac_changed
                 or (source in own and source.endswith(".swift") and condition.search(open(source, encoding="utf-8").read()))]
    if primaries and module not in ("OAuthFlowFiles", "OAuthFlowApple"):
        typecheck(module, flags, mac, primaries, "macOS")
    ios_primaries = [view for view, other in zip(ios, mac)
                     if view != other and open(view, encoding="utf-8").read() != open(other, encoding="utf-8").read()]
    if ios_primaries:
        typecheck(module, flags, ios, ios_primaries, "iOS")

# --- 3. examples that use OAuthFlowApple and that no target holds ------------------------------------------
examples = {}
for path in sorted(glob.glob(os.path.join(ROOT, "Examples", "**", "*.swift"), recursive=True)):
    relative = os.path.relpath(path, ROOT)
    parts = relative.split(os.sep)
    if os.path.realpath(path) in covered_sources or parts[-1] == "Package.swift" or "Tests" in parts:
        continue
    text = open(path, encoding="utf-8").read()
    if re.search(r"^\s*import\s+OAuthFlowApple\b", text, re.M) or condition.search(text):
        examples.setdefault(parts[1], []).append(path)
# A file that imports, outside any #if, a module neither Linux nor the shims have (SwiftUI views) is left out, and said.
toolchain = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("swiftc"))))
modules_dir = next((base[i + 1] for i, flag in enumerate(base[:-1]) if flag == "-I" and base[i + 1].endswith(os.sep + "Modules")), "")


def available(module):
    return module in shim_files or any(os.path.exists(os.path.join(folder, module + ".swiftmodule"))
                                       for folder in (os.path.join(toolchain, "lib", "swift", "linux"), modules_dir))


def unconditional_imports(text):
    depth, modules = 0, []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            depth += 1
        elif stripped.startswith("#endif"):
            depth -= 1
        elif depth == 0:
            found = re.match(r"(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", stripped)
            if found:
                modules.append(found.group(1))
    return modules


unchecked = []
for example, files in sorted(examples.items()):
    kept = []
    for file in files:
        missing = [module for module in unconditional_imports(open(file, encoding="utf-8").read()) if not available(module)]
        if missing:
            unchecked.append(f"{os.path.relpath(file, ROOT)} (imports {', '.join(missing)})")
        else:
            kept.append(file)
    files = kept
    if not files:
        continue
    name = re.sub(r"\W", "", example) + "TypeCheck"
    run(["swiftc", "-typecheck", "-module-name", name, "-I", OUT, "-D", DEFINE] + base + viewed(files, "macOS")[0] + [probe],
        f"Examples/{example}")
    checked.append(f"Examples/{example} ({len(files)} files)")

if not checked:
    fail("found no Apple-only line to type-check: the conditions above match nothing")
print(f"apple-typecheck: type-checked against the shims of {', '.join(shim_modules)}: {'; '.join(checked)} "
      f"in {time.monotonic() - started:.1f} s")
if unchecked:
    print(f"apple-typecheck: not type-checked (no shim of what they import): {'; '.join(unchecked)}")
PYTHON
