#!/usr/bin/env python3
"""A scripted user agent for the logout test server (server.py): it signs in and logs out like a
person at a browser would.

Usage: python agent.py [signin|endsession] [options] URL

  signin URL      follows the authorization URL, logging in when the login form appears, and
                  prints the final redirect to the client's redirect URI (the request's
                  redirect_uri) without fetching it.
  endsession URL  follows the end-session URL, confirming the logout when asked (and loading the
                  front-channel logout iframes, as a browser does), and prints the final redirect
                  to the post-logout redirect URI (or, without one, the server's logged-out page).
  Without a mode, a URL with response_type is a sign-in and any other an end-session: so the
  agent works as $BROWSER for both (the URL last, or in place of %s).

Options:
  --deliver        then GET the printed URL, as a browser would (hands the code, or the return
                   from logout, to the application's loopback receiver)
  --cookies FILE   keep the server's cookies in FILE between runs (a persistent cookie jar, 0600):
                   the browser's session at the server, for single sign-on and logout
  --user NAME      who logs in when asked (default alice)
  --password PW    their password (default: from the server's logout-server.json)
  --server FILE    that logout-server.json (default: $OAUTHFLOW_TEST_LOGOUT_OP)

Prints "login form shown" to stderr when it had to log in (so a test can tell that a sign-in asked
for credentials), "logout confirmation shown" when it confirmed a logout, and each front-channel
logout URI it loaded. Exits non-zero, saying why, on any failure; every request has a total
timeout.
"""
import argparse
import html
import http.cookiejar
import json
import os
import re
import signal
import sys
import time
from contextlib import contextmanager
from urllib.parse import parse_qs, urljoin, urlsplit

import requests

REQUEST_TIMEOUT = 75  # seconds, each request in all: more than the server's DELIVERY_TIMEOUT,
# since an end-session request is answered only after the back-channel deliveries it makes
TOTAL_TIMEOUT = 240  # seconds, the whole run
MAX_STEPS = 20


class Failure(Exception):
    pass


_deadlines = []  # [(time.monotonic() it is due, what to say)], nested blocks' deadlines


def _arm():
    signal.setitimer(signal.ITIMER_REAL, 0)
    if _deadlines:
        soonest = min(due for due, _ in _deadlines)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, soonest - time.monotonic()))


def _expired(signum, frame):
    raise Failure(min(_deadlines)[1] if _deadlines else "timed out")


@contextmanager
def deadline(seconds, what):
    """Raises Failure when the block takes longer than `seconds` (a total timeout: requests' own
    timeout bounds each socket operation, not the request). Blocks nest: the soonest deadline wins."""
    entry = (time.monotonic() + seconds, f"{what} took more than {seconds} s")
    _deadlines.append(entry)
    signal.signal(signal.SIGALRM, _expired)
    _arm()
    try:
        yield
    finally:
        _deadlines.remove(entry)
        _arm()


def fetch(session, method, url, **kwargs):
    with deadline(REQUEST_TIMEOUT, f"{method} {url}"):
        try:
            return session.request(method, url, allow_redirects=False, timeout=(5, REQUEST_TIMEOUT), **kwargs)
        except requests.RequestException as err:
            raise Failure(f"{method} {url} failed: {err}")


# --- pages ---------------------------------------------------------------------------------------
def attributes(tag):
    return {name.lower(): html.unescape(value) for name, value in re.findall(r'([A-Za-z_:-]+)="([^"]*)"', tag)}


def forms(page):
    """[(attributes of the form, [attributes of each input and button])] of an HTML page."""
    found = []
    for match in re.finditer(r"<form\b([^>]*)>(.*?)</form>", page, re.S | re.I):
        fields = [attributes(tag) for tag in re.findall(r"<(?:input|button)\b[^>]*>", match.group(2), re.I)]
        found.append((attributes(match.group(1)), fields))
    return found


def submit(session, page_url, form, values):
    """POSTs a form: its fields with values, plus `values`."""
    attrs, fields = form
    data = {}
    for field in fields:
        name = field.get("name")
        kind = field.get("type", "text").lower()
        if name and kind not in ("submit", "button") and field.get("value") is not None:
            data[name] = field["value"]
    data.update(values)
    action = urljoin(page_url, attrs.get("action") or page_url)
    return fetch(session, "POST", action, data=data, headers={"Referer": page_url})


