#!/usr/bin/env python3
"""The DocC articles made from the guides of Docs/: each guide's whole prose, in the catalogs that point at it.

Docs/*.md are the one place the guides are written (README.md and GitHub link to them, and the documentation tests
run their examples). Each is also a DocC article of one or more catalogs, made from it when documentation is built
and never committed: the catalogs in Sources/ hold only what is written for DocC (landing pages, GettingStarted.md),
and this script stages a copy of each with its guides' articles written in, which scripts/docs.py converts:

    python3 scripts/docc-articles.py                  # stage every catalog in .build/docc-catalogs
    python3 scripts/docc-articles.py --into DIR       # stage them in DIR (DIR/<Module>.docc)
    python3 scripts/docc-articles.py --check          # fail, naming it, on a guide that cannot be made an article
                                                      # or a generated article committed to a catalog

An article is the guide with, in this order: its `# Title` line; a notice naming the guide to edit; the rest of the
guide, its fenced blocks unchanged. In the prose, a link to a guide or to one of its headings (`[text](tokens.md)`,
`[text](tokens.md#heading)`, `[text](#heading)`) becomes a DocC link (`doc:TokenStorageAndRefresh#Heading`) when
that guide's article is in the same catalog, and plain text when it is not (DocC links within one catalog only);
a link to a file of the repository (`../Sources/...`, `../README.md`) becomes its text, since DocC has no
repository, save README.md's host code, which is the core catalog's <doc:GettingStarted>. A code span written with
two backticks so that it may hold one (``a `b` c``) is one DocC reads as a symbol link: it becomes single-backtick
spans around escaped backticks, which read the same. Footnotes, which DocC does not read, become `[name]` marks and
a list of the notes.

Every guide of Docs/ is an article of the core's catalog (OAuthFlow.docc); the other products' catalogs hold the
guides their landing pages name (GUIDES and CATALOGS below). A link to a heading that is not in its guide fails,
as a link to a guide that is not in Docs/ does.
"""

import argparse
import os
import re
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "Docs")
CORE = "OAuthFlow"

# Each guide of Docs/ and the name of its article (the file name in a catalog, and what <doc:...> links).
GUIDES = {
    "api-protection.md": "ProtectingAnAPI",
    "apple.md": "AppleApps",
    "benchmarks.md": "Benchmarks",
    "cli.md": "CommandLine",
    "conformance.md": "Conformance",
    "descriptor-format.md": "DescriptorFormat",
    "design.md": "Design",
    "flow.md": "FlowEngine",
    "host-code.md": "HostCode",
    "lint-rules.md": "LintRules",
    "logout.md": "SigningOut",
    "mcp.md": "MCPServers",
    "oidc.md": "OpenIDConnect",
    "operations.md": "Operations",
    "providers.md": "BundledProviders",
    "pushed-and-dpop.md": "PushedAuthorizationAndDPoP",
    "security-events.md": "SecurityEvents",
    "services.md": "TokensForServices",
    "sign-in-with-apple.md": "SignInWithApple",
    "signed-requests.md": "SignedRequestsAndResponses",
    "testing.md": "TestingAHost",
    "tokens.md": "TokenStorageAndRefresh",
    "web.md": "SignInForWebServers",
}

# The guides each product's catalog holds besides the core's, which holds them all: those its landing page names.
CATALOGS = {
    "OAuthFlowApple": ["apple.md"],
    "OAuthFlowHummingbird": ["web.md", "api-protection.md"],
    "OAuthFlowLint": ["lint-rules.md", "descriptor-format.md"],
    "OAuthFlowLoopback": ["flow.md", "host-code.md", "logout.md"],
    "OAuthFlowMCP": ["mcp.md"],
    "OAuthFlowMCPAuth": ["mcp.md"],
    "OAuthFlowMCPHummingbird": ["mcp.md"],
    "OAuthFlowMCPVapor": ["mcp.md"],
    "OAuthFlowPostgres": ["tokens.md"],
    "OAuthFlowSecurityEvents": ["security-events.md"],
    "OAuthFlowTesting": ["testing.md"],
    "OAuthFlowVapor": ["web.md", "api-protection.md"],
    "OAuthFlowWeb": ["web.md", "logout.md"],
}

