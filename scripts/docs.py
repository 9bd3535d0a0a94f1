#!/usr/bin/env python3
"""The DocC documentation of each library product, built with warnings as errors, in .build/docs/<Module>.

Reads the modules of the last debug build (`swift build --build-tests`; nothing is compiled again), as
scripts/api-listing.py does and with its functions: the public symbol graphs of each product, with extension block
symbols so that what a product adds to another module's type (OAuthFlowLoopback's `OAuth.signIn(to:)`) is
documented with that product. Then the toolchain's own `docc convert` builds each product's catalog,
`Sources/<Module>/<Module>.docc`, over them (no swift-docc-plugin: no host has to fetch it).

    python3 scripts/docs.py                 # every product; fails on the first warning of any
    python3 scripts/docs.py OAuthFlowWeb    # the products named
    python3 -m http.server -d .build/docs/OAuthFlow   # then open /documentation/oauthflow

Each catalog is converted from a copy staged under a temporary directory with the articles its guides make written in
(scripts/docc-articles.py: the articles are never committed), so the prose is the guide's as it is now. It fails, printing DocC's diagnostics, when a product has no
catalog or DocC warns about anything (a ``Symbol`` link that does not resolve: DocC writes ``Type/member(label:)``,
not dots; a `doc:` link to an article or heading that is not in the catalog; a parameter documented that the
declaration lacks, or one left out of a `- Parameters:` list; an ambiguous link), and when a public top-level type
of a product is not placed under a heading of its landing page's `## Topics`.
"""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("api_listing", os.path.join(HERE, "api-listing.py"))
api_listing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_listing)
ROOT = api_listing.ROOT
_spec = importlib.util.spec_from_file_location("docc_articles", os.path.join(HERE, "docc-articles.py"))
docc_articles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docc_articles)


def catalog(module):
    return os.path.join(ROOT, "Sources", module, f"{module}.docc")


def top_level_symbols(module, graphs):
    """The public top-level declarations of the module (its own, not its extensions of other modules' types)."""
    graph = json.load(open(os.path.join(graphs, f"{module}.symbols.json"), encoding="utf-8"))
    return sorted(
        symbol["pathComponents"][0]
        for symbol in graph["symbols"]
        if len(symbol["pathComponents"]) == 1 and symbol["kind"]["identifier"] != "swift.extension"
    )


def uncurated(module, graphs):
    """The top-level declarations the landing page's `## Topics` does not link."""
    landing = os.path.join(catalog(module), f"{module}.md")
    text = open(landing, encoding="utf-8").read()
    topics = text.partition("\n## Topics\n")[2]
    # ``Name`` or ``Name-swift.struct`` (a disambiguated link); ``Name/Member`` places the member, not the type.
    linked = {re.sub(r"-swift\.\w+$", "", link) for link in re.findall(r"``([^`]+)``", topics)}
    return [name for name in top_level_symbols(module, graphs) if name not in linked]


def readable(output, module, staged, made):
    """DocC's diagnostics with each `--> FILE:LINE` named from the repository's root: a hand-written article's file in
    Sources/, and for an article made from a guide, the guide (DocC writes the paths from the staged catalog)."""
    def place(match):
        path = os.path.normpath(os.path.join(staged, match.group(2)))
        if path in made:
            return f"{match.group(1)}Docs/{made[path]} (its article {os.path.basename(path)}):"
        path = os.path.join(catalog(module), os.path.relpath(path, staged))
        return match.group(1) + os.path.relpath(path, ROOT) + ":"
    return re.sub(r"^(\s*--> )([^:\n]+):", place, output, flags=re.MULTILINE)


def build(module, build_folder, flags, scratch, made):
    """Extracts the module's graphs and converts its staged catalog: (module, seconds, problems as text)."""
    start = time.monotonic()
    graphs = os.path.join(scratch, module)
    os.makedirs(graphs)
    api_listing.extract(module, build_folder, flags, graphs, options=["-emit-extension-block-symbols"])
    if not os.path.isdir(catalog(module)):
        return module, time.monotonic() - start, f"no catalog: {os.path.relpath(catalog(module), ROOT)}\n"
    output = os.path.join(ROOT, ".build", "docs", module)
    shutil.rmtree(output, ignore_errors=True)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    staged = os.path.join(scratch, "catalogs", f"{module}.docc")
    command = [
        "docc", "convert", staged,
        "--additional-symbol-graph-dir", graphs,
        "--output-path", output,
        "--fallback-display-name", module,
        "--fallback-bundle-identifier", f"oauthflow.{module}",
        "--warnings-as-errors",
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    problems = ""
    if result.returncode != 0 or re.search(r"^(warning|error):", result.stderr + result.stdout, re.MULTILINE):
        problems = readable(result.stderr + result.stdout, module, staged, made) or f"docc exited {result.returncode}\n"
    missing = uncurated(module, graphs)
    if missing:
        problems += (
            f"error: {module}'s landing page (Sources/{module}/{module}.docc/{module}.md) places no link to "
            f"{', '.join(missing)} under a heading of its ## Topics\n"
        )
    return module, time.monotonic() - start, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="the products to document (all by default)")
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "debug"), help="the build folder")
    options = parser.parse_args()
    for tool in ("swift-symbolgraph-extract", "docc"):
        if shutil.which(tool) is None and os.path.isdir("/opt/swift/usr/bin"):
            os.environ["PATH"] = "/opt/swift/usr/bin:" + os.environ["PATH"]
    if shutil.which("docc") is None:
        raise SystemExit("error: docc is not on PATH (it comes with the Swift toolchain)")

    problems = docc_articles.check()
    if problems:
        sys.stderr.write("\n".join(problems) + "\n")
        return 1

    products = api_listing.products()
    modules = options.modules or products
    unknown = [module for module in modules if module not in products]
    if unknown:
        raise SystemExit(f"error: not a library product of Package.swift: {', '.join(unknown)}")
    flags = api_listing.compile_flags(options.build, set(modules))
    missing = [module for module in modules if module not in flags]
    if missing:
        raise SystemExit(f"error: not in the build plan (run `swift build --build-tests`): {', '.join(missing)}")

    start = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        made = docc_articles.stage(os.path.join(scratch, "catalogs"), [m for m in modules if os.path.isdir(catalog(m))])
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(lambda module: build(module, options.build, flags[module], scratch, made), modules))
    failed = []
    for module, seconds, problems in results:
        if problems:
            failed.append(module)
            sys.stderr.write(problems)
        print(f"{module}: {'FAILED' if problems else 'ok'} ({seconds:.1f} s) .build/docs/{module}", file=sys.stderr)
    print(f"docs: {len(modules) - len(failed)} of {len(modules)} products built in {time.monotonic() - start:.1f} s", file=sys.stderr)
    if failed:
        print(f"error: DocC found problems in {', '.join(failed)} (above); fix the doc comments or the catalogs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
