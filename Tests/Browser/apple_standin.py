#!/usr/bin/env python3
"""A stand-in for Sign in with Apple's REST API that answers as Apple documents it, for the browser test.

Usage: python apple_standin.py STATE_DIR --client-id ID --team-id TEAM --key-id KID --redirect-uri URI...

Serves http://127.0.0.1:PORT (a free port, written to STATE_DIR/ready once it listens) and, like the
developer portal, issues the client's key: STATE_DIR/AuthKey.p8 (ES256, PKCS#8 PEM), which the app signs
its client secrets with; the stand-in keeps only the public half, to verify them.

Apple's behaviour, as its documentation describes it (generate_and_validate_tokens,
request_an_authorization_to_the_sign_in_with_apple_server, creating-a-client-secret, revoke_tokens):
- GET /auth/authorize: response_type=code, a registered https redirect_uri, and response_mode=form_post
  whenever the name or email scope is asked. The page stands for Apple's sign-in; its button
  ("Continue", id continue) posts the answer to the redirect URI from an auto-submitting form: a
  cross-site POST with code, state and, on the user's first consent to this client only, `user`
  (JSON: name.firstName, name.lastName, email).
- POST /auth/token: the client secret must be an ES256 JWT with the Key ID in `kid`, iss = the Team
  ID, sub = the client id, aud = https://appleid.apple.com, and exp at most 15,777,000 s after iat.
  The ID token (RS256) carries email_verified and is_private_email as the strings "true", and a
  private-relay address. A refresh answers a new access token and ID token, no new refresh token.
- GET /auth/keys: the JWKS. There is no userinfo and no end-session endpoint.
- POST /auth/revoke: token and token_type_hint, with the same client authentication.
PKCE is checked when the authorization request carried a challenge (Apple documents none; a stand-in
that checks it proves the engine sends a correct one).

GET /test/state answers what the browser test checks: how many client secrets were verified and how
many of them were distinct, how often the `user` field went out, the tokens revoked, and every
request refused, with its reason.
"""
import argparse
import base64
import hashlib
import hmac
import html
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from joserfc import jwk, jwt
from joserfc.errors import JoseError

APPLE_AUDIENCE = "https://appleid.apple.com"
MAX_SECRET_LIFETIME = 15_777_000
SUBJECT = "001234.5c2b6d1e8f0a4b7c9d3e2f1a0b9c8d7e.1234"
RELAY_EMAIL = "x7k2p9q4rt@privaterelay.appleid.com"

parser = argparse.ArgumentParser()
parser.add_argument("state_dir")
parser.add_argument("--client-id", required=True)
parser.add_argument("--team-id", required=True)
parser.add_argument("--key-id", required=True)
parser.add_argument("--redirect-uri", action="append", required=True)
options = parser.parse_args()

state_dir = Path(options.state_dir)
state_dir.mkdir(parents=True, exist_ok=True)
client_key = jwk.ECKey.generate_key("P-256", parameters={"kid": options.key_id})
key_file = state_dir / "AuthKey.p8"
key_file.write_bytes(client_key.as_pem(private=True))
key_file.chmod(0o600)
client_public = jwk.ECKey.import_key(client_key.as_dict(private=False))
signing_key = jwk.RSAKey.generate_key(2048, parameters={"kid": "standin-rs256", "use": "sig", "alg": "RS256"})

lock = threading.Lock()
codes = {}  # code -> the authorization it answers
refresh_tokens = {}  # refresh token -> subject
access_tokens = set()
consented = set()  # (subject, client id) that already consented: `user` goes out once
record = {"secrets_verified": 0, "distinct_secrets": [], "user_sent": 0, "revoked": [], "refused": [], "token_requests": []}