# README.md's headings that an article of the core catalog holds (its host code is GettingStarted.md).
README_ARTICLES = {"one-configuration-then-one-call-per-task": "GettingStarted"}

# The notice's opening; the documentation tests tell a generated article by it.
NOTICE = "<!-- Generated from `Docs/{guide}` by `python3 scripts/docc-articles.py`: edit the guide, then run it. -->"
MARKER = "<!-- Generated from `Docs/"

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# A footnote (`text[^name]`, and `[^name]: the note` at the start of a line), which DocC does not read: the mark
# becomes `[name]` and each note an item of a list.
FOOTNOTE = re.compile(r"\[\^([\w.-]+)\](:)?")
LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)")


class GuideError(Exception):
    pass


def catalog(module):
    return os.path.join(ROOT, "Sources", module, f"{module}.docc")


def catalogs():
    """{module: [guide, ...]}: the core's holds every guide."""
    return {CORE: sorted(GUIDES), **CATALOGS}


def split_fences(text):
    """The guide's lines as (is_code, lines) runs: fenced blocks (fences included) and the prose between them."""
    runs, prose, code, fence = [], [], [], None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                if prose:
                    runs.append((False, prose))
                prose, code, fence = [], [line], match.group(1)
            else:
                prose.append(line)
        else:
            code.append(line)
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not match.group(2).strip():
                runs.append((True, code))
                code, fence = [], None
    if fence is not None:
        raise GuideError(f"a fence opened at `{code[0]}` is never closed")
    if prose:
        runs.append((False, prose))
    return runs


def code_spans(text):
    """The code spans of a run of prose, as (start, end, backticks) with end past the closing run."""
    spans, index = [], 0
    while True:
        start = text.find("`", index)
        if start < 0:
            return spans
        if start > 0 and text[start - 1] == "\\":
            index = start + 1
            continue
        run = len(text[start:]) - len(text[start:].lstrip("`"))
        ticks = "`" * run
        search = start + run
        while True:
            close = text.find(ticks, search)
            if close < 0:
                index = start + run   # no closing run of that length: the backticks are text
                break
            after = close + run
            if after < len(text) and text[after] == "`" or text[close - 1] == "`":
                search = close + 1
                while search < len(text) and text[search] == "`":
                    search += 1
                continue
            spans.append((start, after, run))
            index = after
            break


def plain(heading):
    """A heading's text as read: code spans and emphasis marks dropped, links as their text."""
    text = LINK.sub(lambda match: match.group(1), heading)
    return text.replace("`", "").replace("**", "")


def github_anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", plain(heading).lower()).replace(" ", "-")


def docc_anchor(heading):
    """DocC's fragment for a heading: each run of spaces and hyphens one hyphen, then punctuation dropped but for
    `_`, `|` and `=`; case kept (`[--id ID]` is `-id-ID`, `0.12.1` is `0121`)."""
    fragment = re.sub(r"[\s-]+", "-", plain(heading).strip())
    return "".join(c for c in fragment if c.isalnum() or c in "-_|=")


