"""An OAuth 2.0 Token Exchange (RFC 8693) authorization server for the end-to-end tests.

The protocol work is IdentityPython's idpyoidc (its token endpoint, its token-exchange and
client-credentials grant helpers, its client authentication, its session manager and JWT
access tokens); this file is its configuration and a small HTTP front on 127.0.0.1.

    python server.py STATE_DIR

creates the server's keys and clients in STATE_DIR, binds a free port on 127.0.0.1 and, once it
serves, writes STATE_DIR/exchange-server.json 0600 (what the tests read, see description(); it
holds the client secrets).

HTTP:
    GET  /.well-known/openid-configuration      discovery (idpyoidc's provider configuration)
    GET  /.well-known/oauth-authorization-server the same document (RFC 8414)
    GET  /jwks.json                              the public key access tokens are signed with
    POST /token                                  idpyoidc's token endpoint
    POST /test/subject-token                     form user=NAME [scope=...]: a user session and an
                                                 access token idpyoidc issued in it (test only)
    GET  /test/stats                             token endpoint requests counted per grant_type

Subject tokens are issued to the client `subject-app`, the application the user signed in to;
the exchange clients (exchange-basic, exchange-rsa, exchange-secret-jwt) trade them for tokens
of their own. Actor tokens come from /test/subject-token too (any user name).

What this server adds to idpyoidc 5.0.0 is in oauthflow_exchange.py, named by the configuration
below: an exchange policy that also takes actor tokens (idpyoidc's own refuses them all), the
`aud` and `act` claims idpyoidc leaves out of a token issued in another client's exchange, and
a client-credentials helper that survives a client's second request. The front refuses a client
assertion, subject or actor token whose header or payload repeats a member name (RFC 7515
section 5.2, RFC 7519 section 7.2; repeated_members.py, shared by every test server) before
idpyoidc reads it.
"""

import json
import logging
import os
import secrets
import sys
import threading
import time
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import serialization
from cryptojwt.jwk.rsa import new_rsa_key
from idpyoidc.message import Message
from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.message.oidc import AuthorizationRequest
from idpyoidc.server import Server
from idpyoidc.server.authn_event import create_authn_event
from idpyoidc.server.configure import ASConfiguration
from idpyoidc.server.exception import ClientAuthenticationError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "IdpyFront"))
import idpy_front  # noqa: E402
from idpy_front import write_private  # noqa: E402
from repeated_members import first_repeated  # noqa: E402

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
REFRESH_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:refresh_token"

GRANT_TYPES = [TOKEN_EXCHANGE, "client_credentials", "refresh_token"]
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"]

SUBJECT_CLIENT = "subject-app"
DEFAULT_SUBJECT_SCOPE = "read write"
SCOPES = ["read", "write", "offline_access"]
# Exchanges may ask for these audiences and resources (idpyoidc's policy refuses any other
# with invalid_target); the issued JWT carries them in `aud`.
AUDIENCES = ["https://orders.oauthflow.test", "https://billing.oauthflow.test"]
RESOURCES = ["https://orders.oauthflow.test/api", "https://billing.oauthflow.test/api"]
# The token request's parameters that idpyoidc reads as JWTs (the subject and actor tokens are this
# server's JWT access tokens).
JWT_PARAMETERS = ("client_assertion", "subject_token", "actor_token")

log = logging.getLogger("exchange-server")


