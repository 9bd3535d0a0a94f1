"""An OpenID Connect provider with Pushed Authorization Requests (RFC 9126) and DPoP (RFC 9449),
and a small DPoP-protected resource, for the end-to-end tests.

The protocol work is IdentityPython's idpyoidc (its authorization, pushed authorization, token,
userinfo and revocation endpoints, PKCE, its client authentication, its session manager, JWT
access tokens and RS256 ID tokens); this file is its configuration and an HTTP front on
127.0.0.1 that adds what idpyoidc 5.0.0 lacks (each addition below names its RFC section; the
classes idpyoidc loads by name are in oauthflow_par.py).

    python server.py STATE_DIR

binds a free port on 127.0.0.1 and, once it serves, writes STATE_DIR/par-server.json 0600 (see
description(); it holds the client secrets).

HTTP (README.md has every answer):
    GET  /.well-known/openid-configuration, /.well-known/oauth-authorization-server
    GET  /jwks.json
    GET  /authorize        no login page: the user is login_hint (default alice), consented
    POST /par              pushed authorization requests, 201
    POST /token            authorization_code, refresh_token; DPoP-bound when a proof comes
    GET|POST /userinfo     Bearer or DPoP
    POST /revoke           RFC 7009
    GET|POST /resource/hello[/...], /resource/nonce[/...], /resource/nonce-loop[/...]
    GET  /test/stats, /test/jtis

What the front adds to idpyoidc:
  - request_uri values urn:ietf:params:oauth:request_uri:..., single use, that expire, bound to
    the client that pushed them (RFC 9126 sections 2.2 and 4); a request_uri inside a pushed
    request refused (section 2.1); PKCE checked at the push (idpyoidc checks it only at the
    authorization endpoint, after the redirect); require_pushed_authorization_requests as
    client metadata (section 6);
  - every DPoP proof checked per RFC 9449 section 4.3 (oauthflow_par.DPoPVerifier), the
    dpop_jkt of an authorization request (section 10) and a DPoP header at the PAR endpoint
    (section 10.1) bound to the code, refresh tokens of public clients bound to their key
    (section 5), nonces (sections 8 and 9);
  - its own protected resource (section 7);
  - every JWT read from a request (DPoP proofs, access tokens, an authorization request's
    id_token_hint and request, the token to revoke) refused when its header or payload repeats a
    member name (RFC 7515 section 5.2, RFC 7519 section 7.2), before idpyoidc or cryptojwt, which
    would keep the last of them, read it;
  - FAPI 2.0 clients (oauthflow_fapi): private_key_jwt with keys the server makes, assertions
    addressed to the issuer, PS256 ID tokens, signed request objects (RFC 9101) checked and unpacked
    at the PAR endpoint, JWT-secured authorization responses (JARM).
"""

import html
import json
import logging
import os
import re
import secrets
import sys
import threading
import time
from urllib.parse import parse_qs
from urllib.parse import urlencode

from cryptojwt.jwt import JWT
from cryptojwt.key_jar import KeyJar
from idpyoidc.message import Message
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.exception import ClientAuthenticationError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "IdpyFront"))
# The test servers' shared check of repeated member names, last on the path.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ExchangeServer"))
import idpy_front  # noqa: E402
import oauthflow_fapi  # noqa: E402
import oauthflow_par  # noqa: E402
from oauthflow_fapi import RequestObjectError  # noqa: E402
from oauthflow_par import DPOP_ALGS  # noqa: E402
from oauthflow_par import DPoPVerifier  # noqa: E402
from oauthflow_par import Nonces  # noqa: E402
from oauthflow_par import ProofError  # noqa: E402
from oauthflow_par import RequestURIs  # noqa: E402
from oauthflow_par import access_token_hash  # noqa: E402
from oauthflow_par import loopback_redirect_uri_error  # noqa: E402
from oauthflow_par import peek_jti  # noqa: E402
from repeated_members import first_repeated  # noqa: E402
from repeated_members import repeated_member  # noqa: E402

SCOPES = ["openid", "profile", "email", "offline_access"]
GRANT_TYPES = ["authorization_code", "refresh_token"]
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
PAR_LIFETIME = 60
SHORT_PAR_LIFETIME = 30
DEFAULT_USER = "alice"
USER_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")
MAX_BODY = 64 * 1024
KEEP_JTIS = 500
# The parameters of an authorization request that idpyoidc reads as JWTs (and verifies).
AUTHORIZATION_JWTS = ("id_token_hint", "request")

# name in par-server.json -> client_id, confidential?, metadata the front reads
CLIENTS = {
    "confidential": ("oauthflow-confidential", True, {}),
    "public": ("oauthflow-public", False, {}),
    "par-required": ("oauthflow-par-required", True, {"require_pushed_authorization_requests": True}),
    "short-par": ("oauthflow-short-par", True, {"par_lifetime": SHORT_PAR_LIFETIME}),
    "dpop-nonce": ("oauthflow-dpop-nonce", False, {"dpop_nonce": "required"}),
    "dpop-nonce-loop": ("oauthflow-dpop-nonce-loop", False, {"dpop_nonce": "always"}),
    "bearer": ("oauthflow-bearer", False, {"dpop_ignored": True}),
}
# FAPI 2.0 clients (oauthflow_fapi): private_key_jwt with a key the server makes, PS256 ID tokens,
# pushed requests and DPoP nonces required; the second also signed request objects (RFC 9101).
KEY_CLIENTS = {
    "fapi2": ("oauthflow-fapi2", {"require_pushed_authorization_requests": True, "dpop_nonce": "required"}),
    "fapi2-message-signing": ("oauthflow-fapi2-ms", {
        "require_pushed_authorization_requests": True,
        "dpop_nonce": "required",
        "require_signed_request_object": True,
    }),
}

