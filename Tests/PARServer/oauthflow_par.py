"""What the PAR and DPoP server (server.py) adds to idpyoidc 5.0.0. The classes below are named
by server.py's configuration (idpyoidc imports them by name); the DPoP proof checks, the nonces
and the request_uri store are used by server.py's HTTP front.

Authorization, PushedAuthorization: idpyoidc's OpenID Connect authorization endpoint and its
pushed authorization request endpoint, with the redirect URI rule of native apps (RFC 8252
section 7.3): any http://127.0.0.1:PORT/PATH or http://localhost:PORT/PATH, whatever the port,
for every client. idpyoidc compares a redirect URI with the registered ones exactly (port
included), or, on an OAuth 2.0 endpoint with none registered, accepts any URI at all; these
endpoints are OAuth 2.0 ones to idpyoidc's redirect URI check (no URI registered, so it only
refuses a fragment) and apply the loopback rule first.

ResourceAccessToken: idpyoidc's JWT access tokens (JWTToken) in the RFC 9068 profile: header
`typ: at+jwt` and the protected resource's URL (the handler's `aud` argument) in `aud`. idpyoidc
5.0.0's JWTToken takes an `aud` argument but never uses it (its tokens' `aud` is only the grant's
resources, by default the client_id), and signs without header parameters beyond alg and kid.
Its `client_id` and `sub` claims come from idpyoidc as they are.

LoginHintAuthn: a user authentication without a login page: the user is the one the front names
(the request's login_hint, default alice). idpyoidc's NoAuthn always answers the same user.

Users: claims for any user name (idpyoidc's UserInfo answers {} for a user not in its table).

DPoPVerifier: the checks of a DPoP proof, RFC 9449 section 4.3. idpyoidc 5.0.0's add_on/dpop.py
verifies the signature, htm and htu, but not iat, jti (replays), the algorithm (any, HS256 too),
that the jwk is public, nor a nonce (section 8); and it compares `ath` with a hex SHA-256 digest
of the access token where RFC 9449 section 4.2 says base64url (so a conforming proof is refused
at its userinfo endpoint). The front uses this class for every proof instead of the add-on. A
proof whose header or claims repeat a member name is malformed (RFC 7515 section 5.2, RFC 7519
section 7.2; json.loads would keep the last of them).

Nonces: server-provided DPoP nonces, RFC 9449 section 8 (token endpoint) and section 9
(resource server). idpyoidc has none.

RequestURIs: the pushed requests' request_uri values, RFC 9126 section 2.2: idpyoidc names them
urn:uuid:..., not urn:ietf:params:oauth:request_uri:..., keeps them for ever (its `ttl` is only
the expires_in it answers) and does not check that the client using one is the client that
pushed it (section 4). The front hands out urn:ietf:params:oauth:request_uri:... values from
here, each mapped to idpyoidc's urn:uuid with its client and its expiry.
"""

import base64
import hashlib
import json
import logging
import secrets
import time
from urllib.parse import urlsplit

from cryptojwt.jwk.jwk import key_from_jwk_dict
from cryptojwt.jws.jws import JWS
from cryptojwt.jwt import utc_time_sans_frac
from idpyoidc.server.oauth2.pushed_authorization import (
    PushedAuthorization as IdpyPushedAuthorization,
)
from cryptojwt.jwt import JWT
from idpyoidc.server.oidc.authorization import Authorization as IdpyAuthorization
from idpyoidc.server.token.jwt_token import JWTToken
from idpyoidc.server.user_authn.user import UserAuthnMethod
from idpyoidc.server.user_info import UserInfo
# The test servers' shared check (Tests/ExchangeServer/repeated_members.py; server.py puts its
# directory on the path).
from repeated_members import repeated_member

log = logging.getLogger("par-server")

DPOP_ALGS = ["ES256", "RS256", "PS256"]
# How far a proof's iat may be from now, in seconds (RFC 9449 section 11.1 leaves it to the
# server), and how long a jti is remembered: longer than a proof is accepted.
IAT_WINDOW = 60
JTI_MEMORY = 2 * IAT_WINDOW + 10
NONCE_LIFETIME = 300
PAR_PREFIX = "urn:ietf:params:oauth:request_uri:"


