#!/usr/bin/env python3
"""The authorization server of the service-token end-to-end tests: Authlib on Flask, on 127.0.0.1.

Usage: python server.py STATE_DIR

Binds two listeners on free ports of 127.0.0.1, plain HTTP (the issuer) and TLS (RFC 8705's mTLS
endpoint aliases), generates keys, certificates and clients into STATE_DIR (state.py), writes
STATE_DIR/service-server.json last (atomically: its presence means the server answers) and serves
until SIGTERM or SIGINT.

Authlib does: the token endpoint and its grants (ClientCredentialsGrant, rfc7523.JWTBearerGrant),
client_secret_basic/_post, client_secret_jwt and private_key_jwt (rfc7523.JWTBearerClientAssertion,
one instance per method), opaque bearer tokens (rfc6750.BearerTokenGenerator), RFC 9068 JWT access
tokens (rfc9068.JWTBearerTokenGenerator), introspection (rfc7662.IntrospectionEndpoint) and the
protected resource (ResourceProtector). Written here: the client and token models, the hooks Authlib
leaves to the application, RFC 8707 `resource` and the `audience` parameter (and the JWTs' `aud` from
them), RFC 8705 tls_client_auth and self_signed_tls_client_auth (registered with
register_client_auth_method), the signing keys and their JWKS, metadata, the /test/ endpoints, and
the refusal of an assertion whose header or payload repeats a member name (RFC 7515 section 5.2,
RFC 7519 section 7.2), before joserfc reads it (Tests/ExchangeServer/repeated_members.py, shared
by every test server).
"""
from __future__ import annotations

import functools
import hmac
import json
import os
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote_plus, urlsplit

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2.rfc6749 import (
    ClientMixin,
    InvalidClientError,
    InvalidGrantError,
    MissingAuthorizationError,
    OAuth2Error,
    TokenMixin,
    grants,
)
from authlib.oauth2.rfc6750 import BearerTokenGenerator, BearerTokenValidator
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion, JWTBearerGrant
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from flask import Flask, Response, g, jsonify
from flask import request as http_request
from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, KeySet, RSAKey
from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The test servers' shared check of repeated member names (standard library only), last on the path.
sys.path.append(str(Path(__file__).resolve().parent.parent / "ExchangeServer"))
import state as state_module  # noqa: E402
from repeated_members import repeated_member  # noqa: E402

AUTH_METHODS = [
    "client_secret_basic",
    "client_secret_post",
    "client_secret_jwt",
    "private_key_jwt",
    "tls_client_auth",
    "self_signed_tls_client_auth",
]
SIGNING_ALGS = ["HS256", "RS256", "PS256", "ES256"]
REALM = "oauthflow-service"
# The longest introspection outage /test/introspection-down sets.
MAX_OUTAGE_SECONDS = 300.0


# --- models ----------------------------------------------------------------------------------------


class Client(ClientMixin):
    def __init__(self, registered: state_module.RegisteredClient):
        self.r = registered
        self.client_id = registered.client_id
        self.auth_method = registered.auth_method

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        """No scope: every allowed scope; a scope beyond them: None, which Authlib answers with invalid_scope."""
        if not scope:
            return " ".join(self.r.scopes)
        requested = scope.split()
        if not set(requested) <= set(self.r.scopes):
            return None
        return " ".join(dict.fromkeys(requested))

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        return self.r.client_secret is not None and hmac.compare_digest(
            self.r.client_secret.encode(), client_secret.encode()
        )

    def check_endpoint_auth_method(self, method, endpoint):
        # One registered method per client, at the token and introspection endpoints alike.
        return method == self.auth_method

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type in self.r.grant_types


class Token(TokenMixin):
    def __init__(self, **fields):
        self.__dict__.update(fields)

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in or 0

    def expires_at(self):
        return None if self.expires_in is None else self.issued_at + self.expires_in

    def is_expired(self):
        return self.expires_in is not None and time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.revoked