def refuse(reason):
    with lock:
        record["refused"].append(reason)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def verify_client(form):
    """Apple's client authentication: client_id and client_secret (the ES256 JWT) in the form."""
    if form.get("client_id") != options.client_id:
        return f"unknown client_id {form.get('client_id')!r}"
    secret = form.get("client_secret", "")
    try:
        token = jwt.decode(secret, client_public, algorithms=["ES256"])
    except (JoseError, ValueError) as error:
        return f"the client secret is not an ES256 JWT signed with the client's key: {error}"
    claims, header = token.claims, token.header
    now = time.time()
    problems = []
    if header.get("kid") != options.key_id:
        problems.append(f"kid {header.get('kid')!r}")
    if claims.get("iss") != options.team_id:
        problems.append(f"iss {claims.get('iss')!r}")
    if claims.get("sub") != options.client_id:
        problems.append(f"sub {claims.get('sub')!r}")
    if claims.get("aud") not in (APPLE_AUDIENCE, [APPLE_AUDIENCE]):
        problems.append(f"aud {claims.get('aud')!r}")
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, (int, float)) or not isinstance(exp, (int, float)):
        problems.append("iat or exp missing")
    elif iat > now + 60 or exp <= now or exp - iat > MAX_SECRET_LIFETIME:
        problems.append(f"iat {iat} exp {exp}")
    if problems:
        return "the client secret's " + ", ".join(problems) + " is wrong"
    with lock:
        record["secrets_verified"] += 1
        if secret not in record["distinct_secrets"]:
            record["distinct_secrets"].append(secret)
    return None


def id_token(issuer, nonce, access_token):
    now = int(time.time())
    digest = hashlib.sha256(access_token.encode()).digest()
    claims = {
        "iss": issuer, "aud": options.client_id, "sub": SUBJECT, "iat": now, "exp": now + 600, "auth_time": now,
        "at_hash": b64url(digest[:16]), "email": RELAY_EMAIL, "email_verified": "true", "is_private_email": "true",
        "nonce_supported": True, "real_user_status": 2,
    }
    if nonce:
        claims["nonce"] = nonce
    return jwt.encode({"alg": "RS256", "kid": signing_key.kid}, claims, signing_key)