log = logging.getLogger("par-server")


# --- configuration ---------------------------------------------------------------------------
def resource_url(issuer):
    """The protected resource (App.resource), in par-server.json and every access token's aud."""
    return issuer + "/resource"


def server_configuration(issuer):
    client_authn = ["client_secret_basic", "client_secret_post", "private_key_jwt", "public"]
    return {
        "issuer": issuer,
        "httpc_params": {"verify": True, "timeout": 4},
        "keys": {"uri_path": "jwks.json", "key_defs": []},
        "preference": {
            "grant_types_supported": GRANT_TYPES,
            "token_endpoint_auth_methods_supported": AUTH_METHODS,
            "scopes_supported": SCOPES,
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256", "PS256"],
            "code_challenge_methods_supported": ["S256"],
            "claims_parameter_supported": False,
            "request_parameter_supported": False,
            "request_uri_parameter_supported": False,
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
                "name": {"session": "par_as", "register": "par_as_rp", "session_management": "par_sm"},
            },
        },
        # No login page: the front names the user (login_hint, default alice).
        "authentication": {
            "login_hint": {
                "acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified",
                "class": "oauthflow_par.LoginHintAuthn",
                "kwargs": {},
            }
        },
        "userinfo": {"class": "oauthflow_par.Users", "kwargs": {}},
        "claims_interface": {
            "class": "idpyoidc.server.session.claims.ClaimsInterface",
            "kwargs": {},
        },
        "scopes_to_claims": {
            "openid": ["sub"],
            "profile": ["name", "given_name", "preferred_username"],
            "email": ["email", "email_verified"],
            "offline_access": [],
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                            "expires_in": 120,
                        },
                        "access_token": {"expires_in": 3600},
                        "refresh_token": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "expires_in": 86400,
                        },
                    },
                    "expires_in": 86400,
                }
            },
        },
        "token_handler_args": {
            "code": {"kwargs": {"lifetime": 120, "password": secrets.token_urlsafe(32)}},
            # idpyoidc's JWTToken with typ at+jwt and the resource in aud (oauthflow_par).
            "token": {
                "class": "oauthflow_par.ResourceAccessToken",
                "kwargs": {"lifetime": 3600, "alg": "RS256", "aud": [resource_url(issuer)]},
            },
            "refresh": {"kwargs": {"lifetime": 86400, "password": secrets.token_urlsafe(32)}},
            "id_token": {
                "class": "idpyoidc.server.token.id_token.IDToken",
                "kwargs": {"lifetime": 3600, "sign_alg": "RS256"},
            },
        },
        "add_on": {
            # PKCE with S256 only, required of every client (RFC 7636, OAuth 2.1).
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": "S256"}},
            },
        },
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": "authorize",
                "class": "oauthflow_par.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "pushed_authorization": {
                "path": "par",
                "class": "oauthflow_par.PushedAuthorization",
                "kwargs": {"client_authn_method": client_authn, "ttl": PAR_LIFETIME},
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {"client_authn_method": client_authn},
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header"]},
            },
            "token_revocation": {
                "path": "revoke",
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": client_authn},
            },
        },
    }


class Clients:
    def __init__(self):
        self.secrets = {name: secrets.token_urlsafe(24) for name, (_, confidential, _) in CLIENTS.items() if confidential}
        self.key_clients = oauthflow_fapi.KeyClients(KEY_CLIENTS)

    def register(self, server):
        context = server.context

        def registered(name, client_id, authentication, extra):
            info = {
                "client_id": client_id,
                "client_name": name,
                "grant_types_supported": GRANT_TYPES,
                "response_types_supported": ["code"],
                "allowed_scopes": SCOPES,
                "pkce_essential": True,
                # No redirect_uris: the loopback rule of oauthflow_par decides (RFC 8252 7.3).
            }
            info.update(authentication)
            info.update(extra)
            context.cdb[client_id] = info

        for name, (client_id, confidential, extra) in CLIENTS.items():
            if confidential:
                authentication = {
                    "client_secret": self.secrets[name],
                    "client_secret_expires_at": 0,
                    "token_endpoint_auth_method": "client_secret_basic",
                    "client_authn_method": ["client_secret_basic", "client_secret_post"],
                }
            else:
                authentication = {"token_endpoint_auth_method": "none", "client_authn_method": ["public"]}
            registered(name, client_id, authentication, extra)
        for name, (client_id, extra) in KEY_CLIENTS.items():
            registered(name, client_id, self.key_clients.register(server.keyjar, name, client_id), extra)

    def describe(self):
        described = {
            name: {
                "client_id": client_id,
                "client_secret": self.secrets.get(name),
                "auth_method": "client_secret_basic" if confidential else "none",
            }
            for name, (client_id, confidential, _) in CLIENTS.items()
        }
        for name, (client_id, _) in KEY_CLIENTS.items():
            described[name] = {
                "client_id": client_id,
                "auth_method": "private_key_jwt",
                "private_key_pem": self.key_clients.private_pem(name),
                "key_id": self.key_clients.key_id(name),
            }
        return described