class SigningKeys:
    """The keys that sign JWT access tokens: one RSA 2048 (RS256) and one P-256 (ES256) key at a time,
    each with its RFC 7638 thumbprint as kid. The JWKS publishes the current keys and, after a rotation
    that keeps the old ones, those published before it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.published: list = []
        self.current = KeySet([])
        self.rotate(keep=False)

    def rotate(self, keep):
        """New current keys (RS256 first); returns their kids."""
        fresh = [
            RSAKey.generate_key(2048, {"alg": "RS256", "use": "sig"}, auto_kid=True),
            ECKey.generate_key("P-256", {"alg": "ES256", "use": "sig"}, auto_kid=True),
        ]
        with self.lock:
            self.published = fresh + (self.published if keep else [])
            self.current = KeySet(fresh)
        return [key.kid for key in fresh]

    def signing(self) -> KeySet:
        with self.lock:
            return self.current

    def jwks(self):
        with self.lock:
            return {"keys": [key.as_dict(private=False) for key in self.published]}


class Store:
    """Tokens, used assertion IDs and request counts, in memory."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tokens: dict[str, Token] = {}
        self.used_jtis: set[tuple[str, str]] = set()
        self.requests: Counter = Counter()
        # The same count per requested resource set too, so that tests running in parallel with one client
        # can each count their own requests (by a resource of their own).
        self.by_resource: Counter = Counter()
        self.issued: Counter = Counter()
        self.total = 0
        self.jwks_requests = 0
        # Introspection requests by the client they name (named_client), "-" when none.
        self.introspections: Counter = Counter()
        self.slow_seconds = 0.0
        # time.monotonic() until which the introspection endpoint answers 503.
        self.introspection_down_until = 0.0

    def add(self, token: Token):
        with self.lock:
            self.tokens[token.access_token] = token

    def find(self, access_token):
        with self.lock:
            return self.tokens.get(access_token)

    def revoke_all(self, resource=None):
        """Every token, or (when `resource` is given) only those issued for it: a test revoking its own
        tokens leaves those of tests running beside it alone."""
        with self.lock:
            chosen = [t for t in self.tokens.values() if resource is None or resource in t.resource]
            for token in chosen:
                token.revoked = True
            return len(chosen)

    def first_use(self, subject, jti):
        with self.lock:
            if (subject, jti) in self.used_jtis:
                return False
            self.used_jtis.add((subject, jti))
            return True

    def count_request(self, key, resources=()):
        with self.lock:
            self.requests[key] += 1
            if resources:
                self.by_resource[f"{key} {','.join(sorted(resources))}"] += 1
            self.total += 1

    def count_issued(self, key):
        with self.lock:
            self.issued[key] += 1

    def count_jwks_request(self):
        with self.lock:
            self.jwks_requests += 1

    def count_introspection(self, client_id):
        with self.lock:
            self.introspections[client_id] += 1

    def stats(self):
        with self.lock:
            return {
                "token_requests": dict(self.requests),
                "token_requests_by_resource": dict(self.by_resource),
                "tokens_issued": dict(self.issued),
                "total": self.total,
                "jwks_requests": self.jwks_requests,
                "introspection_requests": dict(self.introspections),
            }

    def reset_stats(self):
        """Every count back to zero (tokens, /test/slow and an introspection outage stay)."""
        with self.lock:
            self.requests.clear()
            self.by_resource.clear()
            self.issued.clear()
            self.total = 0
            self.jwks_requests = 0
            self.introspections.clear()

    def set_introspection_down(self, seconds):
        self.introspection_down_until = time.monotonic() + seconds if seconds > 0 else 0.0

    def introspection_down(self):
        return time.monotonic() < self.introspection_down_until


class InvalidTargetError(OAuth2Error):
    """RFC 8707 §2: a `resource` that is not an absolute URI without a fragment."""

    error = "invalid_target"


# --- the server ------------------------------------------------------------------------------------


def unverified_claims(assertion):
    try:
        claims = json.loads(jws.extract_compact(assertion.encode()).payload)
    except (JoseError, ValueError, UnicodeError):
        return {}
    return claims if isinstance(claims, dict) else {}