class Handler(BaseHTTPRequestHandler):
    server_version = "AppleStandIn/1.0"

    def log_message(self, format, *args):
        sys.stderr.write("apple-standin: " + format % args + "\n")

    def issuer(self):
        return f"http://127.0.0.1:{self.server.server_port}"

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, reason):
        refuse(f"{self.command} {urlsplit(self.path).path}: {reason}")
        self.send(status, json.dumps({"error": code}))

    def form(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > 64 * 1024:
            return None
        if not self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return None
        fields = parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        if any(len(values) != 1 for values in fields.values()):
            return None
        return {name: values[0] for name, values in fields.items()}

    def do_GET(self):
        url = urlsplit(self.path)
        query = {name: values[-1] for name, values in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path == "/auth/authorize":
            self.authorize_page(query)
        elif url.path == "/auth/keys":
            self.send(200, json.dumps({"keys": [signing_key.as_dict(private=False)]}))
        elif url.path == "/test/state":
            with lock:
                answer = dict(record, distinct_secrets=len(record["distinct_secrets"]))
            self.send(200, json.dumps(answer))
        else:
            self.send(404, json.dumps({"error": "not_found"}))

    def do_POST(self):
        path = urlsplit(self.path).path
        form = self.form()
        if form is None:
            return self.error(400, "invalid_request", "not a small urlencoded form with single values")
        if path == "/auth/authorize/continue":
            self.consent(form)
        elif path == "/auth/token":
            self.token(form)
        elif path == "/auth/revoke":
            self.revoke(form)
        else:
            self.send(404, json.dumps({"error": "not_found"}))

    def authorize_page(self, query):
        scopes = query.get("scope", "").split()
        problems = []
        if query.get("client_id") != options.client_id:
            problems.append("unknown client_id")
        if query.get("redirect_uri") not in options.redirect_uri or not query.get("redirect_uri", "").startswith("https://"):
            problems.append("redirect_uri is not a registered https URI")
        if query.get("response_type") != "code":
            problems.append("response_type is not code")
        if ("name" in scopes or "email" in scopes) and query.get("response_mode") != "form_post":
            problems.append("name or email asked without response_mode=form_post")
        if "code_challenge" in query and query.get("code_challenge_method") != "S256":
            problems.append("a PKCE challenge other than S256")
        if not query.get("state"):
            problems.append("no state")
        if problems:
            refuse("authorize: " + "; ".join(problems))
            return self.send(400, "<!doctype html><p id=\"invalid\">invalid_request: " + html.escape("; ".join(problems)) + "</p>",
                             "text/html; charset=utf-8")
        hidden = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">' for name, value in query.items())
        self.send(200, f"""<!doctype html><html><head><meta charset="utf-8"><title>Sign in with Apple (stand-in)</title></head>
<body><h1>Sign in with Apple ID (stand-in)</h1><p>Use your Apple ID with {html.escape(options.client_id)}?</p>
<form method="post" action="/auth/authorize/continue">{hidden}<button id="continue" type="submit">Continue</button></form></body></html>""",
                  "text/html; charset=utf-8")

    def consent(self, form):
        code = secrets.token_urlsafe(32)
        scopes = form.get("scope", "").split()
        with lock:
            codes[code] = {"redirect_uri": form.get("redirect_uri"), "nonce": form.get("nonce"), "challenge": form.get("code_challenge"),
                           "expires": time.time() + 300}
            first = (SUBJECT, options.client_id) not in consented
            consented.add((SUBJECT, options.client_id))
        answer = {"code": code, "state": form.get("state", "")}
        if first and ("name" in scopes or "email" in scopes):
            user = {"email": RELAY_EMAIL}
            if "name" in scopes:
                user["name"] = {"firstName": "Ada", "lastName": "Lovelace"}
            answer["user"] = json.dumps(user)
            with lock:
                record["user_sent"] += 1
        fields = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">' for name, value in answer.items())
        self.send(200, f"""<!doctype html><html><head><meta charset="utf-8"><title>Signing in…</title></head>
<body><form id="answer" method="post" action="{html.escape(form.get('redirect_uri', ''))}">{fields}<noscript><button>Continue</button></noscript></form>
<script>document.getElementById("answer").submit()</script></body></html>""", "text/html; charset=utf-8")

    def token(self, form):
        with lock:
            record["token_requests"].append(form.get("grant_type"))
        problem = verify_client(form)
        if problem:
            return self.error(400, "invalid_client", problem)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            with lock:
                issued = codes.pop(form.get("code", ""), None)
            if issued is None or issued["expires"] < time.time():
                return self.error(400, "invalid_grant", "an unknown, used or expired code")
            if form.get("redirect_uri") != issued["redirect_uri"]:
                return self.error(400, "invalid_grant", "redirect_uri differs from the authorization request's")
            if issued["challenge"]:
                verifier = form.get("code_verifier", "")
                if not hmac.compare_digest(b64url(hashlib.sha256(verifier.encode()).digest()), issued["challenge"]):
                    return self.error(400, "invalid_grant", "the PKCE verifier does not match the challenge")
            access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            with lock:
                access_tokens.add(access)
                refresh_tokens[refresh] = SUBJECT
            answer = {"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh,
                      "id_token": id_token(self.issuer(), issued["nonce"], access)}
        elif grant == "refresh_token":
            with lock:
                known = form.get("refresh_token", "") in refresh_tokens
            if not known:
                return self.error(400, "invalid_grant", "an unknown or revoked refresh token")
            access = secrets.token_urlsafe(32)
            with lock:
                access_tokens.add(access)
            answer = {"access_token": access, "token_type": "Bearer", "expires_in": 3600, "id_token": id_token(self.issuer(), None, access)}
        else:
            return self.error(400, "unsupported_grant_type", f"grant_type {grant!r}")
        self.send(200, json.dumps(answer))

    def revoke(self, form):
        problem = verify_client(form)
        if problem:
            return self.error(400, "invalid_client", problem)
        token, hint = form.get("token", ""), form.get("token_type_hint", "")
        with lock:
            if refresh_tokens.pop(token, None) is not None:
                record["revoked"].append("refresh_token" if hint in ("", "refresh_token") else f"refresh_token (hint {hint})")
            elif token in access_tokens:
                access_tokens.discard(token)
                record["revoked"].append("access_token" if hint in ("", "access_token") else f"access_token (hint {hint})")
        self.send(200, b"", "text/plain")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
(state_dir / "ready").write_text(str(server.server_port))
print(f"apple stand-in on http://127.0.0.1:{server.server_port}", file=sys.stderr)
server.serve_forever()