def headings(text):
    """{GitHub anchor: DocC fragment} of a guide's headings, out of its fenced blocks; GitHub numbers repeats."""
    anchors, seen = {}, {}
    for is_code, lines in split_fences(text):
        if is_code:
            continue
        for line in lines:
            match = HEADING.match(line)
            if not match:
                continue
            anchor = github_anchor(match.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            anchors[anchor if count == 0 else f"{anchor}-{count}"] = docc_anchor(match.group(2))
    return anchors


def title(guide, text):
    first = text.split("\n", 1)[0]
    match = HEADING.match(first)
    if not match or len(match.group(1)) != 1:
        raise GuideError(f"Docs/{guide} does not open with a `# Title` line")
    return match.group(2)


class Writer:
    """Makes the articles of one catalog from the guides it holds."""

    def __init__(self, module, guides, texts, anchors, readme_headings):
        self.module = module
        self.guides = set(guides)
        self.texts = texts
        self.anchors = anchors
        self.readme_headings = readme_headings

    def target(self, guide, destination, text):
        """What a link of `guide` to `destination` becomes: a DocC link, or its text alone."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", destination):
            return None   # https:, mailto: and the like stay as written
        path, _, anchor = destination.partition("#")
        if path == "":
            path = guide
        if path.startswith("../"):
            repository_path = os.path.normpath(path[3:])
            if repository_path == "README.md" and anchor in README_ARTICLES and self.module == CORE:
                return self.link(text, README_ARTICLES[anchor], None)
            if not os.path.exists(os.path.join(ROOT, repository_path)):
                raise GuideError(f"Docs/{guide} links to {destination}, which does not exist")
            if repository_path == "README.md" and text == "README":
                section = self.readme_headings.get(anchor)
                return "README.md" + (f", “{section}”" if section else "")
            return text
        if "/" in path or path not in GUIDES:
            raise GuideError(f"Docs/{guide} links to {destination}, which is not a guide of Docs/")
        fragment = None
        if anchor:
            fragment = self.anchors[path].get(anchor)
            if fragment is None:
                raise GuideError(f"Docs/{guide} links to {destination}: Docs/{path} has no heading with that anchor")
        if fragment is not None and docc_anchor(fragment) != fragment:
            # DocC reads a link's fragment as it reads a heading, and `ISSUER--id` reads as `ISSUER-id`: such a heading
            # cannot be linked, so the link goes to its article.
            fragment = None
        if path in self.guides:
            return self.link(text, GUIDES[path], fragment)
        # Not in this catalog: the words, and where the core's documentation has them.
        name = title(path, self.texts[path]).replace("`", "")
        if self.is_file_name(text, path):
            return f"“{name}” in OAuthFlow's documentation"
        return f"{text} (“{name}” in OAuthFlow's documentation)"

    @staticmethod
    def is_file_name(text, path):
        return text.strip("`") in (path, f"Docs/{path}")

    def link(self, text, article, fragment):
        destination = f"doc:{article}" + (f"#{fragment}" if fragment else "")
        if self.is_file_name(text, next((g for g, a in GUIDES.items() if a == article), "")) or text == "README":
            return f"<{destination}>"
        return f"[{text}]({destination})"

    def prose(self, guide, text):
        """A run of prose with its links and its two-backtick code spans rewritten."""
        spans = code_spans(text)
        out, index = [], 0

        def inside_span(position):
            return any(start <= position < end for start, end, _ in spans)

        pieces = []
        for match in LINK.finditer(text):
            if inside_span(match.start()):
                continue
            replacement = self.target(guide, match.group(2), match.group(1))
            line_start = text.rfind("\n", 0, match.start()) + 1
            if replacement is not None and text[line_start:].lstrip().startswith("|"):
                # In a table row a `|` ends the cell, even in a link: GFM reads `\|` as the character.
                replacement = replacement.replace("|", "\\|")
            if replacement is not None:
                pieces.append((match.start(), match.end(), replacement))
        for match in FOOTNOTE.finditer(text):
            if not inside_span(match.start()) and not any(s <= match.start() < e for s, e, _ in pieces):
                definition = match.group(2) is not None and (match.start() == 0 or text[match.start() - 1] == "\n")
                pieces.append((match.start(), match.end(), ("- " if definition else "") + f"\\[{match.group(1)}\\]"))
        for start, end, run in spans:
            if run >= 2 and not any(s <= start < e for s, e, _ in pieces):
                pieces.append((start, end, self.single_backticks(text[start + run:end - run])))
        for start, end, replacement in sorted(pieces):
            out.append(text[index:start])
            out.append(replacement)
            index = end
        out.append(text[index:])
        return "".join(out)

    @staticmethod
    def single_backticks(content):
        """A code span holding backticks as single-backtick spans around escaped backticks (``a `b` c``)."""
        if len(content) > 1 and content[0] == " " and content[-1] == " " and content.strip():
            content = content[1:-1]
        parts = []
        for number, piece in enumerate(content.split("`")):
            if number:
                parts.append("\\`")
            if piece.strip():
                parts.append(f"`{piece}`")
            else:
                parts.append(piece)
        return "".join(parts)

    def article(self, guide):
        text = self.texts[guide]
        heading = title(guide, text)
        body = text.split("\n", 1)[1] if "\n" in text else ""
        lines = []
        for is_code, run in split_fences(body):
            lines.append("\n".join(run) if is_code else self.prose(guide, "\n".join(run)))
        content = "\n".join(lines).lstrip("\n")
        return f"# {heading}\n\n{NOTICE.format(guide=guide)}\n\n{content}"


def expected():
    """{path of an article from the repository's root: its text}, for every catalog."""
    texts = {}
    for guide in sorted(os.listdir(DOCS)):
        if guide.endswith(".md"):
            texts[guide] = open(os.path.join(DOCS, guide), encoding="utf-8").read()
    missing = sorted(set(texts) - set(GUIDES))
    if missing:
        raise GuideError(f"{', '.join('Docs/' + g for g in missing)}: no article name in GUIDES of scripts/docc-articles.py")
    gone = sorted(set(GUIDES) - set(texts))
    if gone:
        raise GuideError(f"GUIDES of scripts/docc-articles.py names {', '.join(gone)}, not in Docs/")
    anchors = {guide: headings(text) for guide, text in texts.items()}
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    readme_headings = {github_anchor(match.group(2)): plain(match.group(2))
                       for is_code, lines in split_fences(readme) if not is_code
                       for match in map(HEADING.match, lines) if match}
    articles = {}
    for module, guides in catalogs().items():
        writer = Writer(module, guides, texts, anchors, readme_headings)
        for guide in guides:
            path = os.path.relpath(os.path.join(catalog(module), GUIDES[guide] + ".md"), ROOT)
            articles[path] = writer.article(guide)
    return articles


def committed():
    """{path: text} of the generated articles in the catalogs now (those that carry the notice)."""
    found = {}
    for module in sorted(os.listdir(os.path.join(ROOT, "Sources"))):
        folder = catalog(module)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.endswith(".md"):
                text = open(path, encoding="utf-8").read()
                lines = text.split("\n", 3)
                if len(lines) > 2 and lines[2].startswith(MARKER):
                    found[os.path.relpath(path, ROOT)] = text
    return found


def staged_catalogs():
    """The modules whose catalog is in Sources/ (Sources/<Module>/<Module>.docc)."""
    return [module for module in sorted(os.listdir(os.path.join(ROOT, "Sources"))) if os.path.isdir(catalog(module))]


def stage(into, modules=None):
    """Copies the catalog of each of `modules` (every catalog by default) to INTO/<Module>.docc and writes the
    articles its guides make in the copy. Returns {article's path in the copy: the guide it is made from}."""
    articles = expected()
    made = {}
    for module in modules or staged_catalogs():
        target = os.path.join(into, f"{module}.docc")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(catalog(module), target)
        for guide in catalogs().get(module, []):
            path = os.path.join(target, GUIDES[guide] + ".md")
            if os.path.exists(path):
                raise GuideError(f"{os.path.relpath(catalog(module), ROOT)}/{GUIDES[guide]}.md is written by hand, and "
                                 f"Docs/{guide}'s article takes that name")
            with open(path, "w", encoding="utf-8") as file:
                file.write(articles[os.path.relpath(os.path.join(catalog(module), GUIDES[guide] + ".md"), ROOT)])
            made[path] = guide
    return made


def check():
    """The problems, as lines for stderr: a guide that cannot be made an article, a catalog article written by hand
    under a guide's article name, or a generated article committed. None when there are none."""
    try:
        articles = expected()
    except GuideError as error:
        return [f"error: {error}"]
    problems = [f"error: {path} is a generated article: articles are made from Docs/ when documentation is built "
                f"(scripts/docs.py), not committed; remove it" for path in committed()]
    problems += [f"error: {path} is written by hand under the name of a guide's article (scripts/docc-articles.py, GUIDES)"
                 for path in sorted(articles) if os.path.exists(os.path.join(ROOT, path)) and path not in committed()]
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check the guides and that no generated article is committed")
    parser.add_argument("--into", default=os.path.join(ROOT, ".build", "docc-catalogs"),
                        help="where to stage the catalogs (default .build/docc-catalogs)")
    options = parser.parse_args()
    start = time.monotonic()
    problems = check()
    for line in problems:
        print(line, file=sys.stderr)
    if problems or options.check:
        if not problems:
            print(f"docc-articles: every guide makes its articles, none is committed ({time.monotonic() - start:.2f} s)",
                  file=sys.stderr)
        return 1 if problems else 0
    made = stage(options.into)
    print(f"docc-articles: {len(staged_catalogs())} catalogs staged in {os.path.relpath(options.into, os.getcwd())} with "
          f"{len(made)} articles ({time.monotonic() - start:.2f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