def peer_certificate():
    """The client certificate of this request's TLS connection (Werkzeug puts it in the environ)."""
    pem = http_request.environ.get("SSL_CLIENT_CERT")
    return x509.load_pem_x509_certificate(pem.encode()) if pem else None


def validate_targets():
    for resource in http_request.form.getlist("resource"):
        parts = urlsplit(resource)
        if not parts.scheme or not (parts.netloc or parts.path) or parts.fragment or "#" in resource:
            raise InvalidTargetError(description=f"resource must be an absolute URI without a fragment: {resource!r}")
    for audience in http_request.form.getlist("audience"):
        if not audience.strip():
            raise InvalidTargetError(description="audience must not be empty")


def requested_audience():
    """RFC 9068 §3 `aud`: the `resource` values requested (RFC 8707), else the `audience` values, else
    None (the default audience); a string for one value, an array for several (repeats dropped)."""
    for name in ("resource", "audience"):
        values = list(dict.fromkeys(http_request.form.getlist(name)))
        if values:
            return values[0] if len(values) == 1 else values
    return None


def named_client():
    """The client a request names, before anything is verified: the Basic user, else `client_id`,
    else the client assertion's `sub` (as found: possibly missing or not a string)."""
    form = http_request.form
    client_id = None
    authorization = http_request.authorization
    if authorization is not None and authorization.type == "basic" and authorization.username:
        client_id = unquote_plus(authorization.username)
    client_id = client_id or form.get("client_id")
    if not client_id and form.get("client_assertion"):
        client_id = unverified_claims(form["client_assertion"]).get("sub")
    return client_id


def presents_client_credentials():
    form = http_request.form
    return "Authorization" in http_request.headers or any(
        form.get(name) for name in ("client_id", "client_secret", "client_assertion")
    )