# --- configuration ---------------------------------------------------------------------------
def server_configuration(issuer):
    token_kwargs = {
        "client_authn_method": AUTH_METHODS,
        "grant_types_helpers": {
            TOKEN_EXCHANGE: {
                "class": "idpyoidc.server.oidc.token_helper.token_exchange.TokenExchangeHelper",
                "kwargs": {
                    "subject_token_types_supported": [ACCESS_TOKEN_TYPE, REFRESH_TOKEN_TYPE],
                    "requested_token_types_supported": [ACCESS_TOKEN_TYPE, REFRESH_TOKEN_TYPE],
                    "default_requested_token_type": ACCESS_TOKEN_TYPE,
                    "policy": {
                        "": {
                            "function": "oauthflow_exchange.exchange_policy",
                            "kwargs": {"audience": AUDIENCES, "resource": RESOURCES},
                        }
                    },
                },
            },
            "client_credentials": {
                "class": "oauthflow_exchange.ClientCredentials",
                "kwargs": {},
            },
            "refresh_token": {
                "class": "idpyoidc.server.oidc.token_helper.refresh_token.RefreshTokenHelper",
                "kwargs": {},
            },
        },
    }
    return {
        "issuer": issuer,
        "httpc_params": {"verify": True, "timeout": 4},
        "keys": {"uri_path": "jwks.json", "key_defs": []},
        # What discovery advertises (idpyoidc would list only client_secret_basic, and every
        # grant type it has a helper class for, configured or not).
        "preference": {
            "grant_types_supported": GRANT_TYPES,
            "token_endpoint_auth_methods_supported": AUTH_METHODS,
            "token_endpoint_auth_signing_alg_values_supported": ["RS256", "HS256"],
            "scopes_supported": SCOPES,
        },
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ]
                },
                "name": {"session": "exchange_as", "register": "exchange_as_rp"},
            },
        },
        "claims_interface": {
            "class": "idpyoidc.server.session.claims.ClaimsInterface",
            "kwargs": {"claims_release_points": ["introspection", "access_token"]},
        },
        "scopes_to_claims": {scope: [] for scope in SCOPES},
        # Users are whoever /test/subject-token names; they have no claims beyond `sub`.
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": {}}},
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token"],
                            "max_usage": 1,
                            "expires_in": 120,
                        },
                        "access_token": {
                            "supports_minting": ["access_token", "refresh_token"],
                            "expires_in": 3600,
                        },
                        "refresh_token": {
                            "supports_minting": ["access_token", "refresh_token"],
                            "expires_in": 86400,
                        },
                    },
                    "expires_in": 86400,
                }
            },
        },
        "token_handler_args": {
            "code": {"kwargs": {"lifetime": 120, "password": secrets.token_urlsafe(32)}},
            "token": {
                "class": "oauthflow_exchange.AccessToken",
                "kwargs": {"lifetime": 3600, "alg": "RS256", "aud": []},
            },
            "refresh": {"kwargs": {"lifetime": 86400, "password": secrets.token_urlsafe(32)}},
        },
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": token_kwargs,
            },
        },
    }


class Clients:
    """The exchange clients and their credentials, registered in idpyoidc's client database."""

    def __init__(self, state):
        self.state = state
        self.basic_secret = secrets.token_urlsafe(24)
        self.secret_jwt_secret = secrets.token_urlsafe(32)
        self.subject_secret = secrets.token_urlsafe(24)
        self.rsa_key = new_rsa_key(key_size=2048, kid="exchange-rsa-" + secrets.token_hex(4))
        self.rsa_pem = os.path.join(state, "exchange-rsa.pem")
        self.rsa_jwk = os.path.join(state, "exchange-rsa.jwk.json")

    def register(self, server):
        context = server.context
        keyjar = server.keyjar

        def entry(client_id, method, secret=None):
            info = {
                "client_id": client_id,
                "token_endpoint_auth_method": method,
                "client_authn_method": [method],
                "grant_types_supported": GRANT_TYPES,
                "allowed_scopes": SCOPES,
                "redirect_uris": [],
                "response_types": [],
            }
            if secret is not None:
                info["client_secret"] = secret
                info["client_secret_expires_at"] = 0
            return info

        context.cdb[SUBJECT_CLIENT] = entry(SUBJECT_CLIENT, "client_secret_basic", self.subject_secret)
        context.cdb["exchange-basic"] = entry("exchange-basic", "client_secret_basic", self.basic_secret)
        context.cdb["exchange-secret-jwt"] = entry(
            "exchange-secret-jwt", "client_secret_jwt", self.secret_jwt_secret
        )
        # client_secret_jwt: the HMAC key is the secret itself (idpyoidc checks it is).
        keyjar.add_symmetric("exchange-secret-jwt", self.secret_jwt_secret, ["sig"])
        context.cdb["exchange-rsa"] = entry("exchange-rsa", "private_key_jwt")
        context.cdb["exchange-rsa"]["token_endpoint_auth_signing_alg"] = "RS256"
        public = self.rsa_key.serialize(private=False)
        public.update({"use": "sig", "alg": "RS256"})
        keyjar.import_jwks({"keys": [public]}, "exchange-rsa")

        private = self.rsa_key.serialize(private=True)
        private.update({"use": "sig", "alg": "RS256"})
        write_private(self.rsa_jwk, json.dumps(private, indent=2) + "\n")
        write_private(self.rsa_pem, self.rsa_key.priv_key.private_bytes(
            encoding=serialization.Encoding.PEM,
            format=serialization.PrivateFormat.PKCS8,
            encryption_algorithm=serialization.NoEncryption(),
        ).decode())

    def describe(self):
        return {
            "basic": {
                "client_id": "exchange-basic",
                "auth_method": "client_secret_basic",
                "client_secret": self.basic_secret,
            },
            "rsa": {
                "client_id": "exchange-rsa",
                "auth_method": "private_key_jwt",
                "signing_alg": "RS256",
                "private_key_pem": self.rsa_pem,
                "private_key_jwk": self.rsa_jwk,
                "kid": self.rsa_key.kid,
                "assertion_audience": "token_endpoint",
            },
            "secret-jwt": {
                "client_id": "exchange-secret-jwt",
                "auth_method": "client_secret_jwt",
                "client_secret": self.secret_jwt_secret,
                "signing_alg": "HS256",
                "assertion_audience": "token_endpoint",
            },
        }


