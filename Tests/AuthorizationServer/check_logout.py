"""Exercises RP-Initiated Logout at a running Django OAuth Toolkit test server with the scripted user
agent (agent.py), its cookie jar kept between runs:

    python check_logout.py http://127.0.0.1:PORT STATE_DIR

Discovery's end_session_endpoint; a sign-in that logs in, a second that does not (the same
browser); RP-initiated logout with a valid id_token_hint (no prompt), post_logout_redirect_uri on
any loopback port, state returned, --deliver; the next sign-in logs in again; a logout without
id_token_hint (DOT asks, the agent confirms); a browser with no session at DOT (sent back at once);
refused requests; the tokens of the application stay valid (DOT deletes none); the agent's old
modes unchanged. Prints one line per check, exits 1 on the first failure.
"""

import base64
import hashlib
import json
import os
import secrets
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent.py")
PUBLIC = "oauthflow-public"
CONFIDENTIAL = "oauthflow-confidential"
CONFIDENTIAL_SECRET = "confidential-test-secret-0123456789"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"ok   {message}")


def expect(condition, message, detail=None):
    if not condition:
        fail(message + (f": {detail}" if detail is not None else ""))
    ok(message)


def request(url, form=None, headers=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as err:
        body = err.read()
        try:
            return err.code, json.loads(body)
        except ValueError:
            return err.code, body.decode(errors="replace")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def query_of(url):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items()}


class Receiver:
    """A loopback receiver: records the GETs (callbacks, post-logout returns)."""

    def __init__(self):
        self.paths = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                owner.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


