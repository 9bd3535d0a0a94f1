"""An enterprise identity provider and an authorization server that redeems its Identity Assertion JWT
Authorization Grants (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant; MCP's enterprise-managed
authorization), for the end-to-end tests of OAuthFlow's MCP client and protected MCP server.

JOSE is PyJWT's (on cryptography); HTTP is the standard library's. Both roles share one port:

    python server.py STATE_DIR

binds a free port on 127.0.0.1 and, once it serves, writes STATE_DIR/idjag-server.json 0600:

    {"issuer": "http://127.0.0.1:PORT/as",                     the authorization server
     "metadata": "http://127.0.0.1:PORT/.well-known/oauth-authorization-server/as",
     "idp_issuer": "http://127.0.0.1:PORT/idp",                the identity provider
     "idp_client_id": "enterprise-agent", "idp_client_secret": "...",
     "client_id": "mcp-agent", "client_secret": "...",          the client at the authorization server
     "minting_issuer": "https://idp.minting.test",             a second identity provider the authorization
     "minting_key": "STATE_DIR/minting-key.pem"}               server trusts, whose key (0600) the tests sign with

The identity provider (/idp): OpenID Connect metadata, keys, an authorization endpoint that consents at once
(PKCE S256 required, `iss` in the redirect), and a token endpoint for the authorization code (an ES256 ID token
for `alice`, a refresh token), the refresh token, and token exchange (RFC 8693): an ID token it issued to
`enterprise-agent`, `subject_token_type` id_token, `requested_token_type` id-jag, an `audience` and a `resource`
give an ID-JAG (`typ: oauth-id-jag+jwt`; `client_id` the client's id at that audience, `mcp-agent`; five minutes).
It authenticates the client with its secret (Basic or in the body).

The authorization server (/as): RFC 8414 metadata (the JWT bearer grant and the ID-JAG grant profile), its keys,
and a token endpoint for the JWT bearer grant (RFC 7523) that authenticates the client (client_secret_basic,
form-decoded, or client_secret_post) and checks the ID-JAG: header `typ` oauth-id-jag+jwt and `alg` ES256, the
signature with the key of a trusted issuer, `aud` its own issuer, `client_id` the client that authenticated,
`resource` an MCP server on 127.0.0.1 (path /mcp) and the `resource` parameter when one is sent, `exp`, `iat` and
`jti` present and not expired (30 s of leeway), and `jti` never seen before (a replay is refused until the grant
would have expired). As strict as the draft: `aud` is its issuer alone (a list of several is refused), the grant lives
at most MAX_LIFETIME seconds, and one bound to a key (`cnf.jkt`) is redeemed only with a DPoP proof (RFC 9449) of that
key for this token endpoint. Its metadata names only what it serves: no authorization endpoint, no PKCE (RFC 8414
§2: `authorization_endpoint` is required only of a server with a grant that uses it).

The same authorization server under a second issuer (/as-sdk, `sdk_issuer`), for the Python MCP SDK's ID-JAG client:
that SDK's metadata model (mcp/shared/auth.py, `OAuthMetadata`) requires an `authorization_endpoint`, so this issuer's
metadata names one, which refuses every request (400 `unsupported_response_type`). Its grants and tokens are its own
(`aud` and `iss` this issuer). It issues an ES256 JWT access token (RFC 9068: `typ` at+jwt, `aud` the resource, `sub`, the
`client_id`, `scope` the requested scopes the grant allows) for five minutes. Every refusal is RFC 6749 §5.2 JSON.

HTTP besides:
    GET /test/stats     what the authorization server saw: grants redeemed and refused (error and description)
"""

import base64
import hmac
import json
import os
import secrets
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "oauth-id-jag+jwt"
LEEWAY = 30
# The longest an ID-JAG may live (`exp` - `iat`): the draft's grants are short-lived, and this server says how short.
MAX_LIFETIME = 600
MAX_BODY = 64 * 1024


class Key:
    """An ES256 key with its public JWK."""

    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.kid = secrets.token_urlsafe(8)
        self.jwk = json.loads(ECAlgorithm.to_jwk(self.private.public_key()))
        self.jwk.update({"kid": self.kid, "alg": "ES256", "use": "sig"})

    def sign(self, claims, typ):
        return jwt.encode(claims, self.private, algorithm="ES256", headers={"typ": typ, "kid": self.kid})