# --- redirect URIs --------------------------------------------------------------------------
def loopback_redirect_uri_error(uri):
    """Why uri is not a loopback redirect URI of a native app (RFC 8252 sections 7.3 and 8.3),
    or None when it is one: http, host 127.0.0.1 or localhost, any port, any path, no fragment."""
    if not isinstance(uri, str) or not uri:
        return "redirect_uri is missing"
    if len(uri) > 2000:
        return "redirect_uri is too long"
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return "redirect_uri is not a URL"
    if parts.scheme != "http":
        return "redirect_uri must be http (a loopback redirect, RFC 8252 section 7.3)"
    if parts.hostname not in ("127.0.0.1", "localhost") or parts.username or parts.password:
        return "redirect_uri must be on 127.0.0.1 or localhost (RFC 8252 section 7.3)"
    if port is None:
        return "redirect_uri has no port"
    if parts.fragment or "#" in uri:
        return "redirect_uri must not have a fragment"
    return None


class LoopbackRedirects:
    """The loopback rule before idpyoidc's own checks (see the module's docstring)."""

    endpoint_type = "oauth2"  # to idpyoidc's verify_uri: no exact match against registered URIs

    def _post_parse_request(self, request, client_id, context, **kwargs):
        if request and "error" not in request and "redirect_uri" in request:
            problem = loopback_redirect_uri_error(request["redirect_uri"])
            if problem:
                return self.authentication_error_response(
                    request, error="invalid_request", error_description=problem
                )
        return super()._post_parse_request(request, client_id, context, **kwargs)


class Authorization(LoopbackRedirects, IdpyAuthorization):
    pass


class PushedAuthorization(LoopbackRedirects, IdpyPushedAuthorization):
    pass


# --- access tokens --------------------------------------------------------------------------
ACCESS_TOKEN_TYP = "at+jwt"


class ResourceAccessToken(JWTToken):
    """See the module's docstring."""

    def load_custom_claims(self, payload=None):
        # RFC 9068 section 3: aud names the resource server; idpyoidc's value (the grant's
        # resources, by default the client_id) stays, the resource's URL is added.
        aud = payload.get("aud") or []
        aud = [aud] if isinstance(aud, str) else list(aud)
        payload["aud"] = list(dict.fromkeys(aud + list(self.def_aud)))
        return payload

    def __call__(self, session_id="", token_class="", usage_rules=None, profile=None, with_jti=None, **payload):
        # JWTToken.__call__ (idpyoidc 5.0.0) step by step, with the JWS header typ: at+jwt
        # (RFC 9068 section 2.1), which its signer.pack(payload) cannot be given.
        payload.update({"sid": session_id, "token_class": token_class or self.token_class or "authorization_code"})
        payload = self.load_custom_claims(payload)
        if usage_rules and "expires_in" in usage_rules:
            lifetime = usage_rules.get("expires_in")
        else:
            lifetime = self.lifetime
        signer = JWT(key_jar=self.upstream_get("attribute", "keyjar"), iss=self.issuer, lifetime=lifetime,
                     sign_alg=self.alg)
        if profile:
            payload = profile(**payload).to_dict()
        elif self.profile:
            payload = self.profile(**payload).to_dict()
        signer.with_jti = self.with_jti if with_jti is None else bool(with_jti)
        return signer.pack(payload, jws_headers={"typ": ACCESS_TOKEN_TYP})


# --- users ----------------------------------------------------------------------------------
class LoginHintAuthn(UserAuthnMethod):
    """Authenticated at once as the user the front passes (process_request(..., authn=USER))."""

    def __call__(self, **kwargs):  # never a login page
        raise NotImplementedError("no login page")

    def authenticated_as(self, client_id="", cookie=None, authorization="", **kwargs):
        user = authorization or "alice"
        return {"uid": user}, utc_time_sans_frac()


class _AnyUser(dict):
    def __missing__(self, user):
        return {
            "sub": user,
            "name": user.capitalize(),
            "given_name": user.capitalize(),
            "preferred_username": user,
            "email": f"{user}@oauthflow.test",
            "email_verified": True,
        }


class Users(UserInfo):
    def __init__(self, **kwargs):
        UserInfo.__init__(self, db=_AnyUser())


