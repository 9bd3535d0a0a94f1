"""What the PAR server adds for FAPI 2.0 clients (the end-to-end tests of `security.profile: fapi2` and
`fapi2_message_signing`), beside idpyoidc:

  - private_key_jwt clients whose EC P-256 keys the server makes at start-up: the public half is
    registered with idpyoidc, which verifies the client assertions; the private half goes to the
    0600 description file for the tests;
  - PS256 signing (FAPI 2.0 Security Profile section 5.4): a second RSA key, published with
    `alg: PS256`, which signs these clients' ID tokens and the JWT-secured authorization responses;
  - signed request objects (RFC 9101), pushed: checked here (signature by the client's key, PS256
    or ES256, `iss`, `aud`, `exp`, `nbf`, `client_id`) and unpacked into the plain pushed request
    idpyoidc reads (idpyoidc 5.0.0's PAR endpoint does not take them);
  - JWT-secured authorization responses (JARM, `response_mode` `jwt` / `query.jwt`): idpyoidc's
    answer (code, state, iss) signed into one `response` parameter, which idpyoidc 5.0.0 lacks.
"""

import json
import secrets
import time
from urllib.parse import urlencode

from cryptography.hazmat.primitives import serialization
from cryptojwt.jwk.ec import new_ec_key
from cryptojwt.jwk.rsa import new_rsa_key
from cryptojwt.jws.jws import JWS
from cryptojwt.jws.jws import factory

# Request objects: FAPI 2.0 Message Signing section 5.3.2 allows these (and EdDSA, which cryptojwt lacks here).
REQUEST_OBJECT_ALGS = ["PS256", "ES256"]
# A request object lives at most this long (FAPI 2.0 Message Signing: exp - nbf no more than 60 minutes).
REQUEST_OBJECT_MAX_LIFETIME = 3600
RESPONSE_LIFETIME = 300
# Members of a request object that are about the object itself, not authorization parameters.
ENVELOPE = ("iss", "aud", "exp", "nbf", "iat", "jti")
JARM_MODES = ("jwt", "query.jwt")
# The parameters a pushed request keeps outside its request object: the client's authentication.
AUTHENTICATION = ("client_id", "client_assertion", "client_assertion_type")


class RequestObjectError(ValueError):
    """A request object refused; the text is the error_description."""


def signing_key():
    """The server's PS256 key (RSA 2048, FAPI 2.0 Security Profile section 5.4.1)."""
    key = new_rsa_key(key_size=2048, kid="par-as-ps256-" + secrets.token_hex(4), use="sig")
    key.alg = "PS256"
    return key


class KeyClients:
    """The private_key_jwt clients: one EC P-256 key each, made at start-up."""

    def __init__(self, names):
        self.keys = {name: new_ec_key("P-256", kid=f"{name}-" + secrets.token_hex(4), use="sig") for name in names}

    def register(self, keyjar, name, client_id):
        """The client metadata for `name`; its public key goes into `keyjar` under its client_id, where idpyoidc
        looks for the key of a client assertion (`iss`)."""
        public = self.keys[name].serialize(private=False)
        keyjar.import_jwks({"keys": [public]}, client_id)
        return {
            "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_auth_signing_alg": "ES256",
            "client_authn_method": ["private_key_jwt"],
            "jwks": {"keys": [public]},
            "id_token_signed_response_alg": "PS256",
        }

    def private_pem(self, name):
        key = self.keys.get(name)
        if key is None:
            return None
        return key.priv_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    def key_id(self, name):
        key = self.keys.get(name)
        return key.kid if key else None


def flatten(value):
    """A request object member as the form parameter idpyoidc reads: strings as they are, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def unpack_request_object(form, client_id, issuer, client_jwks, now=None):
    """The pushed request a signed request object stands for: its members (without `iss`, `aud`, `exp`, `nbf`,
    `iat`, `jti`) and the client's authentication parameters of `form`; the form's other parameters are ignored
    (RFC 9101 section 5). Raises RequestObjectError."""
    now = time.time() if now is None else now
    token = form["request"]
    try:
        jws = factory(token)
    except Exception:
        jws = None
    if jws is None:
        raise RequestObjectError("the request object is not a signed JWT")
    alg = jws.jwt.headers.get("alg")
    if alg not in REQUEST_OBJECT_ALGS:
        raise RequestObjectError(f"the request object is signed with {alg!r}; this server takes {', '.join(REQUEST_OBJECT_ALGS)}")
    from cryptojwt.key_bundle import KeyBundle

    keys = KeyBundle(keys=client_jwks.get("keys", [])).get("ec") + KeyBundle(keys=client_jwks.get("keys", [])).get("rsa")
    try:
        claims = jws.verify_compact(token, keys=keys, sigalg=alg)
    except Exception:
        raise RequestObjectError("the request object's signature is not the client's")
    if not isinstance(claims, dict):
        raise RequestObjectError("the request object's payload is not a JSON object")
    if claims.get("iss") != client_id:
        raise RequestObjectError("the request object's iss is not the client_id")
    audience = claims.get("aud")
    if audience != issuer and not (isinstance(audience, list) and issuer in audience):
        raise RequestObjectError("the request object's aud is not this issuer")
    if claims.get("client_id") != client_id:
        raise RequestObjectError("the request object's client_id is not the client's")
    exp, nbf = claims.get("exp"), claims.get("nbf")
    if not isinstance(exp, (int, float)) or exp <= now:
        raise RequestObjectError("the request object has no exp or has expired")
    if not isinstance(nbf, (int, float)) or nbf > now + 5:
        raise RequestObjectError("the request object has no nbf or is not valid yet")
    if exp - nbf > REQUEST_OBJECT_MAX_LIFETIME:
        raise RequestObjectError("the request object's lifetime (exp - nbf) is longer than 60 minutes")
    if "request" in claims or "request_uri" in claims:
        raise RequestObjectError("a request object holds no request or request_uri")
    unpacked = {name: flatten(value) for name, value in claims.items() if name not in ENVELOPE}
    unpacked.update({name: form[name] for name in AUTHENTICATION if name in form})
    return unpacked, urlencode(unpacked)


def response_jwt(answer, client_id, issuer, key, now=None):
    """The JARM `response` for an authorization answer: its parameters with `iss`, `aud` (the client), `iat` and
    `exp`, signed PS256 with `key`."""
    now = int(time.time() if now is None else now)
    claims = {name: value for name, value in answer.items() if value is not None and name != "client_id"}
    claims.update({"iss": issuer, "aud": client_id, "iat": now, "exp": now + RESPONSE_LIFETIME})
    return JWS(json.dumps(claims), alg="PS256").sign_compact([key])
