"""Exercises a running PAR and DPoP server (Tests/PARServer/server.py) from the par-server.json
it wrote, with plain Python: requests for HTTP, cryptography for the DPoP keys (ES256 and
RS256) and signatures, PKCE S256 made here.

    python check.py STATE_DIR/par-server.json

Discovery; pushed requests (client authentication, expiry, single use, par-required, a
request_uri inside a pushed request, PKCE); authorization with and without request_uri; DPoP at
the token endpoint (token_type DPoP, cnf.jkt, replayed jti, dpop_jkt and the PAR proof's key,
refresh tokens bound to the key); the access tokens' RFC 9068 profile (typ at+jwt, aud with the
resource, client_id, the signature by the JWKS); userinfo; the resource (DPoP, Bearer, replay, htu with a
query, ath, key); server nonces at the token endpoint and the resource, and their loops; the
Bearer-only client; revocation; bad input; JWTs repeating a member name (proofs at each endpoint,
an access token, an id_token_hint); the FAPI 2.0 clients (private_key_jwt assertions addressed to
the issuer, signed request objects and their refusals, JWT-secured responses signed PS256); the
counters. Prints one line per check, exits 1 on the first
failure.
"""

import base64
import hashlib
import json
import os
import secrets
import stat
import sys
import time
import uuid
from urllib.parse import parse_qs
from urllib.parse import urlencode
from urllib.parse import urlsplit

import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

PREFIX = "urn:ietf:params:oauth:request_uri:"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"ok   {message}")


def expect(condition, message, detail=None):
    if not condition:
        fail(message + (f": {detail}" if detail is not None else ""))
    ok(message)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64_int(value, length=None):
    length = length or (value.bit_length() + 7) // 8
    return b64(value.to_bytes(length, "big"))