# --- DPoP -----------------------------------------------------------------------------------
class ProofError(Exception):
    """A refused DPoP proof; reason is the /test/stats key."""

    def __init__(self, reason, description):
        Exception.__init__(self, description)
        self.reason = reason
        self.description = description


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwk_thumbprint(jwk):
    """RFC 7638: SHA-256 of the required members, sorted, no whitespace; base64url."""
    members = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n")}[jwk["kty"]]
    canonical = json.dumps({k: jwk[k] for k in members}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode("utf-8")).digest())


def access_token_hash(token):
    """RFC 9449 section 4.2: ath is base64url(SHA-256(ASCII access token)). (idpyoidc's
    userinfo_post_parse_request compares it with the hex digest instead.)"""
    return b64url(hashlib.sha256(token.encode("ascii", errors="replace")).digest())


class Proof:
    def __init__(self, header, claims, jkt, jwt):
        self.header = header
        self.claims = claims
        self.jkt = jkt
        self.jwt = jwt


def peek_jti(value):
    """The jti of a proof without checking it (for /test/jtis), or None."""
    try:
        claims = json.loads(b64url_decode(value.split(".")[1]))
        jti = claims.get("jti") if isinstance(claims, dict) else None
        return jti if isinstance(jti, str) and len(jti) <= 256 else None
    except Exception:
        return None


class DPoPVerifier:
    """RFC 9449 section 4.3, each numbered check; remembers jti values (check 11)."""

    def __init__(self):
        self.seen = {}  # jti -> when it may be forgotten

    def verify(self, value, method, url, access_token=None, nonce_ok=None, record=None):
        """The checked proof in the DPoP header value; raises ProofError. nonce_ok, when
        given, is called with the proof's nonce (or None) and returns whether it is current;
        a proof without a current nonce raises ProofError("nonce", ...)."""
        now = time.time()
        # 1. one DPoP header (several are joined with commas, which a compact JWS cannot hold)
        if not value or "," in value or len(value) > 8192:
            raise ProofError("malformed", "exactly one DPoP header, a compact JWT, is required")
        # 2. a well-formed JWT, no member name repeated in its header or claims (checked before
        # anything of it is read, its jti too)
        parts = value.split(".")
        if len(parts) != 3:
            raise ProofError("malformed", "the DPoP proof is not a JWS in compact form")
        why = repeated_member(value, "DPoP proof")
        if why:
            raise ProofError("malformed", why)
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
        except Exception:
            raise ProofError("malformed", "the DPoP proof's header or claims are not JSON")
        if not isinstance(header, dict) or not isinstance(claims, dict):
            raise ProofError("malformed", "the DPoP proof's header or claims are not objects")
        if record is not None and isinstance(claims.get("jti"), str) and len(claims["jti"]) <= 256:
            record(claims["jti"])
        # 4. typ
        if header.get("typ") != "dpop+jwt":
            raise ProofError("typ", "the DPoP proof's typ is not dpop+jwt")
        # 5. an asymmetric algorithm this server supports
        alg = header.get("alg")
        if alg not in DPOP_ALGS:
            raise ProofError("alg", f"the DPoP proof's alg must be one of {', '.join(DPOP_ALGS)}")
        # 7. a public key in jwk
        jwk = header.get("jwk")
        if not isinstance(jwk, dict) or jwk.get("kty") not in ("EC", "RSA"):
            raise ProofError("signature", "the DPoP proof's jwk is missing or not an EC/RSA key")
        if any(k in jwk for k in ("d", "p", "q", "dp", "dq", "qi", "k")):
            raise ProofError("signature", "the DPoP proof's jwk holds a private key")
        if (alg == "ES256") != (jwk["kty"] == "EC") or (jwk["kty"] == "EC" and jwk.get("crv") != "P-256"):
            raise ProofError("alg", "the DPoP proof's alg does not fit its jwk")
        # 6. the signature, with that key
        try:
            key = key_from_jwk_dict({k: v for k, v in jwk.items() if k not in ("kid", "use", "alg", "key_ops")})
            verified = JWS(alg=alg).verify_compact(value, keys=[key], sigalg=alg)
            jkt = jwk_thumbprint(jwk)
        except Exception as err:
            raise ProofError("signature", f"the DPoP proof's signature does not verify ({type(err).__name__})")
        if not isinstance(verified, dict):
            raise ProofError("signature", "the DPoP proof's signature does not verify")
        # 3. the required claims
        for name in ("jti", "htm", "htu", "iat"):
            if name not in claims:
                raise ProofError("malformed", f"the DPoP proof has no {name}")
        if not isinstance(claims["jti"], str) or not claims["jti"] or len(claims["jti"]) > 256:
            raise ProofError("malformed", "the DPoP proof's jti must be a string")
        # 8. htm
        if claims["htm"] != method:
            raise ProofError("htm", f"the DPoP proof's htm is not {method}")
        # 9. htu: this request's URI without query and fragment (section 4.2: the proof's htu
        # has neither; one that has is refused here)
        htu = claims["htu"]
        if not isinstance(htu, str) or "?" in htu or "#" in htu:
            raise ProofError("htu", "the DPoP proof's htu must have no query or fragment")
        if normalize_url(htu) != normalize_url(url):
            raise ProofError("htu", f"the DPoP proof's htu is not {url}")
        # 11 (time part). iat within the window
        iat = claims["iat"]
        if not isinstance(iat, (int, float)) or isinstance(iat, bool) or abs(now - iat) > IAT_WINDOW:
            raise ProofError("iat", f"the DPoP proof's iat is more than {IAT_WINDOW} s from now")
        # 12. ath, when an access token is presented
        if access_token is not None:
            if claims.get("ath") != access_token_hash(access_token):
                raise ProofError("ath", "the DPoP proof's ath is not the access token's hash")
        # 11. jti never seen (remembered past the iat window)
        self.forget_old(now)
        if claims["jti"] in self.seen:
            raise ProofError("replay", "the DPoP proof's jti was used before")
        self.seen[claims["jti"]] = now + JTI_MEMORY
        # 10. nonce, when this endpoint demands one (after the jti is taken: a retry needs a
        # new proof anyway)
        if nonce_ok is not None and not nonce_ok(claims.get("nonce")):
            raise ProofError("nonce", "a DPoP nonce from this server is required")
        return Proof(header, claims, jkt, value)

    def forget_old(self, now):
        if len(self.seen) > 1000:
            for jti in [j for j, until in self.seen.items() if until < now]:
                del self.seen[jti]


