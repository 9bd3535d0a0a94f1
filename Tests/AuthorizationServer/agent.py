#!/usr/bin/env python3
"""A scripted user agent: signs in to the test server and consents, like a person would.

Usage: python agent.py [--deny] [--deliver] [--forge-first] AUTHORIZATION_URL
       python agent.py --user-code=CODE [--deny] VERIFICATION_URL

Logs in through the HTML login form (with its CSRF token), submits the consent form,
and prints the Location of the final redirect to the client's redirect URI without
fetching it. With --deny it refuses consent. With --deliver it then GETs that
Location, as a browser would, to hand the code to a loopback receiver. With
--forge-first it first sends the redirect URI a forged callback (wrong state),
as a hostile local process might, and fails unless that is refused.
It works as $BROWSER: the URL may come last or in place of %s.

With --user-code it plays the person on the other device of the device grant (RFC 8628):
signs in, types the code on DOT's device page and approves (or, with --deny, denies).
"""
import html
import re
import sys
from urllib.parse import parse_qs, urljoin, urlparse

import requests

# DOT's SQLite waits up to 30 s for a lock while the suite's parallel tests write: wait longer than that.
TIMEOUT = 60
USERNAME = "alice"
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
        page = session.get(login_url, timeout=TIMEOUT)
        form = hidden_fields(page.text)
        form.update({"username": USERNAME, "password": PASSWORD})
        response = session.post(login_url, data=form, headers={"Referer": login_url}, allow_redirects=False, timeout=TIMEOUT)
        if response.status_code != 302:
            sys.exit(f"login failed: HTTP {response.status_code}")
        response = session.get(urljoin(url, response.headers["Location"]), allow_redirects=False, timeout=TIMEOUT)
    return response


def device(url, user_code, deny):
    session = requests.Session()
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


def main():
    if "--help" in sys.argv[1:] or "-h" in sys.argv[1:] or not [arg for arg in sys.argv[1:] if not arg.startswith("--")]:
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    flags = {arg for arg in sys.argv[1:] if arg.startswith("--")}
    codes = [flag.split("=", 1)[1] for flag in flags if flag.startswith("--user-code=")]
    if codes:
        device([arg for arg in sys.argv[1:] if not arg.startswith("--")][-1], codes[0], "--deny" in flags)
        return
    url = [arg for arg in sys.argv[1:] if not arg.startswith("--")][-1]
    deny = "--deny" in flags
    deliver = "--deliver" in flags
    if "--forge-first" in flags:
        redirect_uri = parse_qs(urlparse(url).query)["redirect_uri"][0]
        forged = requests.get(redirect_uri + "?code=forged-code&state=forged-state", timeout=TIMEOUT)
        if forged.status_code != 400:
            sys.exit(f"the forged callback was not refused: HTTP {forged.status_code}")
    session = requests.Session()
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
    url = [arg for arg in sys.argv[1:] if not arg.startswith("--")][-1]
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
