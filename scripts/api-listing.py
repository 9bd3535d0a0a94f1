#!/usr/bin/env python3
"""The public API of each library product, one declaration per line, in api/<Module>.txt, and its package API (what
the package's other targets, the CLI and the tests among them, may use) in api/<Module>.package.txt.

Reads the modules of the last debug build (`swift build --build-tests`; nothing is compiled again):
`swift-symbolgraph-extract` at public access, with the C module maps each target was compiled with
(from .build/debug.yaml), rendered as sorted text a reviewer can read and a diff can show.

    python3 scripts/api-listing.py          # rewrite api/*.txt after a change to the public API
    python3 scripts/api-listing.py --check  # fail with a diff when api/*.txt and the build differ

The products are the `.library` entries of Package.swift. A line is a declaration with its parent's
name in front (`func OAuthClient.refresh(...)`), a type with its conformances, and a member of a
constrained or protocol extension with that extension after it.

Each listing's third line is its budget: `// Budget: at most T public top-level types, N public types with the nested
ones, and D public declarations.` (`package` in a package listing): a type nested in another (`OAuth.Configuration`)
counts in N as any type does, so that nesting does not hide one. A rewrite keeps it (a new product's budget starts
at what it has); `--check` fails
when a product is past its budget, even when its listing is current. Raise a budget only by editing that line, in a
commit that says why. A product with no `package` declaration has no package listing. A member written `public` in a
`package` type is package API, and is listed and counted there.
"""

import argparse
import concurrent.futures
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET_LINE = "// Budget: at most {} {access} top-level types, {} {access} types with the nested ones, and {} {access} declarations."
# A budget written before nested types counted has no middle number: it starts at what the product has.
BUDGET = re.compile(
    r"^// Budget: at most (\d+) (?:public|package) top-level types(?:, (\d+) (?:public|package) types with the nested ones,)? and (\d+) "
    r"(?:public|package) declarations\.$", re.MULTILINE)
# The listings: each access level, its file's suffix and the level of the symbols it lists.
LEVELS = (("public", ".txt"), ("package", ".package.txt"))
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor", "swift.typealias"}
# Conformances every type has or that Sendable implies: listing them would only be noise.
IMPLIED = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype"}


def products():
    text = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read()
    return sorted(re.findall(r'\.library\(name:\s*"([^"]+)"', text))


def compile_flags(build, modules):
    """The -Xcc flags (C module maps and their include folders) each module was compiled with."""
    flags = {}
    with open(os.path.join(ROOT, ".build", "debug.yaml"), encoding="utf-8") as plan:
        for line in plan:
            line = line.strip()
            if not line.startswith("args: [") or '"-emit-module"' not in line:
                continue
            match = re.search(r'"-module-name","([^"]+)"', line)
            if not match or match.group(1) not in modules:
                continue
            args = json.loads(line[len("args: "):])
            flags[match.group(1)] = [
                value for index, arg in enumerate(args[:-1]) if arg == "-Xcc" for value in ("-Xcc", args[index + 1])
            ]
    return flags


def extract(module, build, flags, out, options=(), access="public"):
    """The module's symbol graphs at `access` and above in `out`; `options` are more swift-symbolgraph-extract flags
    (scripts/docs.py adds `-emit-extension-block-symbols`)."""
    target = os.path.basename(os.path.realpath(os.path.join(build, "..")))
    command = [
        "swift-symbolgraph-extract", "-module-name", module, "-target", target,
        "-I", os.path.join(build, "Modules"), "-minimum-access-level", access,
        "-skip-synthesized-members", "-output-dir", out,
    ] + list(options) + flags
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"error: swift-symbolgraph-extract failed for {module}:\n{result.stderr}")


def spell(fragments):
    return re.sub(r"\s+", " ", "".join(fragment["spelling"] for fragment in fragments)).strip()