def normalize_url(url):
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        netloc = host
    else:
        netloc = f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path or '/'}"


class Nonces:
    """Server-provided nonces per place ("token", "resource"): each is accepted for
    NONCE_LIFETIME seconds after it was handed out."""

    def __init__(self):
        self.valid = {}

    def fresh(self, place):
        now = time.time()
        values = self.valid.setdefault(place, {})
        for value in [v for v, until in values.items() if until < now]:
            del values[value]
        value = secrets.token_urlsafe(16)
        values[value] = now + NONCE_LIFETIME
        return value

    def current(self, place):
        """The newest nonce still valid (sent on successful answers), a new one if none."""
        now = time.time()
        values = self.valid.get(place, {})
        live = [(until, v) for v, until in values.items() if until > now + NONCE_LIFETIME / 2]
        return max(live)[1] if live else self.fresh(place)

    def accepts(self, place, value):
        return isinstance(value, str) and self.valid.get(place, {}).get(value, 0) > time.time()


# --- pushed request_uri values --------------------------------------------------------------
class RequestURIs:
    def __init__(self):
        self.entries = {}  # request_uri -> (idpyoidc's urn:uuid, client_id, expires_at)

    def add(self, idpy_urn, client_id, lifetime):
        request_uri = PAR_PREFIX + secrets.token_urlsafe(24)
        self.entries[request_uri] = (idpy_urn, client_id, time.time() + lifetime)
        return request_uri

    def take(self, request_uri, client_id, par_db):
        """idpyoidc's urn for request_uri, used up; or raises ValueError saying why not."""
        now = time.time()
        for uri in [u for u, e in self.entries.items() if e[2] < now - 600]:
            par_db.pop(self.entries.pop(uri)[0], None)
        entry = self.entries.get(request_uri)
        if entry is None:
            raise ValueError("unknown or already used request_uri")
        idpy_urn, owner, expires_at = entry
        if owner != client_id:
            raise ValueError("the request_uri was pushed by another client")
        del self.entries[request_uri]  # single use (RFC 9126 section 4)
        if expires_at < now:
            par_db.pop(idpy_urn, None)
            raise ValueError("the request_uri has expired")
        if idpy_urn not in par_db:
            raise ValueError("unknown or already used request_uri")
        return idpy_urn
