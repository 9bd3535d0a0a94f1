#!/usr/bin/env python3
"""What a consumer of this package resolves, held to a committed listing (the package traits, Docs/design.md).

Each folder of scripts/consumers/ holds the manifest of a scratch consumer (an Apple app with the defaults, a Vapor
server, a Hummingbird server, an MCP host, and Vapor alone to measure the Vapor server against). Each is copied under
.build/consumers/, made to depend on this checkout by path, and resolved with `swift package resolve` (no build); the
packages it pins are compared with its committed `packages.txt`, and with the budgets below:

- the app resolves at most 10 packages;
- the Vapor server resolves Vapor's own graph and at most 4 packages more, and no Hummingbird, MCP SDK or Prometheus;
- the Hummingbird server resolves no Vapor, MCP SDK or Prometheus; the MCP host neither server framework;
- each file of a target a trait gates is compiled under that trait as a whole, and the target's PackageTrait.swift says
  in one #error which trait it needs.

    python3 scripts/consumers.py           # resolve each, write the listings (commit them with the change)
    python3 scripts/consumers.py --check   # resolve each; fail on a listing that differs or a budget passed

A new dependency of the package shows in review as a changed listing, and fails the check until the listing is
written again. Resolution reads the packages the main build checked out already, so it takes seconds.
"""
import difflib
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONSUMERS = os.path.join(ROOT, "scripts", "consumers")
SCRATCH = os.path.join(ROOT, ".build", "consumers")
VAPOR_KITS = {"vapor", "async-kit", "console-kit", "multipart-kit", "routing-kit", "websocket-kit"}
HEADER = "# Packages a consumer of this checkout resolves (scripts/consumers.py); one identity a line.\n"
# The targets a trait gates, and the condition each of their files is compiled under: a file outside it would be
# compiled without its framework, and a consumer that has not enabled the trait would meet a wall of missing modules
# instead of PackageTrait.swift's one sentence.
GATED = {"OAuthFlowLoopback": "NIO", "OAuthFlowMCPAuth": "NIO", "OAuthFlowMCP": "MCP", "OAuthFlowPostgres": "Postgres",
         "OAuthFlowHummingbird": "Hummingbird", "OAuthFlowVapor": "Vapor", "OAuthFlowMCPHummingbird": "MCP && Hummingbird",
         "OAuthFlowMCPVapor": "MCP && Vapor", "oauthflow": "CLI"}


def gating_findings():
    """Each gated target's files, compiled only under its trait, and its PackageTrait.swift, which names the trait."""
    findings = []
    for module, condition in GATED.items():
        folder = os.path.join(ROOT, "Sources", module)
        requirement = os.path.join(folder, "PackageTrait.swift")
        if not os.path.exists(requirement) or f"#if !({condition})" not in open(requirement, encoding="utf-8").read():
            findings.append(f"Sources/{module}/PackageTrait.swift does not say in one #error that {module} needs {condition}")
        for base, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(".swift") or name == "PackageTrait.swift":
                    continue
                text = open(os.path.join(base, name), encoding="utf-8").read()
                if not text.startswith(f"#if {condition}\n") or not text.rstrip().endswith("#endif"):
                    findings.append(f"{os.path.relpath(os.path.join(base, name), ROOT)}: not compiled under `#if {condition}` as a whole")
    return findings


def resolve(name):
    """The identities of the packages the consumer `name` pins, sorted."""
    folder = os.path.join(SCRATCH, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "Sources", name))
    manifest = open(os.path.join(CONSUMERS, name, "Package.swift"), encoding="utf-8").read()
    # A package's identity is its path's last component, lowercased (whatever the clone's folder is called).
    manifest = manifest.replace("{{OAUTHFLOW}}", ROOT).replace("{{IDENTITY}}", os.path.basename(ROOT).lower())
    target = next(line.split('"')[1] for line in manifest.splitlines() if "name:" in line and "Consumer" in line)
    os.makedirs(os.path.join(folder, "Sources", target), exist_ok=True)
    with open(os.path.join(folder, "Package.swift"), "w", encoding="utf-8") as file:
        file.write(manifest)
    with open(os.path.join(folder, "Sources", target, "Empty.swift"), "w", encoding="utf-8") as file:
        file.write("// A consumer's sources: only its resolution is read.\n")
    result = subprocess.run(["swift", "package", "resolve"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise SystemExit(f"consumers: {name} does not resolve:\n{result.stdout}")
    pins = json.load(open(os.path.join(folder, "Package.resolved"), encoding="utf-8"))["pins"]
    return sorted(pin["identity"] for pin in pins)


def budget_findings(resolved):
    findings = []
    app = resolved["apple-app"]
    if len(app) > 10:
        findings.append(f"an app with the defaults resolves {len(app)} packages; at most 10")
    vapor, alone = set(resolved["vapor-server"]), set(resolved["vapor-alone"])
    if len(vapor - alone) > 4:
        findings.append(f"a Vapor server resolves {len(vapor - alone)} packages beyond Vapor's own graph; at most 4: {sorted(vapor - alone)}")
    for name, banned in (("vapor-server", {"hummingbird", "swift-sdk", "swift-prometheus", "hummingbird-auth"}),
                         ("hummingbird-server", VAPOR_KITS | {"swift-sdk", "swift-prometheus"}),
                         ("mcp-host", VAPOR_KITS | {"hummingbird", "hummingbird-auth", "swift-prometheus"})):
        if set(resolved[name]) & banned:
            findings.append(f"{name} resolves {sorted(set(resolved[name]) & banned)}, which it never enabled")
    return findings


def main():
    check = "--check" in sys.argv[1:]
    if shutil.which("swift") is None and os.path.exists("/opt/swift/usr/bin/swift"):
        os.environ["PATH"] = "/opt/swift/usr/bin:" + os.environ["PATH"]
    names = sorted(name for name in os.listdir(CONSUMERS) if os.path.isdir(os.path.join(CONSUMERS, name)))
    resolved = {name: resolve(name) for name in names}
    failed = False
    for name in names:
        listing = HEADER + "".join(identity + "\n" for identity in resolved[name])
        path = os.path.join(CONSUMERS, name, "packages.txt")
        if not check:
            with open(path, "w", encoding="utf-8") as file:
                file.write(listing)
            continue
        committed = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if committed != listing:
            failed = True
            print(f"consumers: {name} resolves other packages than {os.path.relpath(path, ROOT)} lists "
                  "(run `python3 scripts/consumers.py` and commit the listing with the change):")
            sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), listing.splitlines(True), "committed", "resolved"))
    findings = budget_findings(resolved) + gating_findings()
    for finding in findings:
        print(f"consumers: {finding}")
    summary = "; ".join(f"{name} {len(resolved[name])}" for name in names)
    if failed or findings:
        raise SystemExit(f"consumers: failed ({summary})")
    print(f"consumers: {'checked' if check else 'wrote'} {summary} packages")


if __name__ == "__main__":
    main()