def qualify(fragments, parent):
    """The declaration with the parent's name before its own: `func OAuthClient.refresh(...)`."""
    if not parent:
        return spell(fragments)
    out, done = [], False
    for fragment in fragments:
        spelling = fragment["spelling"]
        if not done and (fragment["kind"] == "identifier" or spelling in ("init", "subscript")):
            spelling, done = f"{parent}.{spelling}", True
        out.append({"spelling": spelling})
    return spell(out)


def constraint(item):
    operator = {"conformance": ":", "superclass": ":", "sameType": "=="}.get(item["kind"], item["kind"])
    return f'{item["lhs"]} {operator} {item["rhs"]}'


def listing(module, directory, access="public"):
    """The listing of the symbols at exactly `access` in the graphs in `directory`, how many are top-level types, and how
    many are types at all (nested ones included)."""
    symbols, relationships, every = {}, [], []
    for name in sorted(os.listdir(directory)):
        if name == f"{module}.symbols.json" or name.startswith(f"{module}@"):
            graph = json.load(open(os.path.join(directory, name), encoding="utf-8"))
            every += graph["symbols"]
            relationships += graph["relationships"]
    # A member written `public` in a `package` type is package API: its access is the lowest on its path. (The public
    # graphs leave such a member out; the package graphs give it `public`, and its type `package`.)
    type_access = {tuple(s["pathComponents"]): s.get("accessLevel", "public") for s in every if s["kind"]["identifier"] in TYPE_KINDS}
    for symbol in every:
        path = symbol["pathComponents"]
        levels = [symbol.get("accessLevel", "public")] + [type_access.get(tuple(path[:end]), "public") for end in range(1, len(path))]
        if ("package" if "package" in levels else "public") == access:
            symbols[symbol["identifier"]["precise"]] = symbol

    conformances = {}
    for relation in relationships:
        if relation["kind"] != "conformsTo" or (access != "public" and relation["source"] not in symbols):
            continue
        target = symbols.get(relation["target"])
        name = ".".join(target["pathComponents"]) if target else relation.get("targetFallback", relation["target"])
        if name in IMPLIED:
            continue
        name = name.removeprefix("Swift.")
        if relation.get("swiftConstraints"):
            name += " where " + ", ".join(constraint(item) for item in relation["swiftConstraints"])
        conformances.setdefault(relation["source"], set()).add(name)

    rows, top_level, types = [], 0, 0
    for precise, symbol in symbols.items():
        path = symbol["pathComponents"]
        kind = symbol["kind"]["identifier"]
        extension = symbol.get("swiftExtension", {})
        parent = ".".join(path[:-1])
        if extension.get("extendedModule") not in (None, module) and parent:
            parent = f'{extension["extendedModule"]}.{parent}'
        line = qualify(symbol["declarationFragments"], parent)
        if kind in TYPE_KINDS:
            top_level += len(path) == 1
            types += 1
            # A protocol's declaration already names what it refines; a type's conformances go before
            # its generic `where` clause.
            if precise in conformances and kind != "swift.protocol":
                head, where, tail = line.partition(" where ")
                line = head + ": " + ", ".join(sorted(conformances[precise])) + where + tail
            owner, order = path, 0
        else:
            owner, order = path[:-1], 1
            notes = []
            if extension.get("typeKind") == "swift.protocol":
                notes.append("protocol extension")
            if extension.get("constraints"):
                notes.append("where " + ", ".join(constraint(item) for item in extension["constraints"]))
            if notes:
                line += "  // " + ", ".join(notes)
        if any(entry.get("isUnconditionallyDeprecated") or "deprecated" in entry for entry in symbol.get("availability", [])):
            line += "  // deprecated"
        rows.append(((owner, order, line), line))
    # Conformances of other modules' types added here (`extension URLSession: HTTPTransport`).
    for source, names in conformances.items():
        if source not in symbols:
            fallback = next(
                (r.get("sourceFallback") for r in relationships if r["source"] == source and r.get("sourceFallback")),
                source,
            )
            if fallback.startswith("s:"):
                # A type with no fallback name is named by its USR (`s:9OAuthFlow17ProtectedResourceC9PrincipalV`).
                fallback = subprocess.run(
                    ["swift-demangle", "--simplified", "--compact", "$s" + fallback[2:]], capture_output=True, text=True
                ).stdout.strip() or fallback
            line = f"extension {fallback}: " + ", ".join(sorted(names))
            rows.append((([fallback], 0, line), line))

    rows.sort(key=lambda row: row[0])
    header = [
        f"// The {access} API of {module}, generated by scripts/api-listing.py from the debug build: do not edit.",
        f"// {top_level} {access} top-level types, {types} {access} types with the nested ones, {len(rows)} {access} declarations.",
    ]
    return "\n".join(header + [line for _, line in rows]) + "\n", (top_level, types)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with api/*.txt instead of writing it")
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "debug"), help="the build folder")
    options = parser.parse_args()
    if shutil.which("swift-symbolgraph-extract") is None and os.path.isdir("/opt/swift/usr/bin"):
        os.environ["PATH"] = "/opt/swift/usr/bin:" + os.environ["PATH"]

    modules = products()
    flags = compile_flags(options.build, set(modules))
    missing = [module for module in modules if module not in flags]
    if missing:
        raise SystemExit(f"error: not in the build plan (run `swift build --build-tests`): {', '.join(missing)}")

    api = os.path.join(ROOT, "api")
    with tempfile.TemporaryDirectory() as scratch:
        def one(job):
            module, access = job
            out = os.path.join(scratch, module, access)
            os.makedirs(out)
            extract(module, options.build, flags[module], out, access=access)
            return job, listing(module, out, access)

        jobs = [(module, access) for module in modules for access, _ in LEVELS]
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = dict(pool.map(one, jobs))

    drifted, over, written = [], [], set()
    for (module, access), (listed_text, count) in results.items():
        name = module + dict(LEVELS)[access]
        path = os.path.join(api, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        (top_level, types), declarations = count, len(listed_text.splitlines()) - 2
        if access != "public" and declarations == 0 and not old:
            continue
        written.add(name)
        budget = BUDGET.search(old)
        limit = (
            (int(budget.group(1)), int(budget.group(2)) if budget.group(2) else types, int(budget.group(3)))
            if budget else (top_level, types, declarations))
        if top_level > limit[0] or types > limit[1] or declarations > limit[2]:
            over.append(
                f"{name}: {top_level} top-level types, {types} types with the nested ones and {declarations} {access} declarations, "
                f"past its budget of {limit[0]}, {limit[1]} and {limit[2]}")
        head, _, rest = listed_text.partition("\n")
        second, _, rest = rest.partition("\n")
        # A listing written before budgets is checked as it is, and gets its budget when it is next written.
        text = "\n".join([head, second, BUDGET_LINE.format(*limit, access=access), rest]) if budget or not options.check else listed_text
        if options.check:
            if old != text:
                drifted.append(name)
                sys.stdout.writelines(
                    difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"api/{name}", "the build")
                )
        else:
            os.makedirs(api, exist_ok=True)
            if old != text:
                with open(path, "w", encoding="utf-8") as file:
                    file.write(text)
            print(f"{name}: {top_level} {access} top-level types, {types} with the nested ones, {declarations} declarations")
    listed = {name for name in (os.listdir(api) if os.path.isdir(api) else []) if name.endswith(".txt")}
    stale = sorted(listed - written)
    for line in over:
        print(f"error: {line}: remove declarations, or raise the budget in api/ in a commit that says why", file=sys.stderr)
    if over:
        return 1
    if options.check:
        if stale:
            drifted += stale
            print(f"api/ lists what is no longer a product: {', '.join(stale)}")
        if drifted:
            print(
                f"error: the public API differs from api/ ({', '.join(drifted)}); review the diff above, "
                "then run `python3 scripts/api-listing.py` and commit api/",
                file=sys.stderr,
            )
            return 1
    else:
        for name in stale:
            os.remove(os.path.join(api, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
