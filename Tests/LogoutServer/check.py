"""Exercises a running logout server (Tests/LogoutServer/server.py) end to end, the way the Swift tests
will, from the logout-server.json it wrote:

    python check.py STATE_DIR/logout-server.json

Plays the relying parties itself: one HTTP listener on 127.0.0.1 receives their callbacks, their
post-logout returns, their back-channel logout requests (each logout token verified: signature with
the server's JWKS, iss, aud, iat, jti, events, sid or sub, no nonce, typ when set) and their
front-channel logout requests. The browser is agent.py, with a cookie jar kept between runs.

Discovery; sign-in with the login form, then single sign-on (same client, another client) without it;
the code, refresh and userinfo; the ID token's sid; RP-initiated logout (id_token_hint, client_id,
post_logout_redirect_uri on a loopback port, state returned, logout_hint, ui_locales) delivering a
logout token to every other RP before the browser returns; tokens refused after it; the login form
again; OP-initiated logout (/test/logout) and its answer; a failing and a hanging back-channel
receiver; front-channel logout; refused end-session requests; JWTs repeating a member name
(id_token_hint, access token, login form token, logout confirmation); a client added at run time;
bob's sessions apart from alice's; the counters. Prints one line per check, exits 1 on the first
failure.
"""

import base64
import hashlib
import html
import json
import os
import re
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

from cryptojwt.jws.jws import factory
from cryptojwt.jwt import JWT
from cryptojwt.key_jar import KeyJar

BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"
AGENT_TIMEOUT = 260


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"ok   {message}")


def expect(condition, message, detail=None):
    if not condition:
        fail(message + (f": {detail}" if detail is not None else ""))
    ok(message)


def request(url, form=None, headers=None, json_body=None, method=None):
    data = None
    headers = dict(headers or {})
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
    elif json_body is not None:
        data = json.dumps(json_body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=90) as response:
            body = response.read()
            status, answer_headers = response.status, response.headers
    except urllib.error.HTTPError as err:
        body, status, answer_headers = err.read(), err.code, err.headers
    try:
        return status, json.loads(body or b"null"), answer_headers
    except ValueError:
        return status, body.decode(errors="replace"), answer_headers


def basic(client_id, secret):
    pair = f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(secret, safe='')}"
    return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def query_of(url):
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items()}


def payload_written_first(token, member):
    """The compact JWT `token` with `member` ('"name": value') written first in its payload, so that
    a member it has anyway is written twice (its signature kept, so no longer matching)."""
    header, payload, signature = token.split(".")
    text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    written = ("{" + member + ", " + text[1:]).encode()
    return ".".join([header, base64.urlsafe_b64encode(written).rstrip(b"=").decode(), signature])