class Check:
    def __init__(self, base, state):
        self.base = base.rstrip("/")
        self.jars = os.path.join(state, "logout-check")
        os.makedirs(self.jars, exist_ok=True)
        self.jar = os.path.join(self.jars, "browser")

    def agent(self, *args):
        done = subprocess.run([sys.executable, AGENT] + list(args), capture_output=True, text=True, timeout=200)
        return done.returncode, done.stdout.strip(), done.stderr

    def sign_in(self, client_id, redirect_uri, jar=None, secret=None):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state, nonce = secrets.token_urlsafe(8), secrets.token_urlsafe(8)
        url = self.base + "/o/authorize/?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
            "scope": "openid profile", "state": state, "nonce": nonce,
            "code_challenge": challenge, "code_challenge_method": "S256"})
        status, out, err = self.agent(*(["--cookies", jar] if jar else []), url)
        if status != 0:
            fail(f"sign-in failed: {err.strip()}")
        answer = query_of(out)
        expect(out.startswith(redirect_uri) and answer.get("state") == state and "code" in answer,
               f"{client_id}: signed in", out)
        form = {"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": redirect_uri,
                "code_verifier": verifier, "client_id": client_id}
        if secret:
            form["client_secret"] = secret
        status, tokens = request(self.base + "/o/token/", form)
        expect(status == 200 and tokens.get("id_token"), f"{client_id}: code redeemed", tokens)
        return tokens, "login form shown" in err

    def end_session_url(self, **params):
        return self.base + "/o/logout/?" + urllib.parse.urlencode(params)

    def run(self):
        status, discovery = request(self.base + "/o/.well-known/openid-configuration")
        expect(status == 200 and discovery.get("end_session_endpoint") == self.base + "/o/logout/",
               "discovery: end_session_endpoint", discovery.get("end_session_endpoint"))

        redirect = f"http://127.0.0.1:{free_port()}/callback"
        tokens, asked = self.sign_in(PUBLIC, redirect, self.jar)
        expect(asked, "first sign-in with a cookie jar: the login form was shown")
        expect(stat.S_IMODE(os.stat(self.jar).st_mode) == 0o600, "the cookie jar is 0600")
        tokens, asked = self.sign_in(PUBLIC, redirect, self.jar)
        expect(not asked, "second sign-in, same browser: no login form")

        # A valid id_token_hint of the signed-in user: no prompt; any loopback port; state returned.
        receiver = Receiver()
        logged_out = f"http://127.0.0.1:{receiver.port}/logged-out"
        url = self.end_session_url(id_token_hint=tokens["id_token"], client_id=PUBLIC,
                                   post_logout_redirect_uri=logged_out, state="st-1")
        status, out, err = self.agent("--end-session", "--deliver", "--cookies", self.jar, url)
        expect(status == 0 and out == f"{logged_out}?state=st-1", "RP-initiated logout: back to the loopback URI with state", (out, err))
        expect("logout confirmation shown" not in err, "no prompt with a valid id_token_hint")
        expect(receiver.paths == ["/logged-out?state=st-1"], "--deliver fetched the post-logout redirect", receiver.paths)
        status, refreshed = request(self.base + "/o/token/", {"grant_type": "refresh_token", "client_id": PUBLIC,
                                                              "refresh_token": tokens["refresh_token"]})
        expect(status == 200, "DOT deleted no token at the logout (the application revokes its own)", refreshed)

        tokens, asked = self.sign_in(PUBLIC, redirect, self.jar)
        expect(asked, "after the logout, the next sign-in shows the login form again")

        # Without id_token_hint DOT asks; recognised as an end-session URL without --end-session.
        other = f"http://127.0.0.1:{free_port()}/logged-out"
        url = self.end_session_url(client_id=PUBLIC, post_logout_redirect_uri=other, state="st-2")
        status, out, err = self.agent("--cookies", self.jar, url)
        expect(status == 0 and out == f"{other}?state=st-2", "logout without id_token_hint (the URL recognised)", (out, err))
        expect("logout confirmation shown" in err, "DOT asked, and the agent confirmed")
        _, asked = self.sign_in(PUBLIC, redirect, self.jar)
        expect(asked, "that logout ended the session too")

        # A browser without a session at DOT: sent back at once.
        status, out, err = self.agent("--end-session", self.end_session_url(
            id_token_hint=tokens["id_token"], post_logout_redirect_uri=other, state="st-3"))
        expect(status == 0 and out == f"{other}?state=st-3", "a browser without a session: straight back", (out, err))

        # The confidential client too.
        confidential, _ = self.sign_in(CONFIDENTIAL, redirect, self.jar, secret=CONFIDENTIAL_SECRET)
        status, out, err = self.agent("--end-session", "--cookies", self.jar, self.end_session_url(
            id_token_hint=confidential["id_token"], post_logout_redirect_uri=other))
        expect(status == 0 and out == other, "the confidential client's logout, without state", (out, err))

        # Refusals.
        for what, params in {
            "an unregistered post_logout_redirect_uri": dict(id_token_hint=tokens["id_token"],
                                                              post_logout_redirect_uri="http://example.com/out"),
            "another path": dict(id_token_hint=tokens["id_token"], post_logout_redirect_uri=f"http://127.0.0.1:{free_port()}/elsewhere"),
            "a client_id that is not the hint's": dict(id_token_hint=tokens["id_token"], client_id=CONFIDENTIAL,
                                                       post_logout_redirect_uri=other),
        }.items():
            status, out, err = self.agent("--end-session", self.end_session_url(**params))
            expect(status != 0 and "expected a redirect after the logout" in err, f"refused: {what}", (out, err))

        # The old modes, without --cookies, print nothing new.
        status, out, err = self.agent(self.base + "/o/authorize/?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": PUBLIC, "redirect_uri": redirect, "scope": "openid",
            "state": "s", "code_challenge": "a" * 43, "code_challenge_method": "S256"}))
        expect(status == 0 and out.startswith(redirect) and "login form shown" not in err,
               "a sign-in without --cookies works as before", (out, err))
        status, device = request(self.base + "/o/device-authorization/", {"client_id": "oauthflow-device"})
        expect(status == 200 and device.get("user_code"), "device authorization", device)
        status, out, err = self.agent(f"--user-code={device['user_code']}", device["verification_uri"])
        expect(status == 0 and out == "approved", "the device mode works as before", (out, err))
        print("all checks passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: check_logout.py http://127.0.0.1:PORT STATE_DIR", file=sys.stderr)
        sys.exit(2)
    Check(sys.argv[1], sys.argv[2]).run()