def build_app(settings: dict, registry: dict, store: Store, keys: SigningKeys):
    """settings: urls (filled in once the listeners are bound) and the State, under "state"."""
    app = Flask("oauthflow-service-server")

    def query_client(client_id):
        registered = registry.get(client_id)
        return Client(registered) if registered else None

    def save_token(token, request):
        client = request.client
        fingerprint = g.get("certificate_sha256")
        # A JWT access token: its own claims (signed just now by this server) for introspection.
        claims = unverified_claims(token["access_token"]) if client.r.token_format == "jwt" else None
        stored = Token(
            access_token=token["access_token"],
            client_id=client.get_client_id(),
            grant_type=request.payload.grant_type,
            scope=token.get("scope", ""),
            resource=http_request.form.getlist("resource"),
            audience=http_request.form.getlist("audience"),
            sub=request.user if isinstance(request.user, str) else None,
            issued_at=claims["iat"] if claims else int(time.time()),
            expires_in=token.get("expires_in"),
            revoked=False,
            cnf={"x5t#S256": fingerprint} if fingerprint else None,
            auth_method=request.auth_method if hasattr(request, "auth_method") else None,
            claims=claims,
        )
        store.add(stored)

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.scopes_supported = list(state_module.SCOPES)
    def client_expires_in(client, grant_type):
        return client.r.expires_in

    opaque_tokens = BearerTokenGenerator(lambda **_: secrets.token_urlsafe(32), expires_generator=client_expires_in)

    # JWT access tokens: Authlib's RFC 9068 generator, one per algorithm and profile. get_jwks gives it
    # the current signing keys, of which joserfc takes the one for the generator's algorithm and puts
    # its kid in the header; Authlib sets iss, exp, iat, jti, client_id, scope and sub (the client_id
    # for client_credentials), and aud from get_audiences.
    class ProfileJWTs(JWTBearerTokenGenerator):
        def get_jwks(self):
            return keys.signing()

        def get_audiences(self, client, user, scope):
            return requested_audience() or settings["default_audience"]

    class PlainJWTs(ProfileJWTs):
        """Outside the RFC 9068 profile, for tests of verifiers that require it: the same claims but
        client_id, and `typ: JWT`."""

        def access_token_generator(self, client, grant_type, user, scope):
            profiled = super().access_token_generator(client=client, grant_type=grant_type, user=user, scope=scope)
            claims = unverified_claims(profiled)
            del claims["client_id"]
            return jwt.encode({"alg": self.alg, "typ": "JWT"}, claims, self.get_jwks())

    @functools.cache
    def jwt_tokens(alg, profile):
        # Made at first use: the issuer is known once the listeners are bound, after build_app.
        kind = ProfileJWTs if profile == "rfc9068" else PlainJWTs
        return kind(settings["issuer"], alg=alg, expires_generator=client_expires_in)

    def generate_token(grant_type, client, user=None, scope=None, expires_in=None, include_refresh_token=True):
        r = client.r
        generator = jwt_tokens(r.token_alg, r.token_profile) if r.token_format == "jwt" else opaque_tokens
        return generator(grant_type, client, user, scope, expires_in, include_refresh_token)

    server.register_token_generator("default", generate_token)

    # client_secret_jwt and private_key_jwt: Authlib's JWTBearerClientAssertion, one instance per
    # method. Authlib tries every method the endpoint allows in turn, and an instance verifies any
    # assertion it sees, so an instance leaves the other method's clients alone (returns None).
    # Authlib's get_audiences takes no client; resolve_client_public_key, called first with the
    # client, keeps it for the request's thread.
    class ClientAssertion(JWTBearerClientAssertion):
        def __init__(self, method):
            super().__init__(leeway=30)
            self.CLIENT_AUTH_METHOD = method
            self.current = threading.local()

        def __call__(self, query_client, request):
            if request.form.get("client_assertion_type") == self.CLIENT_ASSERTION_TYPE:
                subject = unverified_claims(request.form.get("client_assertion") or "").get("sub")
                client = query_client(subject) if isinstance(subject, str) else None
                if client is not None and client.auth_method != self.CLIENT_AUTH_METHOD:
                    return None
            self.current.client = None
            return super().__call__(query_client, request)

        def resolve_client_public_key(self, client):
            self.current.client = client
            if client.r.verification_key is None:
                raise InvalidClientError(description="the client has no key for assertions")
            return client.r.verification_key

        def get_audiences(self):
            return list(self.current.client.r.assertion_audiences)

        def extract_assertion(self, assertion):
            # Authlib's first reading of the assertion: one whose header or payload repeats a member
            # is refused here, before joserfc (which would keep the last of them) reads or verifies it.
            why = repeated_member(assertion, "client assertion")
            if why:
                raise InvalidClientError(description=why)
            return super().extract_assertion(assertion)

        def process_assertion_claims(self, assertion, key):
            # Authlib's decodes with joserfc's default algorithms (HS256, RS256, ES256 only, so no
            # PS256); this one takes exactly the client's registered algorithm.
            try:
                token = jwt.decode(assertion, key, algorithms=[self.current.client.r.signing_alg])
            except JoseError as error:
                raise InvalidClientError(description=error.description) from error
            self.verify_claims(token.claims)
            return token.claims

        def validate_jti(self, claims, jti):
            return store.first_use(claims["sub"], jti)

    for method in ("client_secret_jwt", "private_key_jwt"):
        server.register_client_auth_method(method, ClientAssertion(method))

    # RFC 8705: Authlib has none, so two methods through register_client_auth_method. Both need
    # the client_id parameter (§2) and the TLS listener's client certificate.
    def certificate_method(method):
        def authenticate(query_client, request):
            client_id = request.form.get("client_id")
            client = query_client(client_id) if client_id else None
            if client is None or client.auth_method != method:
                return None
            cert = peer_certificate()
            if cert is None:
                raise InvalidClientError(description=f"{method} needs a client certificate (the mTLS endpoint)")
            fingerprint = state_module.certificate_sha256(cert)
            if method == "tls_client_auth":
                try:
                    cert.verify_directly_issued_by(settings["state"].ca_certificate)
                except (ValueError, TypeError, InvalidSignature):
                    raise InvalidClientError(description="the client certificate is not issued by the trusted CA")
                if cert.subject.rfc4514_string() != client.r.subject_dn:
                    raise InvalidClientError(description="the client certificate's subject is not the registered one")
            elif not hmac.compare_digest(fingerprint, client.r.certificate_sha256):
                raise InvalidClientError(description="the client certificate is not the registered one")
            g.certificate_sha256 = fingerprint
            return client

        return authenticate

    for method in ("tls_client_auth", "self_signed_tls_client_auth"):
        server.register_client_auth_method(method, certificate_method(method))

    class ClientCredentials(grants.ClientCredentialsGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

        def validate_token_request(self):
            super().validate_token_request()
            validate_targets()

    class JWTBearer(JWTBearerGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS
        CLAIMS_OPTIONS = {**JWTBearerGrant.CLAIMS_OPTIONS, "sub": {"essential": True}}
        LEEWAY = 30

        def resolve_issuer_client(self, issuer):
            if issuer != state_module.ASSERTION_ISSUER:
                return None
            return query_client(settings["state"].description["jwt_bearer"]["client_id"])

        def resolve_client_public_key(self, client):
            return settings["state"].assertion_issuer_key

        def authenticate_user(self, subject):
            return subject if subject in state_module.ASSERTION_USERS else None

        def has_granted_permission(self, client, user):
            return True

        def get_audiences(self):
            return [settings["token_endpoint"], settings["issuer"]]

        def extract_assertion(self, assertion):
            # As ClientAssertion.extract_assertion: a repeated member is refused before joserfc reads it.
            why = repeated_member(assertion, "assertion")
            if why:
                raise InvalidGrantError(description=why)
            return super().extract_assertion(assertion)

        def validate_token_request(self):
            super().validate_token_request()
            # Authlib's grant takes the client from the assertion's issuer; a request that also
            # names or authenticates a client must authenticate that same client.
            # (JWTBearerClientAssertion sets request.client to the client it authenticates.)
            issuers_client = self.request.client
            if presents_client_credentials():
                client = self.authenticate_token_endpoint_client()
                if client.get_client_id() != issuers_client.get_client_id():
                    raise InvalidClientError(description="the assertion is not issued to this client")
                self.request.client = issuers_client
            validate_targets()

    server.register_grant(ClientCredentials)
    server.register_grant(JWTBearer)

    class Introspection(IntrospectionEndpoint):
        CLIENT_AUTH_METHODS = AUTH_METHODS

        def query_token(self, token_string, token_type_hint):
            return store.find(token_string)

        def check_permission(self, token, client, request):
            return True

        def introspect_token(self, token):
            payload = {
                "active": True,
                "client_id": token.client_id,
                "token_type": "Bearer",
                "scope": token.scope,
                "iat": token.issued_at,
                "iss": settings["issuer"],
                "grant_type": token.grant_type,
                "resource": token.resource,
                "audience": token.audience,
            }
            if token.resource or token.audience:
                payload["aud"] = token.resource + token.audience
            if token.expires_at() is not None:
                payload["exp"] = token.expires_at()
            if token.sub:
                payload["sub"] = token.sub
                payload["username"] = token.sub
            if token.cnf:
                payload["cnf"] = token.cnf
            if token.claims:
                # A JWT: its own claims (client_id above also for jwt-plain, whose token lacks it).
                for claim in ("iss", "aud", "sub", "exp", "iat", "jti"):
                    payload[claim] = token.claims[claim]
            return payload

    server.register_endpoint(Introspection)

    class Validator(BearerTokenValidator):
        def authenticate_token(self, token_string):
            return store.find(token_string)

    protector = ResourceProtector()
    protector.register_token_validator(Validator(realm=REALM))

    def requester():
        """`client_id grant_type` for the statistics, before anything is verified."""
        form = http_request.form
        client_id = named_client()
        if not client_id and form.get("assertion"):
            issuer = unverified_claims(form["assertion"]).get("iss")
            if issuer == state_module.ASSERTION_ISSUER:
                client_id = settings["state"].description["jwt_bearer"]["client_id"]
            else:
                client_id = issuer
        return f"{client_id if isinstance(client_id, str) and client_id else '-'} {form.get('grant_type') or '-'}"

    @app.post("/oauth/token")
    def token_endpoint():
        key = requester()
        store.count_request(key, http_request.form.getlist("resource"))
        if store.slow_seconds:
            time.sleep(store.slow_seconds)
        response = server.create_token_response()
        if response.status_code == 200:
            store.count_issued(key)
        return response

    @app.post("/oauth/introspect")
    def introspection_endpoint():
        client_id = named_client()
        store.count_introspection(client_id if isinstance(client_id, str) and client_id else "-")
        if store.introspection_down():
            response = jsonify(
                {"error": "temporarily_unavailable", "error_description": "introspection is down (/test/introspection-down)"}
            )
            response.status_code = 503
            return response
        return server.create_endpoint_response(Introspection.ENDPOINT_NAME)

    @app.get("/oauth/jwks")
    def jwks():
        store.count_jwks_request()
        return jsonify(keys.jwks())

    def metadata():
        return {
            "issuer": settings["issuer"],
            "token_endpoint": settings["token_endpoint"],
            "introspection_endpoint": settings["introspection_endpoint"],
            "jwks_uri": settings["jwks_uri"],
            "grant_types_supported": [state_module.CLIENT_CREDENTIALS, state_module.JWT_BEARER],
            "response_types_supported": [],
            "scopes_supported": list(state_module.SCOPES),
            "token_endpoint_auth_methods_supported": AUTH_METHODS,
            "token_endpoint_auth_signing_alg_values_supported": SIGNING_ALGS,
            "introspection_endpoint_auth_methods_supported": AUTH_METHODS,
            "introspection_endpoint_auth_signing_alg_values_supported": SIGNING_ALGS,
            "tls_client_certificate_bound_access_tokens": True,
            "mtls_endpoint_aliases": {
                "token_endpoint": settings["mtls_token_endpoint"],
                "introspection_endpoint": settings["mtls_introspection_endpoint"],
            },
        }

    @app.get("/.well-known/oauth-authorization-server")
    @app.get("/.well-known/openid-configuration")
    def well_known():
        return jsonify(metadata())

    @app.get("/api/whoami")
    def whoami():
        try:
            token = protector.acquire_token()
        except MissingAuthorizationError:
            # RFC 6750 §3.1: no error code when the request has no credentials.
            return unauthorized(f'Bearer realm="{REALM}"', "missing_token")
        except OAuth2Error as error:
            description = (error.description or "").replace('"', "'")
            return unauthorized(
                f'Bearer realm="{REALM}", error="invalid_token", error_description="{description}"', "invalid_token"
            )
        body = {
            "client_id": token.client_id,
            "scope": token.scope,
            "resource": token.resource,
            "audience": token.audience,
            "grant_type": token.grant_type,
        }
        if token.sub:
            body["sub"] = token.sub
        if token.cnf:
            body["cnf"] = token.cnf
        return jsonify(body)

    def unauthorized(challenge, error):
        response = jsonify({"error": error})
        response.status_code = 401
        response.headers["WWW-Authenticate"] = challenge
        return response

    # --- test-only endpoints ---
    @app.post("/test/revoke-all")
    def revoke_all():
        return jsonify({"revoked": store.revoke_all(http_request.args.get("resource"))})

    @app.get("/test/stats")
    def stats():
        return jsonify(store.stats())

    @app.post("/test/reset-stats")
    def reset_stats():
        store.reset_stats()
        return jsonify(store.stats())

    @app.post("/test/rotate-keys")
    def rotate_keys():
        keep = http_request.args.get("keep", "0") not in ("", "0", "false", "no")
        kids = keys.rotate(keep)
        return jsonify({"kids": kids, "jwks_kids": [key["kid"] for key in keys.jwks()["keys"]]})

    @app.post("/test/introspection-down")
    def introspection_down():
        try:
            seconds = float(http_request.args.get("seconds", "0"))
        except ValueError:
            return Response("seconds must be a number\n", status=400)
        seconds = max(0.0, min(seconds, MAX_OUTAGE_SECONDS))
        store.set_introspection_down(seconds)
        return jsonify({"seconds": seconds})

    @app.post("/test/slow")
    def slow():
        try:
            seconds = float(http_request.args.get("seconds", "0"))
        except ValueError:
            return Response("seconds must be a number\n", status=400)
        store.slow_seconds = max(0.0, min(seconds, 60.0))
        return jsonify({"seconds": store.slow_seconds})

    return app


# --- listeners -------------------------------------------------------------------------------------


class Handler(WSGIRequestHandler):
    def log_request(self, code="-", size="-"):
        if os.environ.get("OAUTHFLOW_SERVICE_VERBOSE"):
            super().log_request(code, size)


class Listener(ThreadedWSGIServer):
    """Werkzeug's threaded server on 127.0.0.1 and a free port, with TCP_NODELAY, and for TLS the
    handshake in the connection's thread (Werkzeug would do it in the accepting thread)."""

    tls: ssl.SSLContext | None = None

    def __init__(self, app):
        super().__init__("127.0.0.1", 0, app, handler=Handler)

    def use_tls(self, context: ssl.SSLContext):
        self.tls = context
        self.ssl_context = context  # Werkzeug's https scheme and its handling of TLS errors

    def get_request(self):
        connection, address = self.socket.accept()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.settimeout(60)
        if self.tls is not None:
            connection = self.tls.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        return connection, address


def main():
    state_dir = Path(sys.argv[1]).resolve()
    state_dir.mkdir(parents=True, exist_ok=True)
    description_path = state_dir / "service-server.json"
    if description_path.exists():
        description_path.unlink()

    settings: dict = {}
    registry: dict = {}
    store = Store()
    app = build_app(settings, registry, store, SigningKeys())
    http = Listener(app)
    https = Listener(app)

    issuer = f"http://127.0.0.1:{http.port}"
    mtls = f"https://127.0.0.1:{https.port}"
    settings.update(
        issuer=issuer,
        metadata=f"{issuer}/.well-known/oauth-authorization-server",
        token_endpoint=f"{issuer}/oauth/token",
        introspection_endpoint=f"{issuer}/oauth/introspect",
        mtls_token_endpoint=f"{mtls}/oauth/token",
        mtls_introspection_endpoint=f"{mtls}/oauth/introspect",
        resource=f"{issuer}/api/whoami",
        stats=f"{issuer}/test/stats",
        revoke_all=f"{issuer}/test/revoke-all",
        slow=f"{issuer}/test/slow",
        jwks_uri=f"{issuer}/oauth/jwks",
        default_audience=f"{issuer}/api",
        rotate_keys=f"{issuer}/test/rotate-keys",
        reset_stats=f"{issuer}/test/reset-stats",
        introspection_down=f"{issuer}/test/introspection-down",
    )
    generated = state_module.generate(state_dir, settings)
    settings["state"] = generated
    registry.update(generated.clients)

    # One TLS listener for both RFC 8705 methods. CERT_OPTIONAL: a client may present a certificate,
    # and OpenSSL then verifies it against the trust store, which holds the CA (tls_client_auth's
    # PKIX path) and each registered self-signed certificate (Python's ssl has no verify callback to
    # accept any certificate); the methods then check the DN and CA, or the exact certificate.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(generated.server_certificate_path, generated.server_key_path)
    context.verify_mode = ssl.CERT_OPTIONAL
    context.load_verify_locations(cadata=generated.client_trust_pem)
    https.use_tls(context)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    threading.Thread(target=https.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    description = dict(generated.description, pid=os.getpid(), ports={"http": http.port, "https": https.port})
    partial = state_dir / "service-server.json.partial"
    if partial.exists():
        partial.unlink()
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(json.dumps(description, indent=2) + "\n")
    os.replace(partial, description_path)
    print(f"service server: {issuer} (mTLS {mtls}), state {state_dir}", file=sys.stderr, flush=True)
    try:
        http.serve_forever(poll_interval=0.2)
    finally:
        https.server_close()


if __name__ == "__main__":
    main()
