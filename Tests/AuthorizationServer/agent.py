#!/usr/bin/env python3
"""A scripted user agent: signs in to the test server and consents, like a person would.

Usage: python agent.py [--deny] [--deliver] [--forge-first] [--cookies FILE] AUTHORIZATION_URL
       python agent.py --user-code=CODE [--deny] [--cookies FILE] VERIFICATION_URL
       python agent.py --end-session [--deliver] [--cookies FILE] END_SESSION_URL

Logs in through the HTML login form (with its CSRF token), submits the consent form,
and prints the Location of the final redirect to the client's redirect URI without
fetching it. With --deny it refuses consent. With --deliver it then GETs that
Location, as a browser would, to hand the code to a loopback receiver. With
--forge-first it first sends the redirect URI a forged callback (wrong state),
as a hostile local process might, and fails unless that is refused.
It works as $BROWSER: the URL may come last or in place of %s.

With --user-code it plays the person on the other device of the device grant (RFC 8628):
signs in, types the code on DOT's device page and approves (or, with --deny, denies).

With --end-session (or for a URL of DOT's end-session endpoint, /o/logout/, without
response_type: so one $BROWSER serves sign-in and logout) it follows an RP-Initiated Logout
URL, confirms the logout when DOT asks, and prints the Location of the redirect to the
post_logout_redirect_uri (DOT's own root without one); --deliver then GETs it.

With --cookies FILE (or --cookies=FILE) the browser's cookies, its session at DOT, are kept
in FILE between runs (created 0600): a second sign-in then needs no login, and a logout ends
it. Then, whenever it logs in, it prints "login form shown" to stderr. When it confirms a
logout, it prints "logout confirmation shown".
"""

import html
import http.cookiejar
import os
import re
import sys
from urllib.parse import parse_qs, urljoin, urlparse

import requests

# DOT's SQLite waits up to 30 s for a lock while the suite's parallel tests write: wait longer than that.
TIMEOUT = 60
USERNAME = "alice"
# Set when the cookies are kept (--cookies): only then is "login form shown" printed.
KEEPS_COOKIES = False
PASSWORD = "wonderland-test-password"


def hidden_fields(page):
    fields = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'name="([^"]*)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        kind = re.search(r'type="([^"]*)"', tag)
        if name and kind and kind.group(1) == "hidden":
            fields[html.unescape(name.group(1))] = html.unescape(value.group(1)) if value else ""
    return fields