# --- the relying parties -------------------------------------------------------------------------
class Relying:
    """One listener for every RP: GETs (callbacks, post-logout returns, front-channel logout) and
    POSTs to /backchannel/NAME (NAME `fail` answers 500, `slow` answers after 20 s)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.gets = []
        self.posts = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                with owner.lock:
                    owner.gets.append({"path": self.path, "at": time.monotonic()})
                self.answer(200, b"ok")

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode()
                name = self.path.rstrip("/").rsplit("/", 1)[-1]
                with owner.lock:
                    owner.posts.append({
                        "path": self.path, "name": name, "at": time.monotonic(),
                        "content_type": self.headers.get("Content-Type", ""), "body": body,
                    })
                if name == "slow":
                    time.sleep(20)
                self.answer(500 if name == "fail" else 200, b"")

            def answer(self, status, body):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def mark(self):
        with self.lock:
            return len(self.gets), len(self.posts)

    def since(self, mark):
        with self.lock:
            return self.gets[mark[0]:], self.posts[mark[1]:]


# --- the checks ----------------------------------------------------------------------------------
class Check:
    def __init__(self, description_path):
        self.path = description_path
        with open(description_path) as handle:
            self.d = json.load(handle)
        self.issuer = self.d["issuer"]
        self.rp = Relying()
        self.keys = KeyJar()
        self.jtis = set()
        self.jars = os.path.join(os.path.dirname(os.path.abspath(description_path)), "check-jars")
        os.makedirs(self.jars, exist_ok=True)
        self.web = self.d["clients"]["web"]
        self.cli = self.d["clients"]["cli"]

    # --- helpers ---
    def jar(self, name):
        return os.path.join(self.jars, name)

    def agent(self, *args, user=None):
        command = [self.d["python"], self.d["agent"], "--server", self.path]
        if user:
            command += ["--user", user]
        command += list(args)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=AGENT_TIMEOUT)
        except subprocess.TimeoutExpired:
            fail(f"the agent did not end within {AGENT_TIMEOUT} s: {args}")
        return done.returncode, done.stdout.strip(), done.stderr

    def register(self, client_id, **changes):
        status, answer, _ = request(self.d["clients_endpoint"] + client_id, json_body=changes)
        if status != 200:
            fail(f"registering {client_id}: {status} {answer}")
        return answer

    def authorization_url(self, client_id, redirect_uri, challenge, state, nonce, **extra):
        params = {
            "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
            "scope": "openid profile email", "state": state, "nonce": nonce,
            "code_challenge": challenge, "code_challenge_method": "S256",
        }
        params.update(extra)
        return self.d["authorization_endpoint"] + "?" + urllib.parse.urlencode(params)

    def sign_in(self, client, redirect_uri, jar, user=None, deliver=False):
        """Signs in through the agent; returns (tokens, asked for credentials, ID token claims)."""
        verifier, challenge = pkce()
        state, nonce = secrets.token_urlsafe(8), secrets.token_urlsafe(8)
        url = self.authorization_url(client["client_id"], redirect_uri, challenge, state, nonce)
        args = ["signin", "--cookies", jar] + (["--deliver"] if deliver else []) + [url]
        status, out, err = self.agent(*args, user=user)
        if status != 0:
            fail(f"sign-in of {client['client_id']} failed: {err.strip()}")
        expect(out.startswith(redirect_uri + "?"), f"{client['client_id']}: redirected to {redirect_uri}", out)
        answer = query_of(out)
        expect(answer.get("state") == state and answer.get("iss") == self.issuer and "code" in answer,
               f"{client['client_id']}: code, state and iss", answer)
        form = {"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": redirect_uri,
                "code_verifier": verifier}
        headers = {}
        if client.get("client_secret"):
            headers = basic(client["client_id"], client["client_secret"])
        else:
            form["client_id"] = client["client_id"]
        status, tokens, _ = request(self.d["token_endpoint"], form, headers)
        expect(status == 200 and tokens.get("id_token") and tokens.get("refresh_token"),
               f"{client['client_id']}: code redeemed (ID, access and refresh tokens)", tokens)
        claims = self.id_token(tokens["id_token"], client["client_id"], nonce)
        return tokens, "login form shown" in err, claims

    def id_token(self, token, client_id, nonce):
        header = factory(token).jwt.headers
        claims = JWT(self.keys, allowed_sign_algs=["RS256"]).unpack(token)
        expect(header.get("alg") == "RS256" and claims["iss"] == self.issuer and client_id in claims["aud"]
               and claims.get("nonce") == nonce, f"{client_id}: ID token RS256, iss, aud, nonce", claims)
        expect(isinstance(claims.get("sid"), str) and claims["sid"], f"{client_id}: the ID token carries sid")
        return claims

    def end_session_url(self, **params):
        return self.d["end_session_endpoint"] + "?" + urllib.parse.urlencode(params)

    def logout_token(self, post, client_id, sid=None):
        """Checks a back-channel logout request (Back-Channel Logout 1.0 sections 2.4 to 2.6 and
        the RP's checks of section 2.6); returns the token's claims."""
        expect(post["content_type"].split(";")[0].strip() == "application/x-www-form-urlencoded",
               f"{client_id}: logout request is a form", post["content_type"])
        form = urllib.parse.parse_qs(post["body"])
        expect(list(form) == ["logout_token"] and len(form["logout_token"]) == 1,
               f"{client_id}: the form holds logout_token alone", post["body"][:100])
        token = form["logout_token"][0]
        header = factory(token).jwt.headers
        try:
            claims = JWT(self.keys, allowed_sign_algs=["RS256"]).unpack(token)
        except Exception as err:
            fail(f"{client_id}: the logout token's signature does not verify: {err}")
        expect(header.get("alg") == "RS256" and header.get("kid"), f"{client_id}: logout token signed RS256 by a JWKS key")
        expect(header.get("typ") in (None, "logout+jwt"), f"{client_id}: logout token typ is absent or logout+jwt", header)
        expect(claims.get("iss") == self.issuer, f"{client_id}: logout token iss", claims)
        audience = claims.get("aud")
        audience = [audience] if isinstance(audience, str) else audience
        expect(client_id in (audience or []), f"{client_id}: logout token aud", claims)
        expect(isinstance(claims.get("iat"), int) and abs(claims["iat"] - time.time()) < 120,
               f"{client_id}: logout token iat is now", claims.get("iat"))
        expect(isinstance(claims.get("jti"), str) and claims["jti"] and claims["jti"] not in self.jtis,
               f"{client_id}: logout token jti, never seen before", claims.get("jti"))
        self.jtis.add(claims["jti"])
        expect(claims.get("events") == {BACKCHANNEL_EVENT: {}}, f"{client_id}: logout token events", claims.get("events"))
        expect(bool(claims.get("sid") or claims.get("sub")), f"{client_id}: logout token has sid or sub", claims)
        expect("nonce" not in claims, f"{client_id}: logout token has no nonce", claims)
        if sid is not None:
            expect(claims.get("sid") == sid, f"{client_id}: logout token sid is the ID token's", (claims.get("sid"), sid))
        return claims

    def refresh(self, client, tokens):
        form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
        headers = {}
        if client.get("client_secret"):
            headers = basic(client["client_id"], client["client_secret"])
        else:
            form["client_id"] = client["client_id"]
        return request(self.d["token_endpoint"], form, headers)

    def userinfo(self, tokens):
        return request(self.d["issuer"] + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]})

    def stats(self):
        status, stats, _ = request(self.d["stats"])
        if status != 200:
            fail(f"stats: {status}")
        return stats

    # --- the run ---
    def run(self):
        mode = stat.S_IMODE(os.stat(self.path).st_mode)
        expect(mode == 0o600, "logout-server.json is 0600", oct(mode))
        status, discovery, _ = request(self.d["discovery"])
        expect(status == 200 and discovery["issuer"] == self.issuer, "discovery: issuer", discovery)
        for key, value in {
            "authorization_endpoint": self.d["authorization_endpoint"],
            "token_endpoint": self.d["token_endpoint"],
            "end_session_endpoint": self.d["end_session_endpoint"],
            "jwks_uri": self.d["jwks_uri"],
            "userinfo_endpoint": self.issuer + "/userinfo",
            "backchannel_logout_supported": True,
            "backchannel_logout_session_supported": True,
            "frontchannel_logout_supported": True,
            "frontchannel_logout_session_supported": True,
        }.items():
            expect(discovery.get(key) == value, f"discovery: {key}", discovery.get(key))
        expect(discovery.get("code_challenge_methods_supported") == ["S256"], "discovery: PKCE S256")
        expect("RS256" in discovery.get("id_token_signing_alg_values_supported", []), "discovery: RS256 ID tokens")
        status, jwks, _ = request(self.d["jwks_uri"])
        expect(status == 200 and jwks["keys"], "jwks_uri answers")
        self.keys.import_jwks(jwks, self.issuer)

        rp = self.rp.base
        web_id, cli_id = self.web["client_id"], self.cli["client_id"]
        web_redirect = f"{rp}/web/callback"
        self.register(web_id, redirect_uris=[web_redirect], post_logout_redirect_uris=[f"{rp}/web/logged-out"],
                      backchannel_logout_uri=f"{rp}/backchannel/web", backchannel_logout_session_required=True)
        answer = self.register(cli_id, backchannel_logout_uri=f"{rp}/backchannel/cli")
        expect(answer["redirect_uris"] == ["http://127.0.0.1/callback", "http://localhost/callback"]
               and answer.get("backchannel_logout_uri") == f"{rp}/backchannel/cli",
               "registration answered (the CLI's loopback URIs kept)", answer)

        # --- sign-in and single sign-on ---
        jar = self.jar("alice")
        web1, asked, web1_claims = self.sign_in(self.web, web_redirect, jar)
        expect(asked, "first sign-in: the login form was shown")
        expect(stat.S_IMODE(os.stat(jar).st_mode) == 0o600, "the agent's cookie jar is 0600")
        cli_port = free_port()
        cli_redirect = f"http://127.0.0.1:{cli_port}/callback"
        cli1, asked, cli1_claims = self.sign_in(self.cli, cli_redirect, jar)
        expect(not asked, "another client, same browser: no login form (single sign-on)")
        expect(cli1_claims["sub"] == web1_claims["sub"], "same user at both clients")
        web2, asked, web2_claims = self.sign_in(self.web, web_redirect, jar)
        expect(not asked, "the same client again: no login form")
        expect(web2_claims["sid"] != web1_claims["sid"], "a second sign-in is a session of its own (its own sid)")
        status, refused, _ = request(self.d["authorization_endpoint"] + "?" + urllib.parse.urlencode({
            "response_type": "code", "client_id": cli_id, "redirect_uri": "http://example.com/callback",
            "scope": "openid", "code_challenge": "x" * 43, "code_challenge_method": "S256"}))
        expect(status == 400, "an unregistered redirect URI gets an error page, not a redirect", status)

        status, answer, _ = self.refresh(self.web, web1)
        expect(status == 200 and answer.get("access_token") and answer.get("refresh_token"), "web: refresh", answer)
        web1 = dict(web1, **answer)
        status, answer, _ = self.refresh(self.cli, cli1)
        expect(status == 200 and answer.get("access_token"), "cli: refresh (public client)", answer)
        cli1 = dict(cli1, **answer)
        status, info, _ = self.userinfo(cli1)
        expect(status == 200 and info.get("preferred_username") == "alice" and info["sub"] == cli1_claims["sub"],
               "userinfo", info)

        # bob, in his own browser: alice's logout leaves him alone.
        bob, asked, bob_claims = self.sign_in(self.web, web_redirect, self.jar("bob"), user="bob")
        expect(asked and bob_claims["sub"] != web1_claims["sub"], "bob signs in, in his own browser")

        # --- RP-initiated logout from the CLI ---
        mark = self.rp.mark()
        post_logout_port = free_port()
        logged_out = f"http://127.0.0.1:{post_logout_port}/logged-out"
        state = secrets.token_urlsafe(8)
        url = self.end_session_url(id_token_hint=cli1["id_token"], client_id=cli_id, post_logout_redirect_uri=logged_out,
                                   state=state, logout_hint="alice", ui_locales="en fr")
        status, out, err = self.agent("endsession", "--cookies", jar, url)
        expect(status == 0, "RP-initiated logout: the agent followed it", err.strip())
        expect(out == f"{logged_out}?state={state}", "RP-initiated logout: back to the loopback post-logout URI, with state", out)
        expect("logout confirmation shown" in err, "the server asked to confirm (and the agent did)")
        _, posts = self.rp.since(mark)
        by_name = {}
        for post in posts:
            by_name.setdefault(post["name"], []).append(post)
        expect(sorted(by_name) == ["cli", "web"] and len(by_name["web"]) == 2 and len(by_name["cli"]) == 1,
               "a logout token for each session: web (two sign-ins) and cli", {k: len(v) for k, v in by_name.items()})
        sids = {self.logout_token(post, web_id)["sid"] for post in by_name["web"]}
        expect(sids == {web1_claims["sid"], web2_claims["sid"]}, "web: the logout tokens name both sessions' sid")
        self.logout_token(by_name["cli"][0], cli_id, sid=cli1_claims["sid"])

        # With --deliver: every back-channel logout request comes before the browser returns.
        web3, asked, _ = self.sign_in(self.web, web_redirect, jar)
        expect(asked, "after the logout, the next sign-in asks for credentials again")
        mark = self.rp.mark()
        state = secrets.token_urlsafe(8)
        url = self.end_session_url(id_token_hint=web3["id_token"], post_logout_redirect_uri=f"{rp}/web/logged-out",
                                   state=state)
        status, out, err = self.agent("endsession", "--deliver", "--cookies", jar, url)
        expect(status == 0 and out == f"{rp}/web/logged-out?state={state}", "RP-initiated logout with --deliver", (out, err))
        gets, posts = self.rp.since(mark)
        returned = [g for g in gets if g["path"].startswith("/web/logged-out")]
        expect(len(returned) == 1 and returned[0]["path"] == f"/web/logged-out?state={state}",
               "the agent delivered the post-logout redirect", gets)
        expect(len(posts) == 1 and posts[0]["at"] < returned[0]["at"],
               "the logout token was POSTed before the browser was redirected", (posts, returned))
        self.logout_token(posts[0], web_id)

        # Everything of the ended sessions is refused.
        for name, client, tokens in (("web", self.web, web1), ("cli", self.cli, cli1)):
            status, answer, _ = self.refresh(client, tokens)
            expect(status == 400 and answer.get("error") == "invalid_grant", f"{name}: refresh refused after logout", answer)
        status, _, _ = self.userinfo(cli1)
        expect(status == 401, "userinfo refused after logout", status)
        status, answer, _ = self.refresh(self.web, bob)
        expect(status == 200, "bob's session lives on", answer)

        # --- the end-session endpoint's refusals ---
        web4, asked, _ = self.sign_in(self.web, web_redirect, jar)
        expect(asked, "signed in again (login form)")
        refusals = {
            "an unregistered post_logout_redirect_uri": dict(id_token_hint=web4["id_token"],
                                                              post_logout_redirect_uri="http://example.com/out"),
            "another port for a URI registered with one": dict(id_token_hint=web4["id_token"],
                                                              post_logout_redirect_uri=f"http://127.0.0.1:{free_port()}/web/logged-out"),
            "a forged id_token_hint": dict(id_token_hint=web4["id_token"][:-4] + "AAAA",
                                           post_logout_redirect_uri=f"{rp}/web/logged-out"),
            "a client_id that is not the hint's": dict(id_token_hint=web4["id_token"], client_id=cli_id,
                                                       post_logout_redirect_uri=f"{rp}/web/logged-out"),
            "post_logout_redirect_uri without id_token_hint": dict(client_id=web_id,
                                                                    post_logout_redirect_uri=f"{rp}/web/logged-out"),
        }
        for what, params in refusals.items():
            status, page, headers = request(self.end_session_url(**params))
            expect(status == 400 and "Location" not in headers, f"end-session refuses {what} (400 page, no redirect)", status)
        self.repeated_members(web4, web_redirect)
        status, answer, _ = self.refresh(self.web, web4)
        expect(status == 200, "a refused end-session request ends nothing", answer)

        # Without post_logout_redirect_uri, the logout ends on the server's own page.
        mark = self.rp.mark()
        status, out, err = self.agent("endsession", "--cookies", jar, self.end_session_url(id_token_hint=web4["id_token"]))
        expect(status == 0 and out == self.d["logged_out_page"], "RP-initiated logout without post_logout_redirect_uri", (out, err))
        _, posts = self.rp.since(mark)
        expect(len(posts) == 1, "its logout token delivered", len(posts))
        self.logout_token(posts[0], web_id)
        # A browser with no session there: nothing to end, straight back (state kept).
        status, out, err = self.agent("endsession", self.end_session_url(
            id_token_hint=web4["id_token"], post_logout_redirect_uri=f"{rp}/web/logged-out", state="again"))
        expect(status == 0 and out == f"{rp}/web/logged-out?state=again", "end-session with no session: straight back", (out, err))

        # --- OP-initiated logout ---
        web5, asked, web5_claims = self.sign_in(self.web, web_redirect, jar)
        expect(asked, "signed in again (login form)")
        mark = self.rp.mark()
        status, answer, _ = request(self.d["logout_endpoint"], {"user": "alice"})
        expect(status == 200 and [(d["uri"], d["status"]) for d in answer["deliveries"]] == [(f"{rp}/backchannel/web", 200)],
               "OP-initiated logout: answers each delivery (uri, status)", answer)
        _, posts = self.rp.since(mark)
        expect(len(posts) == 1, "OP-initiated logout: one logout token", len(posts))
        self.logout_token(posts[0], web_id, sid=web5_claims["sid"])
        status, _, _ = self.refresh(self.web, web5)
        expect(status == 400, "OP-initiated logout: the refresh token is refused", status)
        _, asked, _ = self.sign_in(self.web, web_redirect, jar)
        expect(asked, "OP-initiated logout: the browser's next sign-in asks for credentials (its cookie is dead)")
        status, answer, _ = request(self.d["logout_endpoint"], {"user": "nobody"})
        expect(status == 200 and answer["deliveries"] == [], "OP-initiated logout of a user without sessions", answer)

        # A failing and a hanging back-channel receiver: recorded, and the wait is bounded.
        self.register(web_id, backchannel_logout_uri=f"{rp}/backchannel/fail")
        self.register(cli_id, backchannel_logout_uri=f"{rp}/backchannel/slow")
        self.sign_in(self.cli, cli_redirect, jar)
        started = time.monotonic()
        status, answer, _ = request(self.d["logout_endpoint"], {"user": "alice"})
        took = time.monotonic() - started
        outcome = {d["uri"].rsplit("/", 1)[-1]: (d["status"], d["error"]) for d in answer["deliveries"]}
        expect(outcome.get("fail") == (500, None), "a receiver answering 500 is recorded as 500", outcome)
        expect(outcome.get("slow", (0,))[0] is None and "timed out" in (outcome["slow"][1] or ""),
               "a receiver that hangs is recorded as timed out", outcome)
        expect(took < 17.5, f"the hanging receiver held the logout {took:.1f} s (about 15 s at most)")

        # --- front-channel logout, with a client added at run time ---
        fc = self.register("logout-fc", like=web_id, redirect_uris=[f"{rp}/fc/callback"],
                           post_logout_redirect_uris=[f"{rp}/fc/logged-out"], frontchannel_logout_uri=f"{rp}/fc/frontchannel",
                           frontchannel_logout_session_required=True)
        expect(fc["client_secret"] and fc["client_secret"] != self.web["client_secret"], "a client added at run time, with a secret of its own")
        self.register(web_id, backchannel_logout_uri=None)
        self.register(cli_id, backchannel_logout_uri=None)
        fc_tokens, _, fc_claims = self.sign_in(fc, f"{rp}/fc/callback", jar)
        mark = self.rp.mark()
        url = self.end_session_url(id_token_hint=fc_tokens["id_token"], post_logout_redirect_uri=f"{rp}/fc/logged-out", state="fc")
        status, out, err = self.agent("endsession", "--cookies", jar, url)
        expect(status == 0 and out == f"{rp}/fc/logged-out?state=fc", "front-channel client: RP-initiated logout", (out, err))
        gets, posts = self.rp.since(mark)
        frames = [query_of(g["path"]) for g in gets if g["path"].startswith("/fc/frontchannel")]
        expect(len(frames) == 1 and frames[0] == {"iss": self.issuer, "sid": fc_claims["sid"]},
               "the browser loaded the front-channel logout URI with iss and sid", gets)
        expect(posts == [], "no back-channel request for it")

        # --- the counters ---
        stats = self.stats()
        expect(stats["logouts"]["rp_initiated"] == 4 and stats["logouts"]["op_initiated"] == 2,
               "stats: logouts", stats["logouts"])
        expect(stats["sign_ins"]["total"] >= 10 and stats["sign_ins"]["single_sign_on"] == 3,
               "stats: sign-ins", stats["sign_ins"])
        expect(len(stats["backchannel"]) == 8 and all({"uri", "status"} <= set(d) for d in stats["backchannel"]),
               "stats: every back-channel delivery (uri, status)", len(stats["backchannel"]))
        expect(len(stats["frontchannel"]) == 1, "stats: the front-channel logout", stats["frontchannel"])

        # A wrong password: the agent fails, saying so.
        status, _, err = self.agent("signin", "--cookies", self.jar("wrong"), "--password", "not-the-password",
                                    self.authorization_url(web_id, web_redirect, pkce()[1], "s", "n"))
        expect(status != 0 and "login was refused" in err, "a wrong password: the agent fails, saying why", err.strip())
        print("all checks passed")

    def repeated_members(self, tokens, web_redirect):
        """RFC 7515 section 5.2, RFC 7519 section 7.2: every JWT the server reads from a request is
        refused when it repeats a member name. They are the server's own JWTs, so a copy with a
        member written twice no longer verifies either: the answer must say which check refused it.
        The same JWTs without the repetition are accepted (here, or by the flows above)."""
        rp = self.rp.base
        repeated_hint = payload_written_first(tokens["id_token"], '"sid": "another-session"')
        status, page, headers = request(self.end_session_url(id_token_hint=repeated_hint,
                                                             post_logout_redirect_uri=f"{rp}/web/logged-out"))
        expect(status == 400 and "Location" not in headers
               and "id_token_hint's payload repeats the member 'sid'" in html.unescape(str(page)),
               "end-session refuses an id_token_hint repeating sid (400 page saying so)", (status, str(page)[:300]))

        status, answer, _ = request(self.d["issuer"] + "/userinfo", headers={
            "Authorization": "Bearer " + payload_written_first(tokens["access_token"], '"sub": "mallory"')})
        expect(status == 401 and answer.get("error") == "invalid_token"
               and "access token's payload repeats the member 'sub'" in answer.get("error_description", ""),
               "userinfo refuses an access token repeating sub", answer)
        status, answer, _ = self.userinfo(tokens)
        expect(status == 200 and answer.get("sub"), "userinfo: the same access token without the repetition", answer)

        url = self.authorization_url(self.web["client_id"], web_redirect, pkce()[1], "repeat", "n",
                                     id_token_hint=repeated_hint)
        mark = self.rp.mark()
        request(url)
        gets, _ = self.rp.since(mark)
        answers = [query_of(g["path"]) for g in gets if g["path"].startswith("/web/callback?")]
        expect(len(answers) == 1 and answers[0].get("error") == "invalid_request" and answers[0].get("state") == "repeat"
               and "repeats the member 'sid'" in answers[0].get("error_description", ""),
               "authorization refuses an id_token_hint repeating sid (redirected with invalid_request)", gets)
        status, page, _ = request(self.authorization_url(self.web["client_id"], web_redirect, pkce()[1], "s", "n",
                                                         id_token_hint=tokens["id_token"]))
        match = re.search(r'name="token" value="([^"]+)"', str(page))
        expect(status == 200 and match, "authorization: the same id_token_hint without the repetition (the login form)",
               (status, str(page)[:300]))

        form_token = html.unescape(match.group(1))
        status, page, _ = request(self.issuer + "/login", {
            "token": payload_written_first(form_token, '"query": ""'), "username": "alice", "password": self.d["password"]})
        expect(status == 400 and "login token's payload repeats the member 'query'" in html.unescape(str(page)),
               "the login form refuses its token repeating a member (400 page saying so)", (status, str(page)[:300]))
        status, page, _ = request(self.issuer + "/login", {"token": form_token, "username": "alice",
                                                            "password": "not-the-password"})
        expect(status == 401 and "Wrong user name or password" in str(page),
               "the login form: the same token without the repetition (only the wrong password refused)", status)

        status, page, _ = request(self.issuer + "/logout-confirm?" + urllib.parse.urlencode({"sjwt": repeated_hint}))
        expect(status == 400 and "logout request's payload repeats the member 'sid'" in html.unescape(str(page)),
               "the logout confirmation refuses a JWT repeating a member (400 page saying so)", (status, str(page)[:300]))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check.py logout-server.json", file=sys.stderr)
        sys.exit(2)
    Check(sys.argv[1]).run()