def text_of(page):
    text = re.sub(r"<[^>]+>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(text)).strip()[:300]


# --- URIs ----------------------------------------------------------------------------------------
def same_place(url, target):
    """Whether url is target (scheme, host, port and path; the query may add to it)."""
    a, b = urlsplit(url), urlsplit(target)
    return (a.scheme, a.hostname, a.port, a.path or "/") == (b.scheme, b.hostname, b.port, b.path or "/")


def origin(url):
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port


# --- the walk ------------------------------------------------------------------------------------
def walk(session, url, target, credentials, ending):
    """Follows url through the server's pages until a redirect reaches `target` (or, for an
    end-session without one, leaves the server or ends on its logged-out page); returns that URL
    and whether it was fetched already."""
    server = origin(url)
    response = fetch(session, "GET", url)
    logged_in = False
    for _ in range(MAX_STEPS):
        if response.status_code in (301, 302, 303, 307, 308):
            location = urljoin(response.url, response.headers.get("Location", ""))
            if (target and same_place(location, target)) or origin(location) != server:
                if target and not same_place(location, target):
                    raise Failure(f"redirected to {location}, not to {target}")
                return location, False
            response = fetch(session, "GET", location)
            continue
        page = response.text
        if response.status_code not in (200, 401):
            raise Failure(f"HTTP {response.status_code} at {response.url}: {text_of(page)}")
        found = forms(page)
        login = [f for f in found if any(field.get("type") == "password" for field in f[1])]
        if login:
            if logged_in:
                raise Failure(f"the login was refused: {text_of(page)}")
            user, password = credentials()
            print("login form shown", file=sys.stderr, flush=True)
            logged_in = True
            response = submit(session, response.url, login[0], {"username": user, "password": password})
            continue
        if ending:
            confirm = [f for f in found if f[0].get("id") == "logout" or any(x.get("name") == "sjwt" for x in f[1])]
            if confirm:
                print("logout confirmation shown", file=sys.stderr, flush=True)
                response = submit(session, response.url, confirm[0], {"logout": "yes"})
                continue
            frames = [attributes(tag).get("src") for tag in re.findall(r"<iframe\b[^>]*>", page, re.I)]
            frames = [urljoin(response.url, src) for src in frames if src]
            if frames:
                # A browser loads each front-channel logout URI in its iframe, then goes on.
                for src in frames:
                    try:
                        loaded = fetch(session, "GET", src)
                        print(f"front-channel logout: {src} -> HTTP {loaded.status_code}", file=sys.stderr, flush=True)
                    except Failure as err:
                        print(f"front-channel logout: {err}", file=sys.stderr, flush=True)
                links = [attributes(tag) for tag in re.findall(r"<a\b[^>]*>", page, re.I)]
                onward = [a.get("href") for a in links if a.get("id") == "continue" and a.get("href")]
                if not onward:
                    raise Failure("the front-channel logout page has no way on")
                location = urljoin(response.url, onward[0])
                if (target and same_place(location, target)) or origin(location) != server:
                    return location, False
                response = fetch(session, "GET", location)
                continue
            if response.status_code == 200 and not target:
                return response.url, True  # the server's own logged-out page, fetched
        raise Failure(f"unexpected page at {response.url} (HTTP {response.status_code}): {text_of(page)}")
    raise Failure(f"more than {MAX_STEPS} steps")


# --- the cookie jar ------------------------------------------------------------------------------
def open_jar(path):
    jar = http.cookiejar.LWPCookieJar(path)
    if path and os.path.exists(path) and os.path.getsize(path) > 0:
        try:
            jar.load(ignore_discard=True, ignore_expires=False)
        except (OSError, http.cookiejar.LoadError) as err:
            raise Failure(f"cannot read the cookie jar {path}: {err}")
    return jar


def save_jar(jar, path):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.close(descriptor)
    os.chmod(path, 0o600)
    jar.save(ignore_discard=True, ignore_expires=False)
    os.chmod(path, 0o600)


# --- main ----------------------------------------------------------------------------------------
def parse(argv):
    parser = argparse.ArgumentParser(add_help=True, description="see the module's docstring")
    parser.add_argument("words", nargs="+", help="[signin|endsession] URL")
    parser.add_argument("--deliver", action="store_true")
    parser.add_argument("--cookies")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--password")
    parser.add_argument("--server", default=os.environ.get("OAUTHFLOW_TEST_LOGOUT_OP"))
    args = parser.parse_intermixed_args(argv)
    words = args.words
    if len(words) == 2 and words[0] in ("signin", "endsession"):
        args.mode, args.url = words
    elif len(words) == 1:
        query = parse_qs(urlsplit(words[0]).query)
        args.mode, args.url = ("signin" if "response_type" in query else "endsession"), words[0]
    else:
        parser.error("expected [signin|endsession] URL")
    if urlsplit(args.url).scheme not in ("http", "https"):
        parser.error(f"not an http URL: {args.url}")
    return args


def main(argv):
    args = parse(argv)

    def credentials():
        if args.password:
            return args.user, args.password
        if not args.server:
            raise Failure("the login form appeared, but there is no password: pass --password, or --server "
                          "logout-server.json (or set OAUTHFLOW_TEST_LOGOUT_OP)")
        try:
            with open(args.server) as handle:
                users = json.load(handle)["users"]
        except (OSError, ValueError, KeyError) as err:
            raise Failure(f"cannot read the users from {args.server}: {err}")
        if args.user not in users:
            raise Failure(f"no user {args.user} in {args.server}")
        return args.user, users[args.user]

    query = parse_qs(urlsplit(args.url).query)
    if args.mode == "signin":
        target = (query.get("redirect_uri") or [None])[0]
        if not target:
            raise Failure("the authorization URL has no redirect_uri")
    else:
        target = (query.get("post_logout_redirect_uri") or [None])[0]

    session = requests.Session()
    jar = open_jar(args.cookies)
    session.cookies = jar
    try:
        with deadline(TOTAL_TIMEOUT, "the whole run"):
            location, fetched = walk(session, args.url, target, credentials, args.mode == "endsession")
    finally:
        if args.cookies:
            save_jar(jar, args.cookies)
    print(location, flush=True)
    if args.deliver and not fetched:
        with deadline(REQUEST_TIMEOUT, f"GET {location}"):
            try:
                requests.get(location, timeout=(5, REQUEST_TIMEOUT))
            except requests.RequestException as err:
                raise Failure(f"delivering {location} failed: {err}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Failure as failure:
        print(f"agent: {failure}", file=sys.stderr)
        sys.exit(1)