# --- HTTP ------------------------------------------------------------------------------------
REASONS = {200: "OK", 201: "Created", 302: "Found", 400: "Bad Request", 401: "Unauthorized",
           404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large",
           500: "Internal Server Error"}
NO_STORE = (("Cache-Control", "no-store"), ("Pragma", "no-cache"))


class BadRequest(Exception):
    pass


class App:
    def __init__(self, server, issuer):
        self.server = server
        self.context = server.context
        self.issuer = issuer
        self.lock = threading.Lock()
        self.verifier = DPoPVerifier()
        self.nonces = Nonces()
        self.request_uris = RequestURIs()
        self.refresh_bindings = {}  # refresh token -> jkt (public clients, RFC 9449 section 5)
        self.token_verifier = KeyJar()
        self.token_verifier.import_jwks(server.keyjar.export_jwks(private=False, issuer_id=""), issuer)
        self.response_key = None  # the PS256 key JARM responses are signed with (build)
        self.jti_count = 0
        self.jtis = []
        self.jti_repeats = {}
        self.jti_known = set()
        self.stats = {
            "par_requests": {},
            "authorization_requests": {},
            "token_requests": {},
            "nonce_demands": {},
            "proofs_refused": {},
            "resource_requests": {},
            "request_objects": {},
            "jwt_responses": {},
        }

    # --- WSGI ---
    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        try:
            with self.lock:
                status, body, headers = self.route(method, path, environ)
        except BadRequest as err:
            status, body, headers = 400, {"error": "invalid_request", "error_description": str(err)}, []
        except Exception:
            # Bad input must not take the server down; the log has the trace.
            log.exception("%s %s failed", method, path)
            status, body, headers = 400, {
                "error": "invalid_request",
                "error_description": "the server could not process this request",
            }, []
        # A copy: routes may hand back a shared tuple or list, which must never collect this answer's headers.
        headers = list(headers)
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        names = {name.lower() for name, _ in headers}
        if "content-type" not in names:
            headers.append(("Content-Type", "application/json"))
        headers.append(("Content-Length", str(len(body))))
        start_response(f"{status} {REASONS.get(status, 'Error')}", headers)
        return [body]

    def route(self, method, path, environ):
        if path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
            if method != "GET":
                return 405, {"error": "method not allowed"}, [("Allow", "GET")]
            return self.discovery()
        if path == "/jwks.json" and method == "GET":
            return 200, self.server.keyjar.export_jwks(private=False, issuer_id=""), []
        posts = {"/par": self.par, "/token": self.token, "/revoke": self.revoke}
        if path in posts:
            if method != "POST":
                return 405, {"error": "invalid_request", "error_description": "POST only"}, [("Allow", "POST")]
            return posts[path](environ)
        if path == "/authorize":
            if method != "GET":
                return 405, {"error": "invalid_request", "error_description": "GET only"}, [("Allow", "GET")]
            return self.authorize(environ)
        if path == "/userinfo":
            if method not in ("GET", "POST"):
                return 405, {"error": "invalid_request"}, [("Allow", "GET, POST")]
            return self.userinfo(environ, method)
        for place in ("hello", "nonce", "nonce-loop"):
            if path == f"/resource/{place}" or path.startswith(f"/resource/{place}/"):
                if method not in ("GET", "POST"):
                    return 405, {"error": "invalid_request"}, [("Allow", "GET, POST")]
                return self.resource(environ, method, place)
        if path == "/test/stats" and method == "GET":
            return 200, self.stats, NO_STORE
        if path == "/test/jtis" and method == "GET":
            return 200, {
                "count": self.jti_count,
                "repeated": sorted(self.jti_repeats)[:50],
                "jtis": self.jtis,
            }, NO_STORE
        return 404, {"error": "not found"}, []

    # --- helpers ---
    def count(self, table, key, sub=None):
        bucket = self.stats[table]
        if sub is None:
            bucket[key] = bucket.get(key, 0) + 1
        else:
            inner = bucket.setdefault(key, {})
            inner[sub] = inner.get(sub, 0) + 1

    def stats_client(self, client_id):
        return client_id if client_id in self.context.cdb else "(unknown)"

    def record_jti(self, jti):
        self.jti_count += 1
        if jti in self.jti_known:
            self.jti_repeats[jti] = self.jti_repeats.get(jti, 1) + 1
        else:
            self.jti_known.add(jti)
        self.jtis.append(jti)
        del self.jtis[:-KEEP_JTIS]

    def url(self, environ):
        """This request's URL without query (the raw path, as the client sent it)."""
        return self.issuer + environ.get("RAW_PATH", environ.get("PATH_INFO", "")).split("?", 1)[0]

    def check_proof(self, environ, method, url, access_token=None, nonce_place=None):
        """The DPoP proof of this request (oauthflow_par.DPoPVerifier), or raises ProofError;
        counts a refusal per reason (a missing nonce is a nonce demand instead)."""
        value = environ.get("HTTP_DPOP", "")
        nonce_ok = None
        if nonce_place is not None:
            nonce_ok = lambda nonce: self.nonces.accepts(nonce_place, nonce)  # noqa: E731
        try:
            return self.verifier.verify(
                value, method, url, access_token=access_token, nonce_ok=nonce_ok, record=self.record_jti
            )
        except ProofError as err:
            if err.reason != "nonce":
                self.count("proofs_refused", err.reason)
            log.info("DPoP proof refused: %s", err.description)
            raise

    def nonce_demand(self, place, status, challenge=False):
        """use_dpop_nonce with a fresh DPoP-Nonce (RFC 9449 sections 8 and 9)."""
        self.count("nonce_demands", place)
        nonce = self.nonces.fresh(place) if place != "resource-loop" else secrets.token_urlsafe(16)
        description = "Authorization server requires nonce in DPoP proof" if place.startswith("token") \
            else "Resource server requires nonce in DPoP proof"
        headers = [("DPoP-Nonce", nonce), ("Cache-Control", "no-store")]
        if challenge:
            headers.append(("WWW-Authenticate",
                            f'DPoP error="use_dpop_nonce", error_description="{description}", algs="{" ".join(DPOP_ALGS)}"'))
        return status, {"error": "use_dpop_nonce", "error_description": description}, headers

    def oauth_error(self, status, error, description, extra_headers=()):
        headers = list(NO_STORE) + list(extra_headers)
        if status == 401 and error == "invalid_client":
            headers.append(("WWW-Authenticate", 'Basic realm="par-server"'))
        return status, {"error": error, "error_description": description}, headers

    def error_message(self, message):
        answer = message.to_dict() if isinstance(message, Message) else dict(message)
        answer = {k: answer[k] for k in ("error", "error_description") if k in answer}
        answer.setdefault("error", "invalid_request")
        status = 401 if answer["error"] == "invalid_client" else 400
        return self.oauth_error(status, answer["error"], str(answer.get("error_description", ""))[:300])

    def http_info(self, environ, url, method):
        headers = {}
        if environ.get("HTTP_AUTHORIZATION"):
            headers["authorization"] = environ["HTTP_AUTHORIZATION"]
        return {"headers": headers, "url": url, "method": method}

    # --- discovery ---
    def discovery(self):
        endpoint = self.server.get_endpoint("provider_config")
        info = endpoint.do_response(**endpoint.process_request())
        return 200, info["response"], [(k, v) for k, v in info.get("http_headers", []) if k.lower() != "set-cookie"]

    # --- authorization endpoint ---
    def error_page(self, message):
        body = (
            "<!doctype html><html><head><title>Authorization error</title></head><body>"
            f"<h1>Authorization error</h1><p>{html.escape(message)}</p></body></html>"
        )
        return 400, body, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]

    def redirect(self, redirect_uri, args):
        args = {k: v for k, v in args.items() if v is not None}
        separator = "&" if "?" in redirect_uri else "?"
        return 302, b"", [("Location", redirect_uri + separator + urlencode(args)), ("Cache-Control", "no-store")]

    def error_redirect(self, redirect_uri, state, error, description, jarm_client=None):
        answer = {
            "error": error,
            "error_description": description,
            "state": state,
            "iss": self.issuer,  # RFC 9207 section 2, in error answers too
        }
        return self.answer_redirect(redirect_uri, answer, jarm_client)

    def answer_redirect(self, redirect_uri, answer, jarm_client=None):
        """The authorization answer as query parameters, or, for a client that asked for response_mode jwt or
        query.jwt, signed into one `response` parameter (JARM, oauthflow_fapi)."""
        if jarm_client is None:
            return self.redirect(redirect_uri, answer)
        token = oauthflow_fapi.response_jwt(answer, jarm_client, self.issuer, self.response_key)
        self.count("jwt_responses", jarm_client)
        return self.redirect(redirect_uri, {"response": token})

    def authorize(self, environ):
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        for name, values in query.items():
            if len(values) > 1:
                return self.error_page(f"The parameter {name} is repeated.")
        query = {k: v[0] for k, v in query.items()}
        client_id = query.get("client_id", "")
        cinfo = self.context.cdb.get(client_id)
        if not client_id or cinfo is None:
            self.count("authorization_requests", "(unknown)", "pushed" if "request_uri" in query else "plain")
            return self.error_page("Unknown client: the client_id is missing or not registered.")

        if "request_uri" in query:
            self.count("authorization_requests", client_id, "pushed")
            try:
                idpy_urn = self.request_uris.take(query["request_uri"], client_id, self.context.par_db)
            except ValueError as err:
                return self.error_page(f"Invalid request_uri: {err}.")
            # RFC 9126 section 4: the pushed request is the request; the other parameters of
            # this one (but client_id) are ignored. idpyoidc resolves only urn:uuid values from
            # its par_db; the front resolves its own request_uri to that entry.
            stored = self.context.par_db.pop(idpy_urn).to_dict()
            stored.pop("authenticated", None)
            args = stored
        else:
            self.count("authorization_requests", client_id, "plain")
            if cinfo.get("require_pushed_authorization_requests"):
                # RFC 9126 section 6: the client's require_pushed_authorization_requests
                # metadata (idpyoidc has no such check).
                return self.error_page(
                    "Pushed authorization requests are required for this client: push the request "
                    "to the pushed_authorization_request_endpoint and send its request_uri."
                )
            problem = loopback_redirect_uri_error(query.get("redirect_uri"))
            if problem:
                return self.error_page(f"Invalid redirect_uri: {problem}.")
            args = query

        redirect_uri = args.get("redirect_uri")
        state = args.get("state")
        if loopback_redirect_uri_error(redirect_uri):
            return self.error_page("Invalid redirect_uri.")
        # JARM (oauthflow_fapi): idpyoidc 5.0.0 knows no JWT response modes, so the front takes them.
        mode = args.pop("response_mode", None)
        if mode not in (None, "query") + oauthflow_fapi.JARM_MODES:
            return self.error_redirect(redirect_uri, state, "invalid_request", f"response_mode {mode} is not supported")
        jarm = client_id if mode in oauthflow_fapi.JARM_MODES else None
        user = args.get("login_hint") or DEFAULT_USER
        if not USER_NAME.match(user):
            return self.error_redirect(redirect_uri, state, "invalid_request", "login_hint is not a user name", jarm)
        repeated = first_repeated(args, AUTHORIZATION_JWTS)
        if repeated:
            return self.error_redirect(redirect_uri, state, "invalid_request", repeated[1], jarm)

        endpoint = self.server.get_endpoint("authorization")
        http_info = {"headers": {}, "url": self.issuer + "/authorize", "method": "GET"}
        request = endpoint.parse_request(args, http_info=http_info)
        if isinstance(request, Message) and "error" in request:
            return self.error_redirect(redirect_uri, state, request["error"],
                                       str(request.get("error_description", ""))[:300], jarm)
        result = endpoint.process_request(request, http_info=http_info, authn=user)
        if not isinstance(result, dict) or "error" in result or "response_args" not in result:
            error = (result or {}).get("error", "server_error") if isinstance(result, dict) else "server_error"
            return self.error_redirect(redirect_uri, state, error,
                                       str((result or {}).get("error_description", "")) if isinstance(result, dict) else "",
                                       jarm)
        answer = result["response_args"]
        answer = answer.to_dict() if isinstance(answer, Message) else dict(answer)
        if "error" in answer:
            return self.error_redirect(redirect_uri, state, answer["error"], answer.get("error_description"), jarm)
        # idpyoidc adds iss (RFC 9207) and client_id to the answer.
        return self.answer_redirect(result.get("return_uri") or redirect_uri, answer, jarm)

    # --- PAR endpoint ---
    def par(self, environ):
        body = read_body(environ)
        form = parse_form(body)
        client_id = form.get("client_id") or basic_client_id(environ.get("HTTP_AUTHORIZATION", ""))
        self.count("par_requests", self.stats_client(client_id))
        if "request_uri" in form:
            # RFC 9126 section 2.1: request_uri is not allowed in a pushed request.
            return self.oauth_error(400, "invalid_request", "request_uri is not allowed in a pushed authorization request")
        repeated = first_repeated(form, AUTHORIZATION_JWTS)
        if repeated:
            return self.oauth_error(400, "invalid_request", repeated[1])
        registered = self.context.cdb.get(client_id, {})
        if "request" in form:
            # RFC 9101, pushed (RFC 9126 section 3): checked and unpacked here (oauthflow_fapi).
            if not registered.get("jwks"):
                return self.oauth_error(400, "invalid_request_object", "this client has no registered key for request objects")
            try:
                form, body = oauthflow_fapi.unpack_request_object(form, client_id, self.issuer, registered["jwks"])
            except RequestObjectError as err:
                self.count("proofs_refused", "request_object")
                return self.oauth_error(400, "invalid_request_object", str(err))
            self.count("request_objects", client_id)
        elif registered.get("require_signed_request_object"):
            return self.oauth_error(400, "invalid_request", "this client's pushed requests must be signed request objects (RFC 9101)")
        jkt = None
        if environ.get("HTTP_DPOP"):
            # RFC 9449 section 10.1: a DPoP proof at the PAR endpoint binds the code to its key.
            try:
                jkt = self.check_proof(environ, "POST", self.issuer + "/par").jkt
            except ProofError as err:
                return self.oauth_error(400, "invalid_dpop_proof", err.description)
            if form.get("dpop_jkt") and form["dpop_jkt"] != jkt:
                self.count("proofs_refused", "jkt")
                return self.oauth_error(400, "invalid_dpop_proof", "dpop_jkt is not the DPoP proof's key")

        endpoint = self.server.get_endpoint("pushed_authorization")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, self.issuer + "/par", "POST"))
        except ClientAuthenticationError as err:
            log.info("PAR request refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(401, "invalid_client", "Client authentication failed")
        if isinstance(request, Message) and "error" in request:
            return self.error_message(request)
        client_id = request["client_id"]
        cinfo = self.context.cdb[client_id]
        if cinfo.get("token_endpoint_auth_method", "none") != "none" and not request.get("authenticated"):
            return self.oauth_error(401, "invalid_client", "Client authentication is required")
        # PKCE S256 (idpyoidc's PKCE add-on checks it only at the authorization endpoint).
        if not request.get("code_challenge") or request.get("code_challenge_method") != "S256":
            return self.oauth_error(400, "invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
        if jkt:
            request["dpop_jkt"] = jkt
        result = endpoint.process_request(request)
        idpy_urn = result["http_response"]["request_uri"]
        lifetime = cinfo.get("par_lifetime", PAR_LIFETIME)
        request_uri = self.request_uris.add(idpy_urn, client_id, lifetime)
        return 201, {"request_uri": request_uri, "expires_in": lifetime}, list(NO_STORE)

    # --- token endpoint ---
    def token(self, environ):
        body = read_body(environ)
        form = parse_form(body)
        client_id = form.get("client_id") or basic_client_id(environ.get("HTTP_AUTHORIZATION", ""))
        cinfo = self.context.cdb.get(client_id, {})
        proof_value = environ.get("HTTP_DPOP")
        self.count("token_requests", self.stats_client(client_id), "with_proof" if proof_value else "without_proof")
        nonce_policy = cinfo.get("dpop_nonce")

        if nonce_policy == "always":
            # dpop-nonce-loop: a hostile server that never takes the nonce it hands out.
            if proof_value:
                jti = peek_jti(proof_value)
                if jti:
                    self.record_jti(jti)
            return self.nonce_demand("token-loop", 400)

        jkt = None
        if proof_value and cinfo.get("dpop_ignored"):
            jti = peek_jti(proof_value)  # a server that does not do DPoP: the proof is ignored
            if jti:
                self.record_jti(jti)
        elif proof_value:
            try:
                proof = self.check_proof(environ, "POST", self.issuer + "/token",
                                         nonce_place="token" if nonce_policy == "required" else None)
            except ProofError as err:
                if err.reason == "nonce":
                    return self.nonce_demand("token", 400)
                return self.oauth_error(400, "invalid_dpop_proof", err.description)
            jkt = proof.jkt

        endpoint = self.server.get_endpoint("token")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, self.issuer + "/token", "POST"))
        except ClientAuthenticationError as err:
            log.info("token request refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(401, "invalid_client", "Client authentication failed")
        if isinstance(request, Message) and "error" in request:
            return self.error_message(request)
        if "dpop_jkt" in request:
            del request["dpop_jkt"]  # only a verified proof names the key
        client_id = request.get("client_id", client_id)
        public = self.context.cdb.get(client_id, {}).get("token_endpoint_auth_method", "none") == "none"

        grant_type = request.get("grant_type")
        manager = self.context.session_manager
        if grant_type == "authorization_code":
            handler_key, token_value = "authorization_code", request.get("code")
        elif grant_type == "refresh_token":
            handler_key, token_value = "refresh_token", request.get("refresh_token")
        else:
            return self.oauth_error(400, "unsupported_grant_type", "authorization_code and refresh_token only")
        try:
            grant = manager.get_session_info_by_token(token_value, grant=True, handler_key=handler_key)["grant"]
        except Exception:
            return self.oauth_error(400, "invalid_grant", "unknown code or refresh token")

        if grant_type == "authorization_code":
            # RFC 9449 section 10: a code whose authorization request named dpop_jkt (or was
            # pushed with a DPoP proof, section 10.1) is redeemed only with that key.
            # A server that does not do DPoP (the `bearer` client) ignores dpop_jkt as well.
            wanted = None if cinfo.get("dpop_ignored") else (grant.authorization_request or {}).get("dpop_jkt")
            if wanted and jkt != wanted:
                self.count("proofs_refused", "jkt")
                return self.oauth_error(400, "invalid_dpop_proof",
                                        "the code is bound to another DPoP key (dpop_jkt)" if jkt
                                        else "the code is bound to a DPoP key (dpop_jkt): a DPoP proof is required")
        else:
            # RFC 9449 section 5: a public client's refresh token is bound to the key of the
            # DPoP token request it was issued in.
            bound = self.refresh_bindings.get(token_value)
            if bound and jkt != bound:
                self.count("proofs_refused", "jkt")
                return self.oauth_error(400, "invalid_dpop_proof",
                                        "the refresh token is bound to another DPoP key" if jkt
                                        else "the refresh token is DPoP-bound: a DPoP proof is required")

        # idpyoidc keeps the DPoP key in the grant (grant.extra["dpop_jkt"]) and binds every
        # later token of the grant to it, proof or not; the key is this request's alone.
        grant.extra.pop("dpop_jkt", None)
        if jkt:
            request["dpop_jkt"] = jkt  # idpyoidc's helpers then answer token_type DPoP with cnf.jkt
        try:
            result = endpoint.process_request(request)
        except Exception as err:
            log.exception("token request failed")
            return self.oauth_error(400, "invalid_grant", f"{type(err).__name__}")
        finally:
            grant.extra.pop("dpop_jkt", None)
        if isinstance(result, Message) and "error" in result:
            return self.error_message(result)
        if isinstance(result, dict) and "error" in result:
            return self.error_message(result)
        response = endpoint.do_response(request=request, **result)
        answer = json.loads(response["response"])
        if "error" in answer:
            return self.error_message(answer)
        if jkt and public and answer.get("refresh_token"):
            self.refresh_bindings[answer["refresh_token"]] = jkt
        headers = [(k, v) for k, v in response.get("http_headers", []) if k.lower() not in ("set-cookie", "content-type")]
        headers += [h for h in NO_STORE if h[0] not in {k for k, _ in headers}]
        if nonce_policy == "required" and jkt:
            headers.append(("DPoP-Nonce", self.nonces.current("token")))
        return 200, answer, headers

    # --- access tokens (userinfo, resource) ---
    def presented_token(self, environ):
        """(scheme, token) of the Authorization header, or (None, None)."""
        value = environ.get("HTTP_AUTHORIZATION", "")
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if scheme.lower() == "dpop" and token:
            return "DPoP", token
        if scheme.lower() == "bearer" and token:
            return "Bearer", token
        return None, None

    def token_claims(self, token):
        """The claims of an active access token this server issued, or None: its JWT verified
        with the server's key, and idpyoidc's session manager holding it, not revoked."""
        if len(token) > 8192:
            return None
        try:
            claims = JWT(self.token_verifier, allowed_sign_algs=["RS256"], iss=self.issuer).unpack(token)
            if claims.get("exp", 0) < time.time():
                return None
            manager = self.context.session_manager
            info = manager.get_session_info_by_token(token, grant=True, handler_key="access_token")
            item = info["grant"].get_token(token)
            if item is None or not item.is_active() or item.token_class != "access_token":
                return None
            return dict(claims)
        except Exception as err:
            log.info("access token refused: %s: %s", type(err).__name__, err)
            return None

    def check_access(self, environ, method, url, nonce_place=None):
        """RFC 9449 section 7 / RFC 6750: (claims, scheme, jkt) or an error answer (401)."""
        scheme, token = self.presented_token(environ)
        algs = " ".join(DPOP_ALGS)
        if scheme is None:
            return None, (401, {"error": "invalid_request", "error_description": "no access token"},
                          [("WWW-Authenticate", f'DPoP algs="{algs}"'), ("WWW-Authenticate", "Bearer")])

        def refuse(error, description, which=scheme):
            # A proof refused with its token (before its own checks) is still a jti seen,
            # for /test/jtis.
            if environ.get("HTTP_DPOP") and not proof_checked:
                jti = peek_jti(environ["HTTP_DPOP"])
                if jti:
                    self.record_jti(jti)
            challenge = f'{which} error="{error}", error_description="{description}"'
            if which == "DPoP":
                challenge += f', algs="{algs}"'
            return None, (401, {"error": error, "error_description": description},
                          [("WWW-Authenticate", challenge)])

        proof_checked = False
        why = repeated_member(token, "access token")
        if why:
            return refuse("invalid_token", why)
        claims = self.token_claims(token)
        if claims is None:
            return refuse("invalid_token", "the access token is unknown, expired or revoked")
        bound = (claims.get("cnf") or {}).get("jkt")
        if scheme == "Bearer":
            if bound:
                return refuse("invalid_token", "a DPoP-bound access token presented as Bearer")
            return (claims, "Bearer", None), None
        if not bound:
            return refuse("invalid_token", "the access token is not DPoP-bound")
        if not environ.get("HTTP_DPOP"):
            self.count("proofs_refused", "malformed")
            return refuse("invalid_dpop_proof", "a DPoP proof is required")
        proof_checked = True  # check_proof records the jti itself
        try:
            proof = self.check_proof(environ, method, url, access_token=token, nonce_place=nonce_place)
        except ProofError as err:
            if err.reason == "nonce":
                return None, self.nonce_demand("resource", 401, challenge=True)
            return refuse("invalid_dpop_proof", err.description)
        if proof.jkt != bound:
            self.count("proofs_refused", "jkt")
            return refuse("invalid_dpop_proof", "the DPoP proof's key is not the access token's")
        return (claims, "DPoP", proof.jkt), None

    def userinfo(self, environ, method):
        # idpyoidc's userinfo endpoint authenticates the caller as a client (bearer_header against
        # the client's registered method) and its DPoP add-on checks `ath` as hex: the front checks
        # the token, its scheme and the proof (check_access), and answers with the token's subject.
        granted, refusal = self.check_access(environ, method, self.issuer + "/userinfo")
        if refusal:
            return refusal
        claims = granted[0]
        return 200, {"sub": claims.get("sub"), "scheme": granted[1]}, list(NO_STORE)

    def resource(self, environ, method, place):
        raw = environ.get("RAW_PATH", environ.get("PATH_INFO", ""))
        path, _, query = raw.partition("?")
        scheme, _ = self.presented_token(environ)
        self.count("resource_requests", scheme or "none")
        if place == "nonce-loop":
            # A resource that never takes the nonce it hands out.
            if environ.get("HTTP_DPOP"):
                jti = peek_jti(environ["HTTP_DPOP"])
                if jti:
                    self.record_jti(jti)
            return self.nonce_demand("resource-loop", 401, challenge=True)
        granted, refusal = self.check_access(environ, method, self.issuer + path,
                                             nonce_place="resource" if place == "nonce" else None)
        if refusal:
            return refusal
        claims, scheme, jkt = granted
        headers = [("Cache-Control", "no-store")]
        if place == "nonce":
            headers.append(("DPoP-Nonce", self.nonces.current("resource")))
        return 200, {
            "sub": claims.get("sub"),
            "client_id": claims.get("client_id"),
            "scheme": scheme,
            "jkt": jkt,
            "method": method,
            "path": path,
            "query": query,
        }, headers

    # --- revocation ---
    def revoke(self, environ):
        body = read_body(environ)
        if environ.get("HTTP_DPOP"):
            jti = peek_jti(environ["HTTP_DPOP"])  # accepted and ignored (RFC 9449 does not bind revocation)
            if jti:
                self.record_jti(jti)
        endpoint = self.server.get_endpoint("token_revocation")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, self.issuer + "/revoke", "POST"))
        except ClientAuthenticationError as err:
            log.info("revocation refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(401, "invalid_client", "Client authentication failed")
        if isinstance(request, Message) and "error" in request:
            return self.error_message(request)
        if repeated_member(request.get("token"), "token"):
            # Not for idpyoidc to read: like any token this server did not issue, nothing is revoked
            # and the answer is 200 (RFC 7009 section 2.2).
            return 200, b"", [("Content-Type", "text/plain"), ("Cache-Control", "no-store")]
        result = endpoint.process_request(request)
        if isinstance(result, Message) and "error" in result:
            return self.error_message(result)
        self.refresh_bindings.pop(request.get("token"), None)
        return 200, b"", [("Content-Type", "text/plain"), ("Cache-Control", "no-store")]


def read_body(environ):
    try:
        return idpy_front.read_body(environ, limit=MAX_BODY)
    except ValueError as err:
        raise BadRequest(str(err))


def parse_form(body):
    form = parse_qs(body, keep_blank_values=True)
    for name, values in form.items():
        if len(values) > 1:
            raise BadRequest(f"parameter {name} is repeated")
    return {k: v[0] for k, v in form.items()}


def basic_client_id(authorization):
    import base64
    from urllib.parse import unquote

    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "basic":
        return ""
    try:
        return unquote(base64.b64decode(value.strip()).decode("utf-8").split(":", 1)[0])
    except Exception:
        return ""


def description(issuer, clients):
    description = {
        "issuer": issuer,
        "resource": resource_url(issuer),
        "clients": clients.describe(),
    }
    return description


def build(issuer, keyjar, state):
    server = Server(OPConfiguration(conf=server_configuration(issuer)), keyjar=keyjar, cwd=state)
    context = server.context
    # DPoP: idpyoidc's token helpers answer token_type DPoP and bind the token (cnf.jkt) when
    # context.add_on["dpop"] is set and the request carries dpop_jkt, which the front sets
    # from a proof it checked (idpyoidc's own add-on is not loaded: see oauthflow_par).
    context.add_on["dpop"] = {"algs_supported": DPOP_ALGS}
    context.provider_info.update({
        "dpop_signing_alg_values_supported": DPOP_ALGS,
        "pushed_authorization_request_endpoint": issuer + "/par",
        "require_pushed_authorization_requests": False,
        "authorization_response_iss_parameter_supported": True,  # RFC 9207
        "code_challenge_methods_supported": ["S256"],
        "grant_types_supported": GRANT_TYPES,
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "scopes_supported": SCOPES,
        "response_types_supported": ["code"],
        "id_token_signing_alg_values_supported": ["RS256", "PS256"],
        # FAPI 2.0 (oauthflow_fapi): private_key_jwt, signed request objects, JWT-secured responses.
        "token_endpoint_auth_signing_alg_values_supported": ["ES256", "PS256"],
        "request_object_signing_alg_values_supported": oauthflow_fapi.REQUEST_OBJECT_ALGS,
        "authorization_signing_alg_values_supported": ["PS256"],
        "response_modes_supported": ["query", "jwt", "query.jwt"],
    })
    # A client assertion's aud may be the issuer (RFC 7523 section 3; FAPI 2.0 requires it) as well as the
    # endpoint's URL, which is all idpyoidc takes by default.
    for name in ("token", "pushed_authorization", "token_revocation"):
        endpoint = server.get_endpoint(name)
        endpoint.allowed_targets = ["", endpoint.name]
    response_key = oauthflow_fapi.signing_key()
    for owner in ("", issuer):
        server.keyjar.add_keys(owner, [response_key])
    clients = Clients()
    clients.register(server)

    # The description holds the client secrets and keys: idpy_front writes it 0600.
    app = App(server, issuer)
    app.response_key = response_key
    return app, description(issuer, clients)


if __name__ == "__main__":
    sys.exit(idpy_front.run("par", "par-server.json", build))