def log_in(session, url):
    """GETs `url`, signing in first when the server sends the login form; returns the response."""
    response = session.get(url, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code == 302 and "/accounts/login/" in response.headers["Location"]:
        login_url = urljoin(url, response.headers["Location"])
        if KEEPS_COOKIES:
            print("login form shown", file=sys.stderr, flush=True)
        page = session.get(login_url, timeout=TIMEOUT)
        form = hidden_fields(page.text)
        form.update({"username": USERNAME, "password": PASSWORD})
        response = session.post(login_url, data=form, headers={"Referer": login_url}, allow_redirects=False, timeout=TIMEOUT)
        if response.status_code != 302:
            sys.exit(f"login failed: HTTP {response.status_code}")
        response = session.get(urljoin(url, response.headers["Location"]), allow_redirects=False, timeout=TIMEOUT)
    return response


def device(session, url, user_code, deny):
    page = log_in(session, url)
    if page.status_code != 200:
        sys.exit(f"the device page answered HTTP {page.status_code}")
    form = hidden_fields(page.text)
    form["user_code"] = user_code
    response = session.post(page.url, data=form, headers={"Referer": page.url}, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code != 302:
        sys.exit(f"the user code was not accepted: HTTP {response.status_code}")
    confirm_url = urljoin(page.url, response.headers["Location"])
    confirm = session.get(confirm_url, timeout=TIMEOUT)
    form = hidden_fields(confirm.text)
    form["action"] = "deny" if deny else "accept"
    response = session.post(confirm_url, data=form, headers={"Referer": confirm_url}, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code != 302:
        sys.exit(f"the decision was not taken: HTTP {response.status_code}")
    print("denied" if deny else "approved")


def end_session(session, url, deliver):
    """Follows an RP-Initiated Logout URL, confirming when DOT asks; prints the redirect."""
    response = session.get(url, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code == 200 and 'name="allow"' in response.text:
        print("logout confirmation shown", file=sys.stderr, flush=True)
        form = hidden_fields(response.text)
        form["allow"] = "Logout"
        response = session.post(response.url, data=form, headers={"Referer": response.url}, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code not in (301, 302, 303, 307):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.text)).strip()[:300]
        sys.exit(f"expected a redirect after the logout, got HTTP {response.status_code}: {text}")
    location = urljoin(url, response.headers["Location"])
    print(location)
    target = parse_qs(urlparse(url).query).get("post_logout_redirect_uri")
    if deliver and target:
        requests.get(location, timeout=TIMEOUT)


def arguments():
    """(flags, positional arguments, cookie jar path): --cookies takes the next argument or =FILE."""
    flags, words, cookies = set(), [], None
    args = sys.argv[1:]
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--cookies" and index + 1 < len(args):
            cookies = args[index + 1]
            index += 2
            continue
        if arg.startswith("--cookies="):
            cookies = arg.split("=", 1)[1]
        elif arg.startswith("--"):
            flags.add(arg)
        else:
            words.append(arg)
        index += 1
    return flags, words, cookies


def browser(cookies):
    """A requests session, its cookie jar kept in `cookies` (a file) when given."""
    session = requests.Session()
    if cookies:
        jar = http.cookiejar.LWPCookieJar(cookies)
        if os.path.exists(cookies) and os.path.getsize(cookies) > 0:
            jar.load(ignore_discard=True)
        session.cookies = jar
    return session


def keep(session, cookies):
    if cookies:
        os.close(os.open(cookies, os.O_WRONLY | os.O_CREAT, 0o600))
        os.chmod(cookies, 0o600)
        session.cookies.save(ignore_discard=True)
        os.chmod(cookies, 0o600)


def is_end_session(flags, url):
    if "--end-session" in flags:
        return True
    parts = urlparse(url)
    return parts.path.endswith("/logout/") and "response_type" not in parse_qs(parts.query)


def main():
    global KEEPS_COOKIES
    flags, words, cookies = arguments()
    KEEPS_COOKIES = bool(cookies)
    if "--help" in flags or "-h" in sys.argv[1:] or not words:
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    codes = [flag.split("=", 1)[1] for flag in flags if flag.startswith("--user-code=")]
    url = words[-1]
    session = browser(cookies)
    try:
        if codes:
            device(session, url, codes[0], "--deny" in flags)
            return
        if is_end_session(flags, url):
            end_session(session, url, "--deliver" in flags)
            return
        sign_in(session, url, flags)
    finally:
        keep(session, cookies)


def sign_in(session, url, flags):
    deny = "--deny" in flags
    deliver = "--deliver" in flags
    if "--forge-first" in flags:
        redirect_uri = parse_qs(urlparse(url).query)["redirect_uri"][0]
        forged = requests.get(redirect_uri + "?code=forged-code&state=forged-state", timeout=TIMEOUT)
        if forged.status_code != 400:
            sys.exit(f"the forged callback was not refused: HTTP {forged.status_code}")
    response = log_in(session, url)
    if response.status_code == 200:
        form = hidden_fields(response.text)
        if not deny:
            form["allow"] = "Authorize"
        response = session.post(response.url, data=form, headers={"Referer": response.url}, allow_redirects=False, timeout=TIMEOUT)
    if response.status_code not in (301, 302, 303, 307):
        sys.exit(f"expected a redirect to the client, got HTTP {response.status_code}")
    location = response.headers["Location"]
    print(location)
    if deliver:
        requests.get(location, timeout=TIMEOUT)


def fail_fast():
    """As $BROWSER (--deliver), a failure must not leave the loopback receiver waiting for minutes:
    deliver an error callback with the request's own state, so the sign-in ends at once, saying why."""
    reason = sys.exc_info()[1]
    flags, words, _ = arguments()
    if not words or is_end_session(flags, words[-1]):
        return
    url = words[-1]
    query = parse_qs(urlparse(url).query)
    if "redirect_uri" in query and "state" in query:
        params = {"error": "server_error", "error_description": f"the test agent failed: {reason}"[:300],
                  "state": query["state"][0]}
        try:
            requests.get(query["redirect_uri"][0], params=params, timeout=TIMEOUT)
        except requests.RequestException:
            pass


if __name__ == "__main__":
    try:
        main()
    except BaseException as error:
        if "--deliver" in sys.argv and not isinstance(error, KeyboardInterrupt):
            fail_fast()
        raise