# --- HTTP ------------------------------------------------------------------------------------
class App:
    def __init__(self, server, issuer):
        self.server = server
        self.issuer = issuer
        self.lock = threading.Lock()
        self.token_requests = {}

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        try:
            with self.lock:
                status, body, headers = self.route(method, path, environ)
        except Exception:
            log.exception("%s %s failed", method, path)
            status, body, headers = 500, {"error": "server_error"}, []
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
                  405: "Method Not Allowed", 500: "Internal Server Error"}[status]
        names = {name.lower() for name, _ in headers}
        if "content-type" not in names:
            headers.append(("Content-Type", "application/json"))
        headers.append(("Content-Length", str(len(body))))
        start_response(f"{status} {reason}", headers)
        return [body]

    def route(self, method, path, environ):
        if path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
            if method != "GET":
                return 405, {"error": "method not allowed"}, []
            return self.discovery()
        if path == "/jwks.json" and method == "GET":
            return 200, self.server.keyjar.export_jwks(private=False, issuer_id=""), []
        if path == "/token":
            if method != "POST":
                return 405, {"error": "invalid_request"}, [("Allow", "POST")]
            return self.token(environ)
        if path == "/test/subject-token" and method == "POST":
            return self.subject_token(environ)
        if path == "/test/stats" and method == "GET":
            counts = dict(sorted(self.token_requests.items()))
            return 200, {"token_requests": counts, "total": sum(counts.values())}, []
        return 404, {"error": "not found"}, []

    def discovery(self):
        endpoint = self.server.get_endpoint("provider_config")
        args = endpoint.process_request()
        info = endpoint.do_response(**args)
        return 200, info["response"], list(info.get("http_headers", []))

    def token(self, environ):
        body = read_body(environ)
        form = parse_qs(body, keep_blank_values=True)
        grant_type = form.get("grant_type", ["(none)"])[0] or "(none)"
        self.token_requests[grant_type] = self.token_requests.get(grant_type, 0) + 1

        # RFC 7515 section 5.2, RFC 7519 section 7.2: a JWT whose header or payload repeats a member
        # is refused before idpyoidc (cryptojwt, which keeps the last of them) reads or verifies it,
        # the way idpyoidc refuses a bad one: a client assertion as failed client authentication, a
        # subject or actor token as invalid_request (RFC 8693 section 2.2.2).
        repeated = first_repeated(form, JWT_PARAMETERS)
        if repeated:
            name, why = repeated
            log.info("token request refused: %s", why)
            if name == "client_assertion":
                return self.error(401, "invalid_client", why, basic=True)
            return self.error(400, "invalid_request", why)

        endpoint = self.server.get_endpoint("token")
        http_info = {"headers": {}, "url": self.issuer + "/token", "method": "POST"}
        if environ.get("HTTP_AUTHORIZATION"):
            http_info["headers"]["authorization"] = environ["HTTP_AUTHORIZATION"]
        try:
            request = endpoint.parse_request(body, http_info=http_info)
        except ClientAuthenticationError as err:  # no client authentication succeeded
            log.info("token request refused: %s: %s", type(err).__name__, err)
            return self.error(401, "invalid_client", "Client authentication failed", basic=True)
        if isinstance(request, ResponseMessage) and "error" in request:
            return self.error_message(request)
        result = endpoint.process_request(request)
        if isinstance(result, Message) and "error" in result:
            return self.error_message(result)
        response = endpoint.do_response(request=request, **result)
        headers = [(k, v) for k, v in response.get("http_headers", []) if k.lower() != "set-cookie"]
        return 200, response["response"], headers

    def error(self, status, error, description, basic=False):
        headers = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]
        if basic:
            headers.append(("WWW-Authenticate", 'Basic realm="exchange-server"'))
        return status, {"error": error, "error_description": description}, headers

    def error_message(self, message):
        answer = message.to_dict()
        status = 401 if answer.get("error") == "invalid_client" else 400
        return status, answer, [("Cache-Control", "no-store"), ("Pragma", "no-cache")]

    def subject_token(self, environ):
        form = parse_qs(read_body(environ), keep_blank_values=True)
        user = form.get("user", [""])[0]
        scope = (form.get("scope", [""])[0] or DEFAULT_SUBJECT_SCOPE).split()
        if not user:
            return 400, {"error": "invalid_request", "error_description": "user is missing"}, []
        unknown = [s for s in scope if s not in SCOPES]
        if unknown:
            return 400, {"error": "invalid_scope", "error_description": " ".join(unknown)}, []

        context = self.server.context
        manager = context.session_manager
        authorization = AuthorizationRequest(
            client_id=SUBJECT_CLIENT,
            response_type="code",
            scope=scope,
            state=secrets.token_urlsafe(8),
        )
        session_id = manager.create_session(
            create_authn_event(user), authorization, user, client_id=SUBJECT_CLIENT
        )
        grant = context.authz(session_id, authorization)
        helper = self.server.get_endpoint("token").grant_type_helper[TOKEN_EXCHANGE]
        token = helper._mint_token(
            token_class="access_token",
            grant=grant,
            session_id=session_id,
            client_id=SUBJECT_CLIENT,
            scope=scope,
            token_type="Bearer",
        )
        answer = {
            "access_token": token.value,
            "token_type": "Bearer",
            "expires_in": token.expires_at - int(time.time()),
            "scope": " ".join(scope),
            "client_id": SUBJECT_CLIENT,
        }
        return 200, answer, [("Cache-Control", "no-store")]


def read_body(environ):
    try:
        return idpy_front.read_body(environ)
    except ValueError:
        return ""


def description(issuer, clients):
    description = {
        "issuer": issuer,
        "discovery": issuer + "/.well-known/openid-configuration",
        "token_endpoint": issuer + "/token",
        "jwks_uri": issuer + "/jwks.json",
        "subject_token_endpoint": issuer + "/test/subject-token",
        "stats": issuer + "/test/stats",
        "subject_client_id": SUBJECT_CLIENT,
        "subject_token_scope": DEFAULT_SUBJECT_SCOPE,
        "scopes": SCOPES,
        "audiences": AUDIENCES,
        "resources": RESOURCES,
        "clients": clients.describe(),
    }
    return description


def build(issuer, keyjar, state):
    server = Server(ASConfiguration(conf=server_configuration(issuer)), keyjar=keyjar, cwd=state)
    clients = Clients(state)
    clients.register(server)
    # The description holds the client secrets: idpy_front writes it 0600.
    return App(server, issuer), description(issuer, clients)


if __name__ == "__main__":
    sys.exit(idpy_front.run("exchange", "exchange-server.json", build))