class World:
    def __init__(self, base, state):
        self.base = base
        self.idp_issuer = base + "/idp"
        self.as_issuer = base + "/as"
        self.sdk_issuer = base + "/as-sdk"
        self.minting_issuer = "https://idp.minting.test"
        self.idp_key = Key()
        self.as_key = Key()
        self.minting_key = Key()
        self.idp_client = ("enterprise-agent", secrets.token_urlsafe(24))
        self.as_client = ("mcp-agent", secrets.token_urlsafe(24))
        # The identity provider's client at each authorization server it issues grants for.
        self.mapped_clients = {self.as_issuer: self.as_client[0], self.sdk_issuer: self.as_client[0]}
        self.codes = {}
        self.refresh_tokens = {}
        self.seen_jti = {}
        self.lock = threading.Lock()
        self.stats = {"redeemed": [], "refused": [], "exchanges": []}
        path = os.path.join(state, "minting-key.pem")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(
                self.minting_key.private.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                )
            )
        self.minting_key_path = path
        self.trusted = {self.idp_issuer: self.idp_key, self.minting_issuer: self.minting_key}

    # MARK: identity provider

    def idp_metadata(self):
        i = self.idp_issuer
        return {
            "issuer": i,
            "authorization_endpoint": i + "/authorize",
            "token_endpoint": i + "/token",
            "jwks_uri": i + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "authorization_response_iss_parameter_supported": True,
        }

    def idp_authorize(self, query):
        q = {k: v[0] for k, v in query.items()}
        redirect = q.get("redirect_uri", "")
        if q.get("client_id") != self.idp_client[0] or not redirect.startswith("http://127.0.0.1"):
            return 400, {"error": "invalid_request", "error_description": "unknown client or redirect URI"}, None
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return 400, {"error": "invalid_request", "error_description": "PKCE S256 is required"}, None
        code = secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = {
                "redirect_uri": redirect,
                "challenge": q["code_challenge"],
                "nonce": q.get("nonce"),
                "scope": q.get("scope", ""),
                "expires": time.time() + 60,
            }
        answer = {"code": code, "iss": self.idp_issuer}
        if "state" in q:
            answer["state"] = q["state"]
        return 302, None, redirect + ("&" if "?" in redirect else "?") + urlencode(answer)

    def id_token(self, nonce=None):
        now = int(time.time())
        claims = {
            "iss": self.idp_issuer,
            "sub": "alice",
            "aud": self.idp_client[0],
            "iat": now,
            "exp": now + 600,
            "email": "alice@example.com",
        }
        if nonce:
            claims["nonce"] = nonce
        return self.idp_key.sign(claims, "JWT")

    def idp_tokens(self, scope, nonce=None, bound=False):
        refresh = secrets.token_urlsafe(24)
        with self.lock:
            self.refresh_tokens[refresh] = scope
        return {
            "access_token": secrets.token_urlsafe(24),
            "token_type": "DPoP" if bound else "Bearer",
            "expires_in": 600,
            "id_token": self.id_token(nonce),
            "refresh_token": refresh,
            "scope": scope,
        }

    def idp_token(self, form, authorization, dpop=None):
        client, error = self.client(form, authorization, self.idp_client)
        if error:
            return error
        # A DPoP proof (RFC 9449) for this token endpoint binds what it issues to the proof's key: its access tokens
        # (`token_type: DPoP`) and its ID-JAGs (`cnf.jkt`, the draft's sender-constrained grants).
        jkt = self.proof_thumbprint(dpop, self.idp_issuer) if dpop else None
        if dpop and jkt is None:
            return 400, {"error": "invalid_dpop_proof", "error_description": "the DPoP proof is not valid for this token endpoint"}
        grant = form.get("grant_type")
        if grant == "authorization_code":
            with self.lock:
                code = self.codes.pop(form.get("code", ""), None)
            if not code or code["expires"] < time.time() or code["redirect_uri"] != form.get("redirect_uri"):
                return 400, {"error": "invalid_grant", "error_description": "unknown or expired code"}
            verifier = form.get("code_verifier", "")
            digest = hashes.Hash(hashes.SHA256())
            digest.update(verifier.encode())
            challenge = base64.urlsafe_b64encode(digest.finalize()).rstrip(b"=").decode()
            if not hmac.compare_digest(challenge, code["challenge"]):
                return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
            return 200, self.idp_tokens(code["scope"], code["nonce"], bound=jkt is not None)
        if grant == "refresh_token":
            with self.lock:
                scope = self.refresh_tokens.pop(form.get("refresh_token", ""), None)
            if scope is None:
                return 400, {"error": "invalid_grant", "error_description": "unknown refresh token"}
            return 200, self.idp_tokens(scope, bound=jkt is not None)
        if grant == TOKEN_EXCHANGE:
            return self.exchange(form, jkt)
        return 400, {"error": "unsupported_grant_type", "error_description": "unsupported grant"}

    def exchange(self, form, jkt=None):
        if form.get("requested_token_type") != ID_JAG or form.get("subject_token_type") != ID_TOKEN:
            return 400, {"error": "invalid_request", "error_description": "only ID tokens are exchanged, for ID-JAGs"}
        audience, resource = form.get("audience"), form.get("resource")
        if not audience or not resource:
            return 400, {"error": "invalid_request", "error_description": "audience and resource are required"}
        try:
            subject = jwt.decode(
                form.get("subject_token", ""),
                self.idp_key.private.public_key(),
                algorithms=["ES256"],
                audience=self.idp_client[0],
                issuer=self.idp_issuer,
                leeway=LEEWAY,
            )
        except jwt.PyJWTError as error:
            return 400, {"error": "invalid_grant", "error_description": f"invalid ID token: {error}"}
        mapped = self.mapped_clients.get(audience)
        if mapped is None:
            return 400, {"error": "invalid_target", "error_description": "no client of this client at that audience"}
        now = int(time.time())
        claims = {
            "iss": self.idp_issuer,
            "sub": subject["sub"],
            "aud": audience,
            "resource": resource,
            "client_id": mapped,
            "jti": str(uuid.uuid4()),
            "iat": now,
            "exp": now + 300,
        }
        if form.get("scope"):
            claims["scope"] = form["scope"]
        if jkt:
            claims["cnf"] = {"jkt": jkt}
        with self.lock:
            self.stats["exchanges"].append({"audience": audience, "resource": resource, "scope": form.get("scope"), "bound": bool(jkt)})
        grant = self.idp_key.sign(claims, ID_JAG_TYPE)
        return 200, {"access_token": grant, "issued_token_type": ID_JAG, "token_type": "N_A", "expires_in": 300}

    # MARK: authorization server

    def as_metadata(self, issuer=None):
        i = issuer or self.as_issuer
        metadata = {
            "issuer": i,
            "token_endpoint": i + "/token",
            "jwks_uri": i + "/jwks",
            "grant_types_supported": [JWT_BEARER],
            "authorization_grant_profiles_supported": ["urn:ietf:params:oauth:grant-profile:id-jag"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }
        if i == self.sdk_issuer:
            metadata.update({"authorization_endpoint": i + "/authorize", "response_types_supported": ["code"]})
        return metadata

    def as_token(self, form, authorization, dpop=None, issuer=None):
        status, answer = self.redeem(form, authorization, dpop, issuer or self.as_issuer)
        with self.lock:
            if status == 200:
                bound, subject = answer.pop("_bound", (False, None))
                self.stats["redeemed"].append({"scope": answer.get("scope"), "bound": bound, "sub": subject})
            else:
                self.stats["refused"].append(answer)
        return status, answer

    def proof_thumbprint(self, proof, issuer):
        """The RFC 7638 thumbprint of the key a valid DPoP proof (RFC 9449 §4.3) for this token endpoint was made
        with; None for a proof that is not one."""
        try:
            header = jwt.get_unverified_header(proof)
            jwk = header.get("jwk")
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or not isinstance(jwk, dict):
                return None
            if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256" or "d" in jwk:
                return None
            claims = jwt.decode(proof, ECAlgorithm.from_jwk(json.dumps(jwk)), algorithms=["ES256"])
        except (jwt.PyJWTError, ValueError, KeyError, TypeError):
            return None
        iat = claims.get("iat")
        if claims.get("htm") != "POST" or claims.get("htu") != issuer + "/token" or not claims.get("jti"):
            return None
        if not isinstance(iat, (int, float)) or abs(time.time() - iat) > 60:
            return None
        members = json.dumps({name: jwk[name] for name in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
        digest = hashes.Hash(hashes.SHA256())
        digest.update(members.encode("utf-8"))
        return base64.urlsafe_b64encode(digest.finalize()).rstrip(b"=").decode("ascii")

    def redeem(self, form, authorization, dpop, issuer):
        client, error = self.client(form, authorization, self.as_client)
        if error:
            return error
        if form.get("grant_type") != JWT_BEARER:
            return 400, {"error": "unsupported_grant_type", "error_description": "only the JWT bearer grant is taken"}
        assertion = form.get("assertion", "")
        if not assertion:
            return 400, {"error": "invalid_request", "error_description": "no assertion"}

        def refuse(why):
            return 400, {"error": "invalid_grant", "error_description": why}

        try:
            header = jwt.get_unverified_header(assertion)
            unverified = jwt.decode(assertion, options={"verify_signature": False})
        except jwt.PyJWTError:
            return refuse("the assertion is not a JWT")
        if header.get("typ") != ID_JAG_TYPE:
            return refuse("the assertion's typ is not oauth-id-jag+jwt")
        if header.get("alg") != "ES256":
            return refuse("the assertion is not signed with ES256")
        key = self.trusted.get(unverified.get("iss"))
        if key is None:
            return refuse("the assertion's issuer is not trusted")
        audience = unverified.get("aud")
        if isinstance(audience, list) and len(audience) != 1:
            return refuse("the ID-JAG names several audiences; its aud is this server's issuer alone")
        try:
            claims = jwt.decode(
                assertion,
                key.private.public_key(),
                algorithms=["ES256"],
                audience=issuer,
                issuer=unverified["iss"],
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "jti", "sub", "aud", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            return refuse("the ID-JAG has expired")
        except jwt.InvalidAudienceError:
            return refuse("the ID-JAG is for another audience")
        except jwt.PyJWTError as error:
            return refuse(f"the ID-JAG does not verify: {error}")
        if claims.get("client_id") != client:
            return refuse("the ID-JAG's client_id is not the client that presents it")
        lifetime = claims["exp"] - claims["iat"] if all(isinstance(claims[n], (int, float)) for n in ("exp", "iat")) else None
        if lifetime is None or lifetime > MAX_LIFETIME:
            return refuse(f"the ID-JAG lives longer than {MAX_LIFETIME} s (exp - iat)")
        if "cnf" in claims:
            bound = claims["cnf"].get("jkt") if isinstance(claims["cnf"], dict) else None
            if not isinstance(bound, str) or not bound:
                return refuse("the ID-JAG's cnf names no jkt")
            if not dpop or self.proof_thumbprint(dpop, issuer) != bound:
                return refuse("the ID-JAG is bound to a key (cnf.jkt) and no DPoP proof of that key came")
        redeemed_bound = "cnf" in claims
        resource = claims.get("resource")
        parts = urlsplit(resource) if isinstance(resource, str) else None
        if not parts or parts.scheme != "http" or parts.hostname != "127.0.0.1" or parts.path != "/mcp":
            return refuse("the ID-JAG's resource is not one of this server's")
        if form.get("resource") and form["resource"] != resource:
            return refuse("the resource asked for is not the ID-JAG's")
        now = time.time()
        with self.lock:
            self.seen_jti = {jti: until for jti, until in self.seen_jti.items() if until > now}
            if claims["jti"] in self.seen_jti:
                return refuse("the ID-JAG was already redeemed (its jti is known)")
            self.seen_jti[claims["jti"]] = claims["exp"] + LEEWAY
        asked = form.get("scope", "").split()
        granted = claims.get("scope", "").split() if "scope" in claims else asked
        scopes = [scope for scope in asked if scope in granted] if asked else granted
        issued = int(now)
        token = self.as_key.sign(
            {
                "iss": issuer,
                "sub": claims["sub"],
                "aud": resource,
                "client_id": client,
                "scope": " ".join(scopes),
                "iat": issued,
                "exp": issued + 300,
                "jti": str(uuid.uuid4()),
            },
            "at+jwt",
        )
        # `_bound` reaches only the statistics (as_token takes it out): whether the grant was bound and proven, and whose.
        answer = {"access_token": token, "token_type": "Bearer", "expires_in": 300, "_bound": (redeemed_bound, claims["sub"])}
        if scopes:
            answer["scope"] = " ".join(scopes)
        return 200, answer

    # MARK: both

    def client(self, form, authorization, expected):
        """The authenticated client id: Basic (form-decoded, RFC 6749 §2.3.1) or client_secret_post."""
        if authorization and authorization.lower().startswith("basic "):
            try:
                decoded = base64.b64decode(authorization[6:], validate=True).decode()
                raw_id, raw_secret = decoded.split(":", 1)
            except (ValueError, UnicodeDecodeError):
                return None, (401, {"error": "invalid_client", "error_description": "malformed Basic credentials"})
            client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
        else:
            client_id, secret = form.get("client_id"), form.get("client_secret")
        if client_id != expected[0] or secret is None or not hmac.compare_digest(secret, expected[1]):
            return None, (401, {"error": "invalid_client", "error_description": "client authentication failed"})
        return client_id, None


def handler(holder):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            sys.stderr.write("%s %s\n" % (self.command, self.path.split("?")[0]))

        def send(self, status, body, location=None):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            if body is not None:
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            world = holder["world"]
            url = urlsplit(self.path)
            routes = {
                "/.well-known/oauth-authorization-server/as": world.as_metadata,
                "/.well-known/oauth-authorization-server/as-sdk": lambda: world.as_metadata(world.sdk_issuer),
                "/as-sdk/jwks": lambda: {"keys": [world.as_key.jwk]},
                "/as/.well-known/oauth-authorization-server": world.as_metadata,
                "/.well-known/openid-configuration/idp": world.idp_metadata,
                "/idp/.well-known/openid-configuration": world.idp_metadata,
                "/idp/jwks": lambda: {"keys": [world.idp_key.jwk]},
                "/as/jwks": lambda: {"keys": [world.as_key.jwk]},
                "/test/stats": lambda: world.stats,
            }
            if url.path in routes:
                return self.send(200, routes[url.path]())
            if url.path == "/as-sdk/authorize":
                return self.send(400, {"error": "unsupported_response_type", "error_description": "only the JWT bearer grant"})
            if url.path == "/idp/authorize":
                status, body, location = world.idp_authorize(parse_qs(url.query))
                return self.send(status, body, location)
            self.send(404, {"error": "not_found"})

        def do_POST(self):
            world = holder["world"]
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.send(413, {"error": "invalid_request", "error_description": "too large"})
            body = self.rfile.read(length).decode("utf-8", "replace")
            pairs = parse_qs(body, keep_blank_values=True)
            if any(len(values) > 1 for values in pairs.values()):
                return self.send(400, {"error": "invalid_request", "error_description": "a parameter is repeated"})
            form = {name: values[0] for name, values in pairs.items()}
            authorization = self.headers.get("Authorization")
            if url.path == "/idp/token":
                return self.send(*world.idp_token(form, authorization, self.headers.get("DPoP")))
            if url.path == "/as/token":
                return self.send(*world.as_token(form, authorization, self.headers.get("DPoP")))
            if url.path == "/as-sdk/token":
                return self.send(*world.as_token(form, authorization, self.headers.get("DPoP"), world.sdk_issuer))
            self.send(404, {"error": "not_found"})

    return Handler


def main():
    state = sys.argv[1]
    os.makedirs(state, exist_ok=True)
    holder = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(holder))
    port = server.server_address[1]
    world = holder["world"] = World(f"http://127.0.0.1:{port}", state)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    description = {
        "issuer": world.as_issuer,
        "sdk_issuer": world.sdk_issuer,
        "metadata": world.base + "/.well-known/oauth-authorization-server/as",
        "idp_issuer": world.idp_issuer,
        "idp_client_id": world.idp_client[0],
        "idp_client_secret": world.idp_client[1],
        "client_id": world.as_client[0],
        "client_secret": world.as_client[1],
        "minting_issuer": world.minting_issuer,
        "minting_key": world.minting_key_path,
    }
    path = os.path.join(state, "idjag-server.json")
    temporary = path + ".tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(description, handle)
    os.replace(temporary, path)
    server.serve_forever()


if __name__ == "__main__":
    main()