def jwt_claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def jwt_header(token):
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def b64_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rs256_verifies(token, jwk):
    """Whether an RS256 JWS verifies with a public RSA JWK."""
    numbers = rsa.RSAPublicNumbers(int.from_bytes(b64_decode(jwk["e"]), "big"), int.from_bytes(b64_decode(jwk["n"]), "big"))
    signing_input, _, signature = token.rpartition(".")
    try:
        numbers.public_key().verify(b64_decode(signature), signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return True
    except InvalidSignature:
        return False


def unique_members(pairs):
    """json.loads's object_pairs_hook: ValueError for a repeated member name."""
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("a repeated member name")
    return dict(pairs)


def proof_jti(proof):
    """The jti the server records for a proof, or None: not for a deliberately broken proof, nor
    for one repeating a member name, which the server refuses before reading anything of it."""
    try:
        header, claims = (json.loads(b64_decode(part), object_pairs_hook=unique_members) for part in proof.split(".")[:2])
        return claims["jti"]
    except Exception:
        return None


def written_first(text, member):
    """The JSON object `text` with `member` ('"name": value') written before its own members."""
    return "{" + member + ", " + text[1:]


def payload_written_first(token, member):
    """The compact JWT `token` with `member` written first in its payload (its signature kept, so
    no longer matching)."""
    header, payload, signature = token.split(".")
    return ".".join([header, b64(written_first(b64_decode(payload).decode(), member).encode()), signature])


def body(response):
    try:
        return response.json()
    except ValueError:
        return response.text[:300]


class Key:
    """A DPoP key: ES256 (P-256) or RS256, its public JWK and RFC 7638 thumbprint."""

    def __init__(self, alg="ES256"):
        self.alg = alg
        if alg == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            numbers = self.private.public_key().public_numbers()
            self.jwk = {"kty": "EC", "crv": "P-256", "x": b64_int(numbers.x, 32), "y": b64_int(numbers.y, 32)}
            members = ("crv", "kty", "x", "y")
        else:
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            numbers = self.private.public_key().public_numbers()
            self.jwk = {"kty": "RSA", "n": b64_int(numbers.n), "e": b64_int(numbers.e)}
            members = ("e", "kty", "n")
        canonical = json.dumps({k: self.jwk[k] for k in members}, separators=(",", ":"), sort_keys=True)
        self.jkt = b64(hashlib.sha256(canonical.encode()).digest())

    def sign(self, data):
        if self.alg == "ES256":
            r, s = decode_dss_signature(self.private.sign(data, ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def proof(self, htm, htu, token=None, nonce=None, jti=None, iat=None, typ="dpop+jwt", ath=None, alg=None,
              repeat=None):
        """A signed proof. `repeat`, (where, member) with where "header", "jwk" or "claims": the
        member ('"name": value') written first there, so that a member the proof has anyway is
        written twice, the one a lenient parser keeps (the last) being the proof's own."""
        header = {"typ": typ, "alg": alg or self.alg, "jwk": self.jwk}
        claims = {"jti": jti or uuid.uuid4().hex, "htm": htm, "htu": htu, "iat": int(iat or time.time())}
        if token is not None:
            claims["ath"] = ath or b64(hashlib.sha256(token.encode()).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        header_text, claims_text = json.dumps(header), json.dumps(claims)
        if repeat is not None:
            where, member = repeat
            if where == "header":
                header_text = written_first(header_text, member)
            elif where == "jwk":
                header_text = header_text.replace('"jwk": {', '"jwk": {' + member + ", ", 1)
            else:
                claims_text = written_first(claims_text, member)
        signing_input = (b64(header_text.encode()) + "." + b64(claims_text.encode())).encode()
        return signing_input.decode() + "." + b64(self.sign(signing_input))


def pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, b64(hashlib.sha256(verifier.encode()).digest())


class Check:
    def __init__(self, description_path):
        mode = stat.S_IMODE(os.stat(description_path).st_mode)
        expect(mode == 0o600, "par-server.json is 0600", oct(mode))
        with open(description_path) as handle:
            self.d = json.load(handle)
        self.issuer = self.d["issuer"]
        self.clients = self.d["clients"]
        self.http = requests.Session()
        self.redirect_uri = "http://127.0.0.1:53682/callback"
        self.sent_jtis = []

    # --- helpers ----------------------------------------------------------------------------
    def client_auth(self, name, form, secret=None):
        client = self.clients[name]
        if client["auth_method"] == "client_secret_basic":
            return (client["client_id"], secret or client["client_secret"])
        form["client_id"] = client["client_id"]
        return None

    def post(self, url, name, form, proof=None, secret=None, no_auth=False):
        form = dict(form)
        auth = None if no_auth else self.client_auth(name, form, secret)
        headers = {}
        if proof:
            headers["DPoP"] = proof
            self.sent_jtis.append(proof_jti(proof))
        return self.http.post(url, data=form, auth=auth, headers=headers, timeout=10)

    def push(self, name, proof=None, **params):
        verifier, challenge = pkce()
        form = {
            "response_type": "code",
            "redirect_uri": self.redirect_uri,
            "scope": "openid profile",
            "state": secrets.token_urlsafe(8),
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        form.update({k: v for k, v in params.items() if v is not None})
        for k in [k for k, v in params.items() if v is None]:
            form.pop(k, None)
        if name in self.clients and self.clients[name]["auth_method"] == "none":
            form["client_id"] = self.clients[name]["client_id"]
        response = self.post(self.par_endpoint, name, form, proof=proof)
        return response, verifier, form

    def authorize(self, query):
        return self.http.get(self.authorization_endpoint, params=query, allow_redirects=False, timeout=10)

    def code_from(self, response, state=None):
        if response.status_code != 302:
            fail(f"authorization answered {response.status_code}: {response.text[:300]}")
        location = response.headers["Location"]
        args = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        if "code" not in args:
            fail(f"no code in {location}")
        if state is not None and args.get("state") != state:
            fail(f"state not returned: {args}")
        return args

    def pushed_code(self, name, proof=None, **params):
        response, verifier, form = self.push(name, proof=proof, **params)
        if response.status_code != 201:
            fail(f"{name}: PAR answered {response.status_code}: {body(response)}")
        uri = response.json()["request_uri"]
        args = self.code_from(self.authorize({"client_id": self.clients[name]["client_id"], "request_uri": uri}), form["state"])
        return args["code"], verifier

    def redeem(self, name, code, verifier, key=None, proof=None):
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri,
                "code_verifier": verifier}
        if proof is None and key is not None:
            proof = key.proof("POST", self.token_endpoint)
        return self.post(self.token_endpoint, name, form, proof=proof)

    def dpop_token(self, name="public", key=None, **params):
        key = key or Key()
        code, verifier = self.pushed_code(name, dpop_jkt=key.jkt, **params)
        response = self.redeem(name, code, verifier, key=key)
        if response.status_code != 200:
            fail(f"{name}: DPoP token request answered {response.status_code}: {body(response)}")
        return response.json(), key

    def call(self, url, method="GET", token=None, scheme="DPoP", key=None, proof=None, htu=None, **proof_args):
        headers = {}
        if token:
            headers["Authorization"] = f"{scheme} {token}"
        if proof is None and key is not None:
            proof = key.proof(method, htu or url.split("?")[0], token=token, **proof_args)
        if proof:
            headers["DPoP"] = proof
            self.sent_jtis.append(proof_jti(proof))
        return self.http.request(method, url, headers=headers, timeout=10)

    def stats(self):
        return self.http.get(self.issuer + "/test/stats", timeout=10).json()

    def profiled(self, token, name, label):
        """RFC 9068 sections 2.1 and 2.2: the access token's header and claims, and its signature by
        the JWKS key its kid names."""
        header, claims = jwt_header(token), jwt_claims(token)
        expect(header.get("typ") == "at+jwt" and header.get("alg") == "RS256", f"{label}: typ at+jwt, RS256", header)
        aud = claims.get("aud")
        expect(isinstance(aud, list) and self.d["resource"] in aud, f"{label}: aud contains the resource URL", aud)
        expect(claims.get("client_id") == self.clients[name]["client_id"], f"{label}: client_id claim", claims.get("client_id"))
        expect(claims.get("iss") == self.issuer and claims.get("sub") and claims.get("jti")
               and claims.get("exp", 0) - claims.get("iat", 0) == 3600, f"{label}: iss, sub, jti, iat and exp", claims)
        key = next((k for k in self.jwks["keys"] if k.get("kid") == header.get("kid") and k.get("kty") == "RSA"), None)
        expect(key is not None and rs256_verifies(token, key), f"{label}: the signature verifies with the JWKS key", header)

    # --- the checks -------------------------------------------------------------------------
    def run(self):
        expect(set(self.clients) == {"confidential", "public", "par-required", "short-par", "dpop-nonce",
                                     "dpop-nonce-loop", "bearer", "fapi2", "fapi2-message-signing"},
               "the nine clients", sorted(self.clients))
        expect(self.d["resource"] == self.issuer + "/resource", "resource URL")
        self.discovery()
        self.pushed_requests()
        self.plain_requests()
        self.dpop_tokens()
        self.refresh()
        self.userinfo_and_resource()
        self.nonces()
        self.bearer_client()
        self.revocation()
        self.bad_input()
        self.repeated_members()
        self.fapi2()
        self.counters()
        print("all checks passed")

    def fapi2(self):
        """The FAPI 2.0 clients (oauthflow_fapi.py): private_key_jwt, signed request objects, JARM."""
        from cryptography.hazmat.primitives import serialization

        ms = self.clients["fapi2-message-signing"]
        expect(ms["auth_method"] == "private_key_jwt" and ms.get("private_key_pem", "").startswith("-----BEGIN PRIVATE KEY-----")
               and ms.get("key_id"), "fapi2: a private_key_jwt client with its key in the description")
        key = Key()
        key.private = serialization.load_pem_private_key(ms["private_key_pem"].encode(), password=None)
        client_id = ms["client_id"]

        def signed(claims, signer=key, header=None):
            head = {"alg": "ES256", "kid": ms["key_id"]} if header is None else header
            signing_input = (b64(json.dumps(head).encode()) + "." + b64(json.dumps(claims).encode())).encode()
            return signing_input.decode() + "." + b64(signer.sign(signing_input))

        def assertion(aud):
            now = int(time.time())
            return signed({"iss": client_id, "sub": client_id, "aud": aud, "jti": uuid.uuid4().hex, "iat": now, "exp": now + 60})

        def push(request=None, aud=None, **plain):
            form = {"client_id": client_id, "client_assertion": assertion(aud or self.issuer),
                    "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
            if request is not None:
                form["request"] = request
            form.update(plain)
            return self.http.post(self.par_endpoint, data=form, timeout=10)

        verifier, challenge = pkce()
        state = secrets.token_urlsafe(8)
        now = int(time.time())
        claims = {"iss": client_id, "aud": self.issuer, "client_id": client_id, "response_type": "code",
                  "redirect_uri": self.redirect_uri, "scope": "openid", "state": state, "code_challenge": challenge,
                  "code_challenge_method": "S256", "response_mode": "jwt", "nbf": now, "exp": now + 300}

        plain = push(response_type="code", redirect_uri=self.redirect_uri, scope="openid", state=state,
                     code_challenge=challenge, code_challenge_method="S256")
        expect(plain.status_code == 400 and body(plain).get("error") == "invalid_request",
               "fapi2: the message-signing client's plain pushed request is refused", body(plain))
        refusals = {
            "aud another server": dict(claims, aud="https://elsewhere.example"),
            "an exp in the past": dict(claims, exp=now - 10, nbf=now - 100),
            "no nbf": {k: v for k, v in claims.items() if k != "nbf"},
            "a lifetime over 60 minutes": dict(claims, exp=now + 3700),
            "iss another client": dict(claims, iss="oauthflow-fapi2"),
        }
        for label, changed in refusals.items():
            answer = push(signed(changed))
            expect(answer.status_code == 400 and body(answer).get("error") == "invalid_request_object",
                   f"fapi2: a request object with {label} is refused", body(answer))
        answer = push(signed(claims, signer=Key()))
        expect(answer.status_code == 400 and body(answer).get("error") == "invalid_request_object",
               "fapi2: a request object signed by another key is refused", body(answer))
        unsigned = b64(json.dumps({"alg": "none"}).encode()) + "." + b64(json.dumps(claims).encode()) + "."
        answer = push(unsigned)
        expect(answer.status_code == 400, "fapi2: an unsigned request object is refused", body(answer))
        answer = push(signed(claims), aud="https://elsewhere.example")
        expect(answer.status_code == 401, "fapi2: a client assertion for another audience is refused", body(answer))
        answer = push(signed(claims), aud=self.par_endpoint)
        expect(answer.status_code == 201, "fapi2: a client assertion addressed to the endpoint is taken", body(answer))

        answer = push(signed(claims))
        expect(answer.status_code == 201, "fapi2: a signed request object, pushed", body(answer))
        redirect = self.authorize({"client_id": client_id, "request_uri": answer.json()["request_uri"]})
        location = redirect.headers.get("Location", "")
        args = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        expect(redirect.status_code == 302 and set(args) == {"response"}, "fapi2: the answer is one response JWT (JARM)", location)
        header, response = jwt_header(args["response"]), jwt_claims(args["response"])
        jwk = next((k for k in self.jwks["keys"] if k.get("kid") == header.get("kid")), {})
        expect(header.get("alg") == "PS256" and jwk.get("alg") == "PS256",
               "fapi2: the response JWT is PS256, by a key the JWKS publishes for PS256", header)
        expect(response.get("iss") == self.issuer and response.get("aud") == client_id and response.get("state") == state
               and response.get("code") and response.get("exp", 0) > time.time(), "fapi2: the response JWT's claims", response)
        public = rsa.RSAPublicNumbers(int.from_bytes(b64_decode(jwk["e"]), "big"),
                                      int.from_bytes(b64_decode(jwk["n"]), "big")).public_key()
        signing_input, signature = args["response"].rsplit(".", 1)
        try:
            public.verify(b64_decode(signature), signing_input.encode(),
                          padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
            verified = True
        except InvalidSignature:
            verified = False
        expect(verified, "fapi2: the response JWT's PS256 signature verifies")

    def discovery(self):
        d = self.http.get(self.issuer + "/.well-known/openid-configuration", timeout=10).json()
        expect(d["issuer"] == self.issuer, "discovery: issuer", d.get("issuer"))
        rfc8414 = self.http.get(self.issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
        expect(rfc8414 == d, "RFC 8414 metadata is the same document")
        for name in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "revocation_endpoint",
                     "jwks_uri", "pushed_authorization_request_endpoint"):
            expect(d.get(name, "").startswith(self.issuer + "/"), f"discovery: {name}", d.get(name))
        expect(d.get("require_pushed_authorization_requests") is False, "discovery: PAR not required globally")
        expect(d.get("dpop_signing_alg_values_supported") == ["ES256", "RS256", "PS256"],
               "discovery: dpop_signing_alg_values_supported", d.get("dpop_signing_alg_values_supported"))
        expect(d.get("code_challenge_methods_supported") == ["S256"], "discovery: PKCE S256")
        expect({"authorization_code", "refresh_token"} <= set(d.get("grant_types_supported", [])), "discovery: grant types")
        expect({"openid", "profile", "email", "offline_access"} <= set(d.get("scopes_supported", [])), "discovery: scopes")
        expect({"client_secret_basic", "client_secret_post", "none"} <= set(d.get("token_endpoint_auth_methods_supported", [])),
               "discovery: token endpoint auth methods", d.get("token_endpoint_auth_methods_supported"))
        expect("RS256" in d.get("id_token_signing_alg_values_supported", []), "discovery: ID tokens RS256")
        self.authorization_endpoint = d["authorization_endpoint"]
        self.token_endpoint = d["token_endpoint"]
        self.par_endpoint = d["pushed_authorization_request_endpoint"]
        self.userinfo_endpoint = d["userinfo_endpoint"]
        self.revocation_endpoint = d["revocation_endpoint"]
        jwks = self.http.get(d["jwks_uri"], timeout=10).json()
        expect(jwks.get("keys"), "jwks_uri answers")
        self.jwks = jwks

    def pushed_requests(self):
        response, verifier, form = self.push("confidential")
        answer = body(response)
        expect(response.status_code == 201, "PAR with client_secret_basic: 201", answer)
        expect(answer["request_uri"].startswith(PREFIX) and answer["expires_in"] == 60,
               "PAR answer: urn:ietf:params:oauth:request_uri:..., expires_in 60", answer)
        expect("no-store" in response.headers.get("Cache-Control", ""), "PAR answer: Cache-Control no-store")
        client_id = self.clients["confidential"]["client_id"]
        first = self.authorize({"client_id": client_id, "request_uri": answer["request_uri"]})
        args = self.code_from(first, form["state"])
        expect(args.get("iss") == self.issuer, "authorization answer carries iss (RFC 9207)", args)
        self.confidential_code = (args["code"], verifier)
        again = self.authorize({"client_id": client_id, "request_uri": answer["request_uri"]})
        expect(again.status_code == 400 and "text/html" in again.headers.get("Content-Type", ""),
               "a used request_uri: 400 error page", again.status_code)
        unknown = self.authorize({"client_id": client_id, "request_uri": PREFIX + "nothing-like-it"})
        expect(unknown.status_code == 400, "an unknown request_uri: 400 error page", unknown.status_code)

        response, _, _ = self.push("confidential")
        other = self.authorize({"client_id": self.clients["par-required"]["client_id"],
                                "request_uri": response.json()["request_uri"]})
        expect(other.status_code == 400, "another client's request_uri: 400 error page", other.status_code)

        form = {"response_type": "code", "redirect_uri": self.redirect_uri, "scope": "openid",
                "code_challenge": pkce()[1], "code_challenge_method": "S256", "client_id": client_id}
        response = self.post(self.par_endpoint, "confidential", form, no_auth=True)
        expect(response.status_code == 401 and body(response).get("error") == "invalid_client",
               "PAR without client authentication: 401 invalid_client", body(response))
        response = self.post(self.par_endpoint, "confidential", form, secret="wrong-secret")
        expect(response.status_code == 401 and body(response).get("error") == "invalid_client",
               "PAR with a wrong secret: 401 invalid_client", body(response))
        response, _, _ = self.push("confidential", request_uri=PREFIX + "x")
        expect(response.status_code == 400 and body(response).get("error") == "invalid_request",
               "a request_uri inside a pushed request: 400 invalid_request (RFC 9126 2.1)", body(response))
        response, _, _ = self.push("confidential", code_challenge=None, code_challenge_method=None)
        expect(response.status_code == 400 and body(response).get("error") == "invalid_request",
               "a pushed request without PKCE: 400 invalid_request", body(response))
        response, _, _ = self.push("confidential", redirect_uri="https://elsewhere.example/cb")
        expect(response.status_code == 400, "a pushed request with a non-loopback redirect_uri: 400", body(response))
        response, _, _ = self.push("public")
        expect(response.status_code == 201, "PAR by a public client (client_id only): 201", body(response))

        response, _, _ = self.push("short-par")
        answer = body(response)
        expect(response.status_code == 201 and answer["expires_in"] == 30, "short-par: expires_in 30", answer)
        time.sleep(30.5)
        expired = self.authorize({"client_id": self.clients["short-par"]["client_id"], "request_uri": answer["request_uri"]})
        expect(expired.status_code == 400 and "expired" in expired.text, "an expired request_uri: 400 error page",
               (expired.status_code, expired.text[:200]))

        code, verifier = self.pushed_code("par-required")
        response = self.redeem("par-required", code, verifier)
        expect(response.status_code == 200 and body(response).get("token_type") == "Bearer",
               "par-required: a pushed request works, Bearer without a proof", body(response))
        plain = self.authorize({"client_id": self.clients["par-required"]["client_id"], "response_type": "code",
                                "redirect_uri": self.redirect_uri, "scope": "openid", "state": "s",
                                "code_challenge": pkce()[1], "code_challenge_method": "S256"})
        expect(plain.status_code == 400 and "ushed authorization requests are required" in plain.text,
               "par-required: a plain request gets a 400 page saying pushed requests are required",
               (plain.status_code, plain.text[:200]))

    def plain_requests(self):
        verifier, challenge = pkce()
        query = {"client_id": self.clients["confidential"]["client_id"], "response_type": "code",
                 "redirect_uri": "http://localhost:40123/any/path", "scope": "openid email", "state": "st1",
                 "code_challenge": challenge, "code_challenge_method": "S256", "login_hint": "bob"}
        args = self.code_from(self.authorize(query), "st1")
        expect(args.get("iss") == self.issuer, "plain request to localhost on any port: code, state, iss")
        form = {"grant_type": "authorization_code", "code": args["code"], "redirect_uri": query["redirect_uri"],
                "code_verifier": verifier}
        response = self.post(self.token_endpoint, "confidential", form)
        answer = body(response)
        expect(response.status_code == 200 and answer["token_type"] == "Bearer" and "cnf" not in jwt_claims(answer["access_token"]),
               "no proof: a Bearer token without cnf", answer)
        self.bob_sub = jwt_claims(answer["id_token"])["sub"]
        expect(jwt_claims(answer["access_token"])["sub"] == self.bob_sub, "ID token and access token: the same sub")
        self.bob_bearer = answer["access_token"]
        self.profiled(answer["access_token"], "confidential", "a Bearer access token")

        bad = dict(query, redirect_uri="https://evil.example/cb")
        response = self.authorize(bad)
        expect(response.status_code == 400 and "text/html" in response.headers.get("Content-Type", ""),
               "a non-loopback redirect_uri: 400 error page, no redirect", response.status_code)
        response = self.authorize(dict(query, client_id="nobody"))
        expect(response.status_code == 400, "an unknown client: 400 error page", response.status_code)
        no_pkce = {k: v for k, v in query.items() if not k.startswith("code_challenge")}
        response = self.authorize(no_pkce)
        location = response.headers.get("Location", "")
        expect(response.status_code == 302 and "error=invalid_request" in location and location.startswith(query["redirect_uri"]),
               "no PKCE: redirected with error=invalid_request", location)
        plain_pkce = dict(query, code_challenge_method="plain")
        response = self.authorize(plain_pkce)
        expect(response.status_code == 302 and "error=" in response.headers.get("Location", ""),
               "PKCE plain: redirected with an error", response.headers.get("Location"))

        code, verifier = self.confidential_code
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri,
                "code_verifier": "wrong-" + verifier}
        response = self.post(self.token_endpoint, "confidential", form)
        expect(response.status_code == 400, "a wrong code_verifier: 400", body(response))

    def dpop_tokens(self):
        answer, key = self.dpop_token("public")
        claims = jwt_claims(answer["access_token"])
        expect(answer["token_type"] == "DPoP", "a proof: token_type DPoP", answer.get("token_type"))
        expect(claims.get("cnf", {}).get("jkt") == key.jkt, "the access token's cnf.jkt is the key's thumbprint", claims.get("cnf"))
        expect(answer.get("id_token"), "an ID token with it")
        self.alice_sub = jwt_claims(answer["id_token"])["sub"]
        self.alice_id_token = answer["id_token"]
        expect(self.alice_sub != self.bob_sub, "login_hint names the user (alice by default, bob differs)")
        self.dpop_access, self.dpop_key = answer["access_token"], key
        self.profiled(answer["access_token"], "public", "a DPoP-bound access token")

        rsa_key = Key("RS256")
        answer, _ = self.dpop_token("confidential", key=rsa_key)
        expect(jwt_claims(answer["access_token"]).get("cnf", {}).get("jkt") == rsa_key.jkt,
               "an RS256 proof key binds too (confidential client)")
        self.profiled(answer["access_token"], "confidential", "a DPoP-bound access token (confidential client)")

        # the same proof (same jti) twice
        code1, v1 = self.pushed_code("public")
        code2, v2 = self.pushed_code("public")
        key = Key()
        proof = key.proof("POST", self.token_endpoint)
        first = self.redeem("public", code1, v1, proof=proof)
        expect(first.status_code == 200, "a proof once: accepted", body(first))
        second = self.redeem("public", code2, v2, proof=proof)
        expect(second.status_code == 400 and body(second).get("error") == "invalid_dpop_proof",
               "the same proof (jti) again: 400 invalid_dpop_proof", body(second))

        for label, args, reason in (
            ("htu of another endpoint", {"htu": self.issuer + "/userinfo"}, None),
            ("htm GET", {"htm": "GET"}, None),
            ("iat two minutes old", {"iat": time.time() - 120}, None),
            ("typ jwt", {"typ": "jwt"}, None),
        ):
            code, verifier = self.pushed_code("public")
            htm = args.pop("htm", "POST")
            htu = args.pop("htu", self.token_endpoint)
            response = self.redeem("public", code, verifier, proof=key.proof(htm, htu, **args))
            expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
                   f"a proof with {label}: 400 invalid_dpop_proof", body(response))
        code, verifier = self.pushed_code("public")
        forged = key.proof("POST", self.token_endpoint)
        forged = forged[:-6] + ("AAAAAA" if not forged.endswith("AAAAAA") else "BBBBBB")
        response = self.redeem("public", code, verifier, proof=forged)
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
               "a proof with a bad signature: 400 invalid_dpop_proof", body(response))
        response = self.redeem("public", code, verifier, proof=key.proof("POST", self.token_endpoint, alg="HS256"))
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
               "a proof with alg HS256: 400 invalid_dpop_proof", body(response))

        # dpop_jkt (RFC 9449 10) and a proof at the PAR endpoint (10.1)
        a, b = Key(), Key()
        code, verifier = self.pushed_code("public", dpop_jkt=a.jkt)
        response = self.redeem("public", code, verifier, key=b)
        expect(response.status_code == 400 and body(response).get("error") in ("invalid_dpop_proof", "invalid_grant"),
               "dpop_jkt of another key: 400", body(response))
        response = self.redeem("public", code, verifier)
        expect(response.status_code == 400, "dpop_jkt and no proof: 400", body(response))
        response = self.redeem("public", code, verifier, key=a)
        expect(response.status_code == 200 and body(response)["token_type"] == "DPoP",
               "dpop_jkt's own key: the code is still good", body(response))
        code, verifier = self.pushed_code("public", proof=a.proof("POST", self.par_endpoint), dpop_jkt=None)
        response = self.redeem("public", code, verifier, key=b)
        expect(response.status_code == 400, "a proof at the PAR endpoint binds the code: another key refused", body(response))
        response = self.redeem("public", code, verifier, key=a)
        expect(response.status_code == 200, "a proof at the PAR endpoint: its key redeems the code", body(response))
        response, _, _ = self.push("public", proof=a.proof("POST", self.par_endpoint), dpop_jkt=b.jkt)
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
               "PAR: dpop_jkt differing from the proof's key: 400 invalid_dpop_proof", body(response))
        # a plain (not pushed) request's dpop_jkt binds too
        verifier, challenge = pkce()
        args = self.code_from(self.authorize({
            "client_id": self.clients["public"]["client_id"], "response_type": "code",
            "redirect_uri": self.redirect_uri, "scope": "openid", "state": "p",
            "code_challenge": challenge, "code_challenge_method": "S256", "dpop_jkt": a.jkt}))
        response = self.redeem("public", args["code"], verifier, key=b)
        expect(response.status_code == 400, "a plain request's dpop_jkt binds the code", body(response))

    def refresh(self):
        key = Key()
        answer, _ = self.dpop_token("public", key=key, scope="openid offline_access", prompt="consent")
        expect(answer.get("refresh_token"), "offline_access: a refresh token", answer)
        form = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"]}
        response = self.post(self.token_endpoint, "public", form, proof=Key().proof("POST", self.token_endpoint))
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
               "a public client's refresh with another key: 400 invalid_dpop_proof", body(response))
        response = self.post(self.token_endpoint, "public", form)
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof",
               "a public client's refresh without a proof: 400 invalid_dpop_proof", body(response))
        response = self.post(self.token_endpoint, "public", form, proof=key.proof("POST", self.token_endpoint))
        refreshed = body(response)
        expect(response.status_code == 200 and refreshed["token_type"] == "DPoP"
               and jwt_claims(refreshed["access_token"])["cnf"]["jkt"] == key.jkt,
               "refresh with the same key: token_type DPoP, same cnf.jkt", refreshed)
        self.profiled(refreshed["access_token"], "public", "an access token from a DPoP refresh")

        # a confidential client's refresh token is not bound; without a proof: Bearer, no cnf
        answer, _ = self.dpop_token("confidential", scope="openid offline_access", prompt="consent")
        form = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"]}
        response = self.post(self.token_endpoint, "confidential", form)
        refreshed = body(response)
        expect(response.status_code == 200 and refreshed["token_type"] == "Bearer"
               and "cnf" not in jwt_claims(refreshed["access_token"]),
               "a confidential client's refresh without a proof: Bearer, unbound", refreshed)
        self.profiled(refreshed["access_token"], "confidential", "an access token from a Bearer refresh")

    def userinfo_and_resource(self):
        token, key = self.dpop_access, self.dpop_key
        response = self.call(self.userinfo_endpoint, token=token, key=key)
        expect(response.status_code == 200 and body(response).get("sub") == self.alice_sub, "userinfo with DPoP", body(response))
        response = self.call(self.userinfo_endpoint, method="POST", token=token, key=key)
        expect(response.status_code == 200, "userinfo with DPoP, POST", body(response))
        response = self.call(self.userinfo_endpoint, token=token, scheme="Bearer")
        expect(response.status_code == 401, "userinfo: a DPoP-bound token as Bearer: 401", body(response))
        response = self.call(self.userinfo_endpoint, token=self.bob_bearer, scheme="Bearer")
        expect(response.status_code == 200 and body(response).get("sub") == self.bob_sub, "userinfo with Bearer (unbound)", body(response))

        hello = self.d["resource"] + "/hello"
        response = self.call(hello, token=token, key=key)
        answer = body(response)
        expect(response.status_code == 200 and answer["scheme"] == "DPoP" and answer["jkt"] == key.jkt
               and answer["sub"] == self.alice_sub and answer["client_id"] == self.clients["public"]["client_id"],
               "resource hello with DPoP", answer)
        response = self.call(hello + "/deeper/path?x=1&y=two", method="POST", token=token, key=key)
        answer = body(response)
        expect(response.status_code == 200 and answer["method"] == "POST" and answer["path"] == "/resource/hello/deeper/path"
               and answer["query"] == "x=1&y=two", "resource: POST, subpath and query", answer)

        def refused(response, error, label, scheme="DPoP"):
            challenge = response.headers.get("WWW-Authenticate", "")
            expect(response.status_code == 401 and challenge.startswith(scheme) and f'error="{error}"' in challenge,
                   label, (response.status_code, challenge, body(response)))

        refused(self.call(hello, token=token, scheme="Bearer"), "invalid_token",
                "resource: a DPoP-bound token as Bearer: 401 Bearer invalid_token", scheme="Bearer")
        proof = key.proof("GET", hello, token=token)
        self.call(hello, token=token, proof=proof)
        refused(self.call(hello, token=token, proof=proof), "invalid_dpop_proof", "resource: a replayed proof: 401")
        refused(self.call(hello + "?a=b", token=token, key=key, htu=hello + "?a=b"), "invalid_dpop_proof",
                "resource: htu with a query: 401")
        refused(self.call(hello, token=token, key=key, htu=self.d["resource"] + "/other"), "invalid_dpop_proof",
                "resource: htu of another URL: 401")
        refused(self.call(hello, method="POST", token=token, proof=key.proof("GET", hello, token=token)),
                "invalid_dpop_proof", "resource: htm of another method: 401")
        refused(self.call(hello, token=token, key=key, ath=b64(hashlib.sha256(b"other").digest())),
                "invalid_dpop_proof", "resource: a wrong ath: 401")
        refused(self.call(hello, token=token, key=key, ath=hashlib.sha256(token.encode()).hexdigest()),
                "invalid_dpop_proof", "resource: ath as hex (idpyoidc's reading): 401")
        refused(self.call(hello, token=token, key=Key()), "invalid_dpop_proof", "resource: another key: 401")
        refused(self.call(hello, token=token), "invalid_dpop_proof", "resource: DPoP without a proof: 401")
        self.unknown_token_proof = key.proof("GET", hello, token="not-a-token")
        refused(self.call(hello, token="not-a-token", proof=self.unknown_token_proof), "invalid_token", "resource: an unknown token: 401 invalid_token")
        response = self.call(hello, token=self.bob_bearer, scheme="Bearer")
        expect(response.status_code == 200 and body(response)["scheme"] == "Bearer" and body(response)["sub"] == self.bob_sub,
               "resource: an unbound token as Bearer", body(response))
        response = self.call(hello)
        expect(response.status_code == 401, "resource: no token: 401", response.status_code)

    def nonces(self):
        key = Key()
        code, verifier = self.pushed_code("dpop-nonce", dpop_jkt=key.jkt)
        first = self.redeem("dpop-nonce", code, verifier, key=key)
        nonce = first.headers.get("DPoP-Nonce")
        expect(first.status_code == 400 and body(first).get("error") == "use_dpop_nonce" and nonce,
               "dpop-nonce: a proof without the nonce: 400 use_dpop_nonce with DPoP-Nonce", body(first))
        second = self.redeem("dpop-nonce", code, verifier, proof=key.proof("POST", self.token_endpoint, nonce=nonce))
        expect(second.status_code == 200 and body(second)["token_type"] == "DPoP" and second.headers.get("DPoP-Nonce"),
               "dpop-nonce: the retry with the nonce: 200 DPoP, DPoP-Nonce sent again", body(second))

        code, verifier = self.pushed_code("dpop-nonce-loop")
        seen = set()
        for attempt in (1, 2):
            response = self.redeem("dpop-nonce-loop", code, verifier,
                                   proof=key.proof("POST", self.token_endpoint, nonce=seen and next(iter(seen)) or None))
            nonce = response.headers.get("DPoP-Nonce")
            expect(response.status_code == 400 and body(response).get("error") == "use_dpop_nonce" and nonce and nonce not in seen,
                   f"dpop-nonce-loop: use_dpop_nonce with a new nonce ({attempt})", body(response))
            seen.add(nonce)

        token, key = self.dpop_access, self.dpop_key
        url = self.d["resource"] + "/nonce/item"
        first = self.call(url, token=token, key=key)
        nonce = first.headers.get("DPoP-Nonce")
        challenge = first.headers.get("WWW-Authenticate", "")
        expect(first.status_code == 401 and 'error="use_dpop_nonce"' in challenge and nonce,
               "resource nonce: 401 use_dpop_nonce with DPoP-Nonce", (first.status_code, challenge))
        second = self.call(url, token=token, key=key, nonce=nonce)
        expect(second.status_code == 200 and body(second)["scheme"] == "DPoP", "resource nonce: the retry succeeds", body(second))
        loop = self.d["resource"] + "/nonce-loop/item"
        nonce = None
        for attempt in (1, 2):
            response = self.call(loop, token=token, key=key, nonce=nonce)
            expect(response.status_code == 401 and 'error="use_dpop_nonce"' in response.headers.get("WWW-Authenticate", "")
                   and response.headers.get("DPoP-Nonce") not in (None, nonce),
                   f"resource nonce-loop: always use_dpop_nonce ({attempt})", response.headers.get("WWW-Authenticate"))
            nonce = response.headers.get("DPoP-Nonce")

    def bearer_client(self):
        key = Key()
        code, verifier = self.pushed_code("bearer", dpop_jkt=key.jkt)
        response = self.redeem("bearer", code, verifier, key=key)
        answer = body(response)
        expect(response.status_code == 200 and answer["token_type"] == "Bearer" and "cnf" not in jwt_claims(answer["access_token"]),
               "bearer client: a proof is ignored, token_type Bearer, no cnf", answer)
        response = self.call(self.d["resource"] + "/hello", token=answer["access_token"], scheme="Bearer")
        expect(response.status_code == 200 and body(response)["scheme"] == "Bearer", "bearer client's token works as Bearer")
        self.profiled(answer["access_token"], "bearer", "the bearer client's access token")

    def revocation(self):
        answer, key = self.dpop_token("confidential")
        token = answer["access_token"]
        hello = self.d["resource"] + "/hello"
        expect(self.call(hello, token=token, key=key).status_code == 200, "before revocation: the token works")
        response = self.post(self.revocation_endpoint, "confidential", {"token": token},
                             proof=key.proof("POST", self.revocation_endpoint))
        expect(response.status_code == 200, "revocation (with a DPoP header): 200", response.text[:200])
        response = self.call(hello, token=token, key=key)
        expect(response.status_code == 401 and 'error="invalid_token"' in response.headers.get("WWW-Authenticate", ""),
               "after revocation: 401 invalid_token", response.headers.get("WWW-Authenticate"))
        response = self.post(self.revocation_endpoint, "confidential", {"token": token}, no_auth=True)
        expect(response.status_code == 401, "revocation without client authentication: 401", response.status_code)

    def bad_input(self):
        for label, kwargs in (
            ("garbage body", {"data": b"\xff\xfe=%%%&&&"}),
            ("a DPoP header that is no JWT", {"data": {"grant_type": "authorization_code", "code": "x"},
                                               "headers": {"DPoP": "not.a.jwt"}}),
            ("a repeated parameter", {"data": "grant_type=a&grant_type=b"}),
            ("a huge body", {"data": "x=" + "a" * 70000}),
        ):
            response = self.http.post(self.token_endpoint, timeout=10, **kwargs)
            expect(400 <= response.status_code < 500 and len(response.content) < 65536, f"token endpoint, {label}: 4xx",
                   (response.status_code, response.text[:200]))
        response = self.http.get(self.authorization_endpoint + "?client_id=%ff%fe&request_uri=", timeout=10, allow_redirects=False)
        expect(response.status_code == 400, "authorization endpoint, garbage: 400", response.status_code)
        response = self.call(self.d["resource"] + "/hello", token=self.dpop_access, proof="a." + "b" * 9000 + ".c")
        expect(response.status_code == 401, "resource, an oversized proof: 401", response.status_code)
        expect(self.http.get(self.issuer + "/.well-known/openid-configuration", timeout=10).status_code == 200,
               "the server still answers")

    def repeated_members(self):
        """RFC 7515 section 5.2, RFC 7519 section 7.2: every JWT repeating a member name is refused.
        Each proof is otherwise valid (see Key.proof's `repeat`); the same proof without the
        repetition, with the same jti (a refused proof's jti is never recorded), is accepted."""
        key = Key()
        code, verifier = self.pushed_code("public")
        jti = uuid.uuid4().hex
        for label, repeat, member in (
            ("htm (GET first)", ("claims", '"htm": "GET"'), "htm"),
            ("htu, written \\u0068tu once", ("claims", '"\\u0068tu": "https://elsewhere.example/token"'), "htu"),
            ("alg (HS256 first)", ("header", '"alg": "HS256"'), "alg"),
            ("a member of its jwk", ("jwk", '"crv": "P-384"'), "crv"),
        ):
            response = self.redeem("public", code, verifier,
                                   proof=key.proof("POST", self.token_endpoint, jti=jti, repeat=repeat))
            expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof"
                   and f"repeats the member '{member}'" in body(response).get("error_description", ""),
                   f"token endpoint: a proof repeating {label}: 400 invalid_dpop_proof", body(response))
        response = self.redeem("public", code, verifier, proof=key.proof("POST", self.token_endpoint, jti=jti))
        answer = body(response)
        expect(response.status_code == 200 and answer.get("token_type") == "DPoP",
               "token endpoint: the same proof without the repetition accepted", answer)
        token = answer["access_token"]

        jti = uuid.uuid4().hex
        response, _, _ = self.push("public", proof=key.proof("POST", self.par_endpoint, jti=jti,
                                                              repeat=("header", '"typ": "jwt"')))
        expect(response.status_code == 400 and body(response).get("error") == "invalid_dpop_proof"
               and "repeats the member 'typ'" in body(response).get("error_description", ""),
               "PAR endpoint: a proof repeating typ: 400 invalid_dpop_proof", body(response))
        response, _, _ = self.push("public", proof=key.proof("POST", self.par_endpoint, jti=jti))
        expect(response.status_code == 201, "PAR endpoint: the same proof without the repetition accepted", body(response))

        hello = self.d["resource"] + "/hello"
        jti = uuid.uuid4().hex
        response = self.call(hello, token=token, key=key, jti=jti, repeat=("claims", '"ath": "' + b64(b"other") + '"'))
        challenge = response.headers.get("WWW-Authenticate", "")
        expect(response.status_code == 401 and 'error="invalid_dpop_proof"' in challenge
               and "repeats the member 'ath'" in challenge, "resource: a proof repeating ath: 401 invalid_dpop_proof",
               (response.status_code, challenge))
        response = self.call(hello, token=token, key=key, jti=jti)
        expect(response.status_code == 200 and body(response).get("jkt") == key.jkt,
               "resource: the same proof without the repetition accepted", body(response))

        # The server's own JWTs: a copy with a member written twice no longer verifies either, so
        # the description shows which check refused it.
        repeated = payload_written_first(token, '"cnf": {"jkt": "' + Key().jkt + '"}')
        response = self.call(hello, token=repeated, key=key)
        challenge = response.headers.get("WWW-Authenticate", "")
        expect(response.status_code == 401 and 'error="invalid_token"' in challenge
               and "access token's payload repeats the member 'cnf'" in challenge,
               "resource: an access token repeating cnf: 401 invalid_token", (response.status_code, challenge))
        repeated = payload_written_first(self.alice_id_token, '"sub": "mallory"')
        response, _, _ = self.push("public", id_token_hint=repeated)
        expect(response.status_code == 400 and body(response).get("error") == "invalid_request"
               and "id_token_hint's payload repeats the member 'sub'" in body(response).get("error_description", ""),
               "PAR endpoint: an id_token_hint repeating sub: 400 invalid_request", body(response))
        response, _, _ = self.push("public", id_token_hint=self.alice_id_token)
        expect(response.status_code == 201, "PAR endpoint: the same id_token_hint without the repetition accepted",
               body(response))
        verifier, challenge = pkce()
        response = self.authorize({
            "client_id": self.clients["public"]["client_id"], "response_type": "code", "redirect_uri": self.redirect_uri,
            "scope": "openid", "state": "r", "code_challenge": challenge, "code_challenge_method": "S256",
            "id_token_hint": repeated})
        location = response.headers.get("Location", "")
        args = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        expect(response.status_code == 302 and location.startswith(self.redirect_uri) and args.get("error") == "invalid_request"
               and "repeats the member 'sub'" in args.get("error_description", "") and args.get("state") == "r",
               "authorization endpoint: an id_token_hint repeating sub: redirected with invalid_request", location)

    def counters(self):
        stats = self.stats()
        public = self.clients["public"]["client_id"]
        expect(stats["par_requests"].get(public, 0) >= 10, "stats: par_requests per client", stats["par_requests"])
        expect(stats["authorization_requests"].get(self.clients["par-required"]["client_id"]) == {"pushed": 2, "plain": 1},
               "stats: authorization_requests pushed/plain", stats["authorization_requests"])
        expect(stats["token_requests"].get(public, {}).get("with_proof", 0) > 5
               and stats["token_requests"].get(public, {}).get("without_proof", 0) >= 1,
               "stats: token_requests with and without proof", stats["token_requests"])
        expect(sum(stats["nonce_demands"].values()) >= 6, "stats: nonce_demands", stats["nonce_demands"])
        for reason in ("replay", "htu", "htm", "ath", "signature", "jkt", "iat", "typ", "alg", "malformed"):
            expect(stats["proofs_refused"].get(reason, 0) >= 1, f"stats: proofs_refused {reason}", stats["proofs_refused"])
        expect(stats["resource_requests"].get("DPoP", 0) > 5 and stats["resource_requests"].get("Bearer", 0) >= 2,
               "stats: resource_requests per scheme", stats["resource_requests"])
        jtis = self.http.get(self.issuer + "/test/jtis", timeout=10)
        expect(len(jtis.content) < 65536, "/test/jtis is under 64 KiB", len(jtis.content))
        listed = json.dumps(jtis.json())
        mine = [j for j in self.sent_jtis[-100:] if j]
        missing = [j for j in mine if j not in listed]
        expect(not missing, "/test/jtis lists the proofs' jti values", missing)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check.py par-server.json", file=sys.stderr)
        sys.exit(2)
    Check(sys.argv[1]).run()
