"""An OpenID Connect provider with RP-Initiated Logout 1.0, Back-Channel Logout 1.0 and Front-Channel
Logout 1.0, for the end-to-end tests of logout.

The protocol work is IdentityPython's idpyoidc 5.0.0: its authorization, token, userinfo and
revocation endpoints, PKCE, client authentication, sessions, RS256 ID tokens carrying `sid`, and
its session endpoint (end_session_endpoint): the end-session request and its checks, the
confirmation JWT, the logout of every client of the user (Session.logout_all_clients), the logout
tokens (Session.do_back_channel_logout) and the front-channel iframes. This file is its
configuration and an HTTP front on 127.0.0.1 that delivers what idpyoidc produces (README.md says
what it adds and why). Every JWT the front takes from a request (an authorization request's
id_token_hint and request, the login form's token, the end-session id_token_hint, the logout
confirmation's sjwt, access tokens at userinfo, the token to revoke) is refused when its header or
payload repeats a member name (RFC 7515 section 5.2, RFC 7519 section 7.2), before idpyoidc or
cryptojwt, which would keep the last of them, read it.

    python server.py STATE_DIR

binds a free port on 127.0.0.1 and, once it serves, writes STATE_DIR/logout-server.json 0600 (see
description(); it holds the client secrets and the users' passwords).

HTTP (README.md has every answer):
    GET  /.well-known/openid-configuration    discovery
    GET  /jwks.json
    GET  /authorize                            login form, or 302 to the client (single sign-on)
    POST /login                                the login form's answer
    POST /token, GET|POST /userinfo, POST /revoke
    GET|POST /end-session                      RP-initiated logout (idpyoidc's session endpoint)
    GET  /logout-confirm?sjwt=...              "log out?" page; POST /logout-confirm does it
    GET  /logged-out                           where a logout without post_logout_redirect_uri ends
    POST /test/clients/CLIENT_ID               JSON: change (or add) a client's registration
    POST /test/logout                          form user=NAME: OP-initiated logout, no browser
    GET  /test/stats                           deliveries, sign-ins, logouts
"""

import base64
import html
import http.client
import json
import logging
import os
import secrets
import ssl
import sys
import threading
import time
from urllib.parse import parse_qs
from urllib.parse import urlencode
from urllib.parse import urlsplit

from idpyoidc.message import Message
from idpyoidc.message.oidc import AuthorizationRequest
from idpyoidc.message.oidc import verified_claim_name
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.exception import ClientAuthenticationError
from idpyoidc.server.oauth2.authorization import verify_uri
from idpyoidc.util import split_uri

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "IdpyFront"))
# The test servers' shared check of repeated member names, last on the path.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ExchangeServer"))
import idpy_front  # noqa: E402
import oauthflow_logout  # noqa: E402
from oauthflow_logout import PASSWORD_ACR  # noqa: E402
from oauthflow_logout import USERS  # noqa: E402
from oauthflow_logout import page  # noqa: E402
from repeated_members import first_repeated  # noqa: E402
from repeated_members import repeated_member  # noqa: E402

SCOPES = ["openid", "profile", "email", "offline_access"]
GRANT_TYPES = ["authorization_code", "refresh_token"]
AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
MAX_BODY = 64 * 1024
# Seconds each back-channel logout request is given, in all. The receivers are test processes that share two
# busy cores with a thousand other tests, some of which queue ten thousand tasks on the same two threads: one
# answered after more than 5 s (CI, 2026-11-26), another after more than 15 s (CI, 2026-11-27). The tests check
# what a receiver does, not how fast, so the bound only stops a receiver that never answers; each delivery
# records how long it took. The agent's request timeout and the Swift side's outlast it.
DELIVERY_TIMEOUT = 60.0
KEEP_DELIVERIES = 1000
# The parameters of an authorization request that idpyoidc reads as JWTs (and verifies).
AUTHORIZATION_JWTS = ("id_token_hint", "request")

# The paths of the front; idpyoidc's endpoints are configured with the same ones.
END_SESSION = "/end-session"
CONFIRM = "/logout-confirm"
LOGGED_OUT = "/logged-out"

# name in logout-server.json -> client_id, confidential?, loopback redirect URIs (any port),
# loopback post-logout redirect URIs (any port)
CLIENTS = {
    "web": ("logout-web", True, [], []),
    "cli": (
        "logout-cli",
        False,
        ["http://127.0.0.1/callback", "http://localhost/callback"],
        ["http://127.0.0.1/logged-out", "http://localhost/logged-out"],
    ),
}

log = logging.getLogger("logout-server")


# --- configuration ---------------------------------------------------------------------------
def server_configuration(issuer):
    client_authn = ["client_secret_basic", "client_secret_post", "public"]
    return {
        "issuer": issuer,
        "httpc_params": {"verify": True, "timeout": DELIVERY_TIMEOUT},
        "keys": {"uri_path": "jwks.json", "key_defs": []},
        "preference": {
            "grant_types_supported": GRANT_TYPES,
            "token_endpoint_auth_methods_supported": AUTH_METHODS,
            "scopes_supported": SCOPES,
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
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
                "name": {
                    "session": "logout_op",
                    "register": "logout_op_rp",
                    "session_management": "logout_op_sm",
                },
                # Plain HTTP on 127.0.0.1: idpyoidc's default flags (Secure, SameSite=None) would
                # keep browsers and Python's cookie jar from ever sending the cookie back.
                "flags": {"httponly": True, "samesite": "Lax"},
            },
        },
        "authentication": {
            "password": {
                "acr": PASSWORD_ACR,
                "class": "oauthflow_logout.PasswordLogin",
                "kwargs": {},
            }
        },
        "userinfo": {"class": "oauthflow_logout.Users", "kwargs": {}},
        "claims_interface": {
            "class": "idpyoidc.server.session.claims.ClaimsInterface",
            "kwargs": {},
        },
        "scopes_to_claims": {
            "openid": ["sub"],
            "profile": ["name", "given_name", "family_name", "preferred_username"],
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
            "token": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 3600, "alg": "RS256"},
            },
            "refresh": {"kwargs": {"lifetime": 86400, "password": secrets.token_urlsafe(32)}},
            "id_token": {
                "class": "idpyoidc.server.token.id_token.IDToken",
                "kwargs": {"lifetime": 3600, "sign_alg": "RS256"},
            },
        },
        "add_on": {
            # PKCE with S256 only, required of every client.
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
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {"client_authn_method": client_authn},
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header", "bearer_body"]},
            },
            "token_revocation": {
                "path": "revoke",
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": client_authn},
            },
            # idpyoidc's end_session_endpoint. It sends the browser to logout_verify_url with a
            # JWT it signed (the session, the post-logout URI and state); the front's page there
            # asks "log out?" and, confirmed, has idpyoidc log the user out of every client.
            "session": {
                "path": END_SESSION.lstrip("/"),
                "class": "oauthflow_logout.Session",
                "kwargs": {
                    "client_authn_method": None,
                    "logout_verify_url": issuer + CONFIRM,
                    "post_logout_uri_path": LOGGED_OUT.lstrip("/"),
                    "signing_alg": "RS256",
                },
            },
        },
    }


def advertised(issuer):
    """What discovery says beyond idpyoidc's defaults (its provider_info, updated at start)."""
    return {
        "backchannel_logout_supported": True,
        "backchannel_logout_session_supported": True,
        "frontchannel_logout_supported": True,
        "frontchannel_logout_session_supported": True,
        "end_session_endpoint": issuer + END_SESSION,
        "revocation_endpoint": issuer + "/revoke",
        "authorization_response_iss_parameter_supported": True,  # RFC 9207: idpyoidc adds iss
        "code_challenge_methods_supported": ["S256"],
        "grant_types_supported": GRANT_TYPES,
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "scopes_supported": SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "subject_types_supported": ["public"],
        "claims_supported": ["sub", "sid", "name", "given_name", "family_name", "preferred_username",
                             "email", "email_verified"],
    }


# --- clients ---------------------------------------------------------------------------------
def is_loopback_any_port(uri):
    """Whether a registered URI is a loopback one without a port: it then matches the same URI on
    any port (RFC 8252 section 7.3)."""
    try:
        parts = urlsplit(uri)
        return parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1") \
            and parts.port is None
    except ValueError:
        return False


def without_port(uri):
    """uri with its port taken out, or None when it is not a loopback http URI with a port."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1") or port is None:
        return None
    host = f"[{parts.hostname}]" if parts.hostname == "::1" else parts.hostname
    return parts._replace(netloc=host).geturl()


# idpyoidc's userinfo endpoint authenticates its caller as a client by the access token, with the
# methods the client is registered for: each client is registered for these too.
BEARER = ["bearer_header", "bearer_body"]


class Clients:
    """The clients' registrations: idpyoidc's client database holds them the way idpyoidc reads
    them; the front keeps the registered URI lists as given, for the loopback rule."""

    KINDS = ("redirect_uris", "post_logout_redirect_uris")

    def __init__(self):
        self.secrets = {}
        self.registered = {}  # client_id -> {"redirect_uris": [...], "post_logout_redirect_uris": [...]}

    def add(self, context, client_id, confidential, redirect_uris=(), post_logout_redirect_uris=()):
        info = {
            "client_id": client_id,
            "client_name": client_id,
            "grant_types_supported": GRANT_TYPES,
            "response_types": ["code"],
            "response_types_supported": ["code"],
            "allowed_scopes": SCOPES,
            "id_token_signed_response_alg": "RS256",
            "pkce_essential": True,
        }
        if confidential:
            secret = secrets.token_urlsafe(24)
            self.secrets[client_id] = secret
            info.update({
                "client_secret": secret,
                "client_secret_expires_at": 0,
                "token_endpoint_auth_method": "client_secret_basic",
                "client_authn_method": ["client_secret_basic", "client_secret_post"] + BEARER,
            })
        else:
            info.update({"token_endpoint_auth_method": "none", "client_authn_method": ["public"] + BEARER})
        context.cdb[client_id] = info
        self.registered[client_id] = {"redirect_uris": [], "post_logout_redirect_uris": []}
        self.set_uris(context, client_id, "redirect_uris", list(redirect_uris))
        self.set_uris(context, client_id, "post_logout_redirect_uris", list(post_logout_redirect_uris))

    def set_uris(self, context, client_id, kind, uris):
        self.registered[client_id][kind] = list(uris)
        # idpyoidc's verify_uri reads redirect_uris, and post_logout_redirect_uri (singular), as
        # lists of (base, query) pairs and compares them exactly.
        key = "redirect_uris" if kind == "redirect_uris" else "post_logout_redirect_uri"
        context.cdb[client_id][key] = [split_uri(uri) for uri in uris]

    def allow(self, context, client_id, kind, uri):
        """RFC 8252 section 7.3: a loopback URI registered without a port matches that URI on
        any port. idpyoidc compares exactly, so the URI asked for joins idpyoidc's list."""
        registered = self.registered.get(client_id, {}).get(kind, [])
        if not isinstance(uri, str) or uri in registered:
            return
        bare = without_port(uri)
        if bare is None or bare not in [u for u in registered if is_loopback_any_port(u)]:
            return
        key = "redirect_uris" if kind == "redirect_uris" else "post_logout_redirect_uri"
        entry = split_uri(uri)
        if entry not in context.cdb[client_id][key]:
            context.cdb[client_id][key].append(entry)

    def describe(self, context, client_id):
        info = context.cdb[client_id]
        answer = {
            "client_id": client_id,
            "auth_method": info["token_endpoint_auth_method"],
            "client_secret": self.secrets.get(client_id),
            "redirect_uris": self.registered[client_id]["redirect_uris"],
            "post_logout_redirect_uris": self.registered[client_id]["post_logout_redirect_uris"],
        }
        for key in ("backchannel_logout_uri", "backchannel_logout_session_required",
                    "frontchannel_logout_uri", "frontchannel_logout_session_required"):
            if key in info:
                answer[key] = info[key]
        return answer


# --- HTTP ------------------------------------------------------------------------------------
REASONS = {200: "OK", 302: "Found", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           405: "Method Not Allowed", 500: "Internal Server Error"}
NO_STORE = (("Cache-Control", "no-store"), ("Pragma", "no-cache"))
HTML = ("Content-Type", "text/html; charset=utf-8")


class BadRequest(Exception):
    pass


class App:
    def __init__(self, server, issuer, clients, passwords):
        self.server = server
        self.context = server.context
        self.issuer = issuer
        self.clients = clients
        self.passwords = passwords
        self.lock = threading.RLock()  # idpyoidc's state; never held while delivering
        self.stats_lock = threading.Lock()
        self.deliveries = []
        self.stats = {
            "sign_ins": {"total": 0, "with_credentials": 0, "single_sign_on": 0, "by_client": {}},
            "logins_refused": 0,
            "logouts": {"rp_initiated": 0, "op_initiated": 0},
            "frontchannel": [],
        }
        self.authn = self.context.authn_broker["password"]["method"]
        self.authn.passwords = passwords

    # --- WSGI ---
    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        try:
            status, body, headers = self.route(method, path, environ)
        except BadRequest as err:
            status, body, headers = 400, {"error": "invalid_request", "error_description": str(err)}, []
        except Exception:
            log.exception("%s %s failed", method, path)
            status, body, headers = 500, {"error": "server_error"}, []
        headers = list(headers)
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        if "content-type" not in {name.lower() for name, _ in headers}:
            headers.append(("Content-Type", "application/json"))
        headers.append(("Content-Length", str(len(body))))
        start_response(f"{status} {REASONS.get(status, 'Error')}", headers)
        return [body]

    def route(self, method, path, environ):
        if path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
            return self.only(method, "GET") or self.locked(self.discovery)
        if path == "/jwks.json":
            return self.only(method, "GET") or (200, self.server.keyjar.export_jwks(private=False, issuer_id=""), [])
        if path == "/authorize":
            return self.only(method, "GET") or self.locked(self.authorize, environ)
        if path == "/login":
            return self.only(method, "POST") or self.locked(self.login, environ)
        if path == "/token":
            return self.only(method, "POST") or self.locked(self.token, environ)
        if path == "/userinfo":
            return self.only(method, "GET", "POST") or self.locked(self.userinfo, environ, method)
        if path == "/revoke":
            return self.only(method, "POST") or self.locked(self.revoke, environ)
        if path == END_SESSION:
            return self.only(method, "GET", "POST") or self.locked(self.end_session, environ, method)
        if path == CONFIRM:
            if method == "GET":
                return self.locked(self.confirm_page, environ)
            return self.only(method, "POST") or self.confirm(environ)
        if path == LOGGED_OUT:
            return self.only(method, "GET") or (
                200, page("Logged out", "<h1 id=\"logged-out\">You are logged out</h1>"), [HTML] + list(NO_STORE))
        if path.startswith("/test/clients/"):
            return self.only(method, "POST") or self.locked(self.register, environ, path[len("/test/clients/"):])
        if path == "/test/logout":
            return self.only(method, "POST") or self.op_logout(environ)
        if path == "/test/stats":
            return self.only(method, "GET") or self.stats_answer()
        return 404, {"error": "not found"}, []

    def only(self, method, *allowed):
        if method in allowed:
            return None
        return 405, {"error": "invalid_request", "error_description": f"{' or '.join(allowed)} only"}, \
            [("Allow", ", ".join(allowed))]

    def locked(self, handler, *args):
        with self.lock:
            return handler(*args)

    # --- helpers ---
    def count(self, *keys):
        with self.stats_lock:
            bucket = self.stats
            for key in keys[:-1]:
                bucket = bucket.setdefault(key, {})
            bucket[keys[-1]] = bucket.get(keys[-1], 0) + 1

    def error_page(self, title, message, status=400):
        body = page(title, f"<h1>{html.escape(title)}</h1><p id=\"error\">{html.escape(message)}</p>")
        return status, body, [HTML] + list(NO_STORE)

    def oauth_error(self, status, error, description):
        headers = list(NO_STORE)
        if status == 401 and error == "invalid_client":
            headers.append(("WWW-Authenticate", 'Basic realm="logout-server"'))
        return status, {"error": error, "error_description": description}, headers

    def error_message(self, message):
        answer = message.to_dict() if isinstance(message, Message) else dict(message)
        error = answer.get("error", "invalid_request")
        status = 401 if error == "invalid_client" else 400
        return self.oauth_error(status, error, str(answer.get("error_description", ""))[:300])

    def redirect(self, location, cookies=()):
        headers = [("Location", location)] + list(NO_STORE)
        headers += [("Set-Cookie", set_cookie(c)) for c in cookies]
        return 302, b"", headers

    def redirect_with(self, uri, args, cookies=()):
        args = {k: v for k, v in args.items() if v is not None}
        separator = "&" if "?" in uri else "?"
        return self.redirect(uri + separator + urlencode(args), cookies)

    def http_info(self, environ, path, method):
        headers = {}
        if environ.get("HTTP_AUTHORIZATION"):
            headers["authorization"] = environ["HTTP_AUTHORIZATION"]
        return {"headers": headers, "url": self.issuer + path, "method": method,
                "cookie": request_cookies(environ)}

    # --- discovery ---
    def discovery(self):
        endpoint = self.server.get_endpoint("provider_config")
        info = endpoint.do_response(**endpoint.process_request())
        answer = json.loads(info["response"])
        for key in ("check_session_iframe", "frontchannel_logout_session_required",
                    "backchannel_logout_session_required"):
            answer.pop(key, None)
        return 200, answer, []

    # --- sign-in ---
    def authorize(self, environ):
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        for name, values in query.items():
            if len(values) > 1:
                return self.error_page("Authorization error", f"The parameter {name} is repeated.")
        query = {k: v[0] for k, v in query.items()}
        client_id = query.get("client_id", "")
        if client_id not in self.context.cdb:
            return self.error_page("Authorization error", "Unknown client: the client_id is missing or not registered.")
        self.clients.allow(self.context, client_id, "redirect_uris", query.get("redirect_uri"))

        try:
            verify_uri(self.context, query, "redirect_uri", client_id)
        except Exception as err:
            log.info("redirect_uri refused: %s: %s", type(err).__name__, err)
            return self.error_page("Authorization error", "The redirect_uri is missing or not registered for this client.")
        repeated = first_repeated(query, AUTHORIZATION_JWTS)
        if repeated:
            return self.redirect_with(query["redirect_uri"], {
                "error": "invalid_request", "error_description": repeated[1], "state": query.get("state"),
                "iss": self.issuer})

        endpoint = self.server.get_endpoint("authorization")
        http_info = self.http_info(environ, "/authorize", "GET")
        request = endpoint.parse_request(query, http_info=http_info)
        if isinstance(request, Message) and "error" in request:
            # The redirect URI is the client's: the error goes there (RFC 6749 section 4.1.2.1).
            return self.redirect_with(query["redirect_uri"], {
                "error": request["error"], "error_description": str(request.get("error_description", ""))[:300],
                "state": query.get("state"), "iss": self.issuer})
        result = endpoint.process_request(request, http_info=http_info)
        return self.authorization_answer(request, result, asked=False)

    def authorization_answer(self, request, result, asked):
        """The answer to the browser for idpyoidc's authorization result: the login form, or the
        redirect to the client (with idpyoidc's session cookie)."""
        redirect_uri = request.get("redirect_uri")
        state = request.get("state")
        if isinstance(result, Message):
            result = result.to_dict()
        if not isinstance(result, dict):
            return self.error_page("Authorization error", "the authorization could not be processed", 500)
        if "http_response" in result:
            return 200, result["http_response"], [HTML] + list(NO_STORE)
        if "error" in result:
            return self.redirect_with(result.get("return_uri") or redirect_uri, {
                "error": result["error"], "error_description": result.get("error_description"),
                "state": state, "iss": self.issuer})
        answer = result.get("response_args")
        answer = answer.to_dict() if isinstance(answer, Message) else dict(answer or {})
        if "error" in answer or "code" not in answer:
            return self.redirect_with(result.get("return_uri") or redirect_uri, {
                "error": answer.get("error", "server_error"),
                "error_description": answer.get("error_description"), "state": state, "iss": self.issuer})
        client_id = request["client_id"]
        self.count("sign_ins", "total")
        self.count("sign_ins", "with_credentials" if asked else "single_sign_on")
        self.count("sign_ins", "by_client", client_id)
        return self.redirect_with(result.get("return_uri") or redirect_uri, answer, result.get("cookie", []))

    def login(self, environ):
        form = parse_form(read_body(environ))
        token = form.get("token", "")
        why = repeated_member(token, "login token")
        if why:
            log.info("login form refused: %s", why)
            return self.error_page("Login error", f"The login form was not made here ({why}): start again.")
        try:
            args = self.authn.unpack_token(token)
        except Exception as err:
            log.info("login form refused: %s: %s", type(err).__name__, err)
            return self.error_page("Login error", "The login form has expired or was not made here: start again.")
        username = form.get("username", "")
        user = self.authn.verify(username=username, password=form.get("password", ""))
        if user is None:
            self.count("logins_refused")
            return 401, self.authn.form(token, username, "Wrong user name or password."), [HTML] + list(NO_STORE)

        request = AuthorizationRequest().from_urlencoded(args["query"])
        endpoint = self.server.get_endpoint("authorization")
        session_id = endpoint.create_session(request, user, args.get("authn_class_ref", PASSWORD_ACR),
                                             int(time.time()), self.authn)
        result = endpoint.authz_part2(request=request, session_id=session_id)
        return self.authorization_answer(request, result, asked=True)

    # --- tokens ---
    def token(self, environ):
        body = read_body(environ)
        endpoint = self.server.get_endpoint("token")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, "/token", "POST"))
        except ClientAuthenticationError as err:
            log.info("token request refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(401, "invalid_client", "Client authentication failed")
        except Exception as err:
            log.info("token request refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(400, "invalid_grant", "unknown, expired or revoked code or refresh token")
        if isinstance(request, Message) and "error" in request:
            return self.error_message(request)
        try:
            # A refresh token with every code and refresh (idpyoidc issues one only for offline_access).
            result = endpoint.process_request(request, issue_refresh=True)
        except Exception as err:
            log.info("token request failed: %s: %s", type(err).__name__, err)
            return self.oauth_error(400, "invalid_grant", "unknown, expired or revoked code or refresh token")
        if isinstance(result, Message) and "error" in result:
            return self.error_message(result)
        if isinstance(result, dict) and "error" in result:
            return self.error_message(result)
        response = endpoint.do_response(request=request, **result)
        answer = json.loads(response["response"])
        if "error" in answer:
            return self.error_message(answer)
        return 200, answer, list(NO_STORE)

    def userinfo(self, environ, method):
        body = read_body(environ) if method == "POST" else ""
        scheme, _, credentials = environ.get("HTTP_AUTHORIZATION", "").partition(" ")
        presented = parse_qs(body, keep_blank_values=True).get("access_token", [])
        if scheme.lower() == "bearer":
            presented.append(credentials.strip())
        for token in presented:
            why = repeated_member(token, "access token")
            if why:
                log.info("userinfo refused: %s", why)
                return 401, {"error": "invalid_token", "error_description": why}, \
                    [("WWW-Authenticate", 'Bearer error="invalid_token"')] + list(NO_STORE)
        endpoint = self.server.get_endpoint("userinfo")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, "/userinfo", method))
            if isinstance(request, Message) and "error" in request:
                raise ValueError(request.get("error_description") or request["error"])
            result = endpoint.process_request(request)
            if isinstance(result, Message) and "error" in result or isinstance(result, dict) and "error" in result:
                raise ValueError(str(result.get("error_description") or result.get("error")))
            response = endpoint.do_response(request=request, **result)
        except Exception as err:
            log.info("userinfo refused: %s: %s", type(err).__name__, err)
            return 401, {"error": "invalid_token", "error_description": "the access token is unknown, expired or revoked"}, \
                [("WWW-Authenticate", 'Bearer error="invalid_token"')] + list(NO_STORE)
        return 200, json.loads(response["response"]), list(NO_STORE)

    def revoke(self, environ):
        body = read_body(environ)
        endpoint = self.server.get_endpoint("token_revocation")
        try:
            request = endpoint.parse_request(body, http_info=self.http_info(environ, "/revoke", "POST"))
        except ClientAuthenticationError as err:
            log.info("revocation refused: %s: %s", type(err).__name__, err)
            return self.oauth_error(401, "invalid_client", "Client authentication failed")
        if isinstance(request, Message) and "error" in request:
            return self.error_message(request)
        if repeated_member(request.get("token"), "token"):
            # Not for idpyoidc to read: like any token this server did not issue, nothing is revoked
            # and the answer is 200 (RFC 7009 section 2.2).
            return 200, b"", [("Content-Type", "text/plain")] + list(NO_STORE)
        try:
            result = endpoint.process_request(request)
        except Exception as err:  # a token of a session that has ended: nothing left to revoke
            log.info("revocation of an unknown token: %s: %s", type(err).__name__, err)
            result = {}
        if isinstance(result, Message) and "error" in result:
            if result.get("error") != "unsupported_token_type":
                return 200, b"", [("Content-Type", "text/plain")] + list(NO_STORE)
            return self.error_message(result)
        return 200, b"", [("Content-Type", "text/plain")] + list(NO_STORE)

    # --- RP-initiated logout ---
    def end_session(self, environ, method):
        if method == "POST":
            args = parse_form(read_body(environ))
        else:
            query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
            for name, values in query.items():
                if len(values) > 1:
                    return self.error_page("Logout error", f"The parameter {name} is repeated.")
            args = {k: v[0] for k, v in query.items()}
        args = {k: v for k, v in args.items() if v != ""}
        why = repeated_member(args.get("id_token_hint"), "id_token_hint")
        if why:
            log.info("end-session request refused: %s", why)
            return self.error_page("Logout error", f"The id_token_hint was not accepted ({why}).")
        endpoint = self.server.get_endpoint("session")
        manager = self.context.session_manager
        try:
            request = endpoint.parse_request(dict(args), http_info=self.http_info(environ, END_SESSION, method))
        except Exception as err:
            log.info("end-session request refused: %s: %s", type(err).__name__, err)
            return self.error_page("Logout error", f"The id_token_hint was not accepted ({type(err).__name__}: {err}).")
        if isinstance(request, Message) and "error" in request:
            return self.error_page("Logout error", f"{request.get('error')}: {request.get('error_description', '')}")
        hint = request.get(verified_claim_name("id_token_hint"))
        client_id = args.get("client_id")
        if hint is not None and client_id and client_id not in hint["aud"]:
            # RP-Initiated Logout 1.0 section 2: client_id and the ID token's must match.
            return self.error_page("Logout error", "client_id is not the audience of the id_token_hint.")
        if client_id and client_id not in self.context.cdb:
            return self.error_page("Logout error", "Unknown client_id.")
        if hint is not None:
            audience = [a for a in hint["aud"] if a in self.context.cdb]
            if audience:
                self.clients.allow(self.context, client_id or audience[0], "post_logout_redirect_uris",
                                   args.get("post_logout_redirect_uri"))

        # Which session idpyoidc ends: the browser's (its session cookie), or the one the
        # id_token_hint names when it belongs to the browser's user or the browser has none.
        cookie_sid = self.cookie_session(environ)
        hint_sid = hint.get("sid") if hint is not None else None
        if hint_sid and not self.live(hint_sid):
            hint_sid = None
        chosen = cookie_sid
        if hint_sid and (cookie_sid is None or user_of(manager, cookie_sid) == user_of(manager, hint_sid)):
            chosen = hint_sid
        if chosen is None:
            return self.nothing_to_end(request, args, hint)

        cookie = self.context.new_cookie(name=self.context.cookie_handler.name["session"], sid=chosen)
        http_info = {"cookie": [{"name": cookie["name"], "value": cookie["value"]}]}
        try:
            result = endpoint.process_request(request, http_info=http_info)
        except Exception as err:
            log.info("end-session request refused: %s: %s", type(err).__name__, err)
            return self.error_page("Logout error", f"{type(err).__name__}: {err}")
        return self.redirect(result["redirect_location"])

    def nothing_to_end(self, request, args, hint):
        """No live session at this OP for this browser or hint: nothing to log out. With a valid
        id_token_hint and a post_logout_redirect_uri registered for its client, the browser goes
        back (with state); otherwise the logged-out page."""
        uri = args.get("post_logout_redirect_uri")
        if not uri:
            return self.redirect(self.issuer + LOGGED_OUT)
        if hint is None:
            return self.error_page("Logout error", "post_logout_redirect_uri needs an id_token_hint.")
        client_id = args.get("client_id") or hint["aud"][0]
        registered = [base for base, _ in self.context.cdb.get(client_id, {}).get("post_logout_redirect_uri", [])]
        if split_uri(uri)[0] not in registered:
            return self.error_page("Logout error", "The post_logout_redirect_uri is not registered for this client.")
        return self.redirect_with(uri, {"state": args.get("state")} if args.get("state") else {})

    def cookie_session(self, environ):
        """The live session the browser's idpyoidc session cookie names, or None."""
        cookies = request_cookies(environ)
        name = self.context.cookie_handler.name["session"]
        try:
            parsed = self.context.cookie_handler.parse_cookie(name, cookies) or []
        except Exception:
            return None
        for value in parsed:
            try:
                sid = json.loads(value["value"])["sid"]
            except Exception:
                continue
            if self.live(sid):
                return sid
        return None

    def live(self, sid):
        try:
            info = self.context.session_manager.get_session_info(
                sid, user_session_info=True, client_session_info=True, grant=True)
        except Exception:
            return False
        return not info["user"].is_revoked() and not info["client"].is_revoked() and info["grant"].is_active()

    def confirm_page(self, environ):
        query = parse_qs(environ.get("QUERY_STRING", ""))
        sjwt = (query.get("sjwt") or [""])[0]
        why = repeated_member(sjwt, "logout request")
        if why:
            log.info("logout confirmation refused: %s", why)
            return self.error_page("Logout error", f"This logout request is not valid ({why}): start again.")
        endpoint = self.server.get_endpoint("session")
        try:
            info = endpoint.unpack_signed_jwt(sjwt)
            user = user_of(self.context.session_manager, info["sid"])
        except Exception as err:
            log.info("logout confirmation refused: %s: %s", type(err).__name__, err)
            return self.error_page("Logout error", "This logout request is not valid: start again.")
        body = (
            "<h1>Log out</h1>"
            f"<p>Log out <span id=\"user\">{html.escape(user or 'nobody')}</span> from the logout test server "
            "and every application signed in with it?</p>"
            f"<form id=\"logout\" method=\"post\" action=\"{CONFIRM}\">"
            f"<input type=\"hidden\" name=\"sjwt\" value=\"{html.escape(sjwt)}\">"
            "<button type=\"submit\" name=\"logout\" value=\"yes\">Log out</button>"
            "</form>"
        )
        return 200, page("Log out", body), [HTML] + list(NO_STORE)

    def confirm(self, environ):
        form = parse_form(read_body(environ))
        why = repeated_member(form.get("sjwt"), "logout request")
        if why:
            log.info("logout confirmation refused: %s", why)
            return self.error_page("Logout error", f"This logout request is not valid ({why}): start again.")
        endpoint = self.server.get_endpoint("session")
        with self.lock:
            try:
                info = endpoint.unpack_signed_jwt(form.get("sjwt", ""))
            except Exception as err:
                log.info("logout confirmation refused: %s: %s", type(err).__name__, err)
                return self.error_page("Logout error", "This logout request is not valid: start again.")
            redirect_uri = info["redirect_uri"]
            sid = info.get("sid")
            back, front = [], []
            if sid and self.live(sid):
                back, front = self.end_user_sessions(user_of(self.context.session_manager, sid), sid)
                self.count("logouts", "rp_initiated")
            cookies = endpoint.kill_cookies()
        # Back-Channel Logout 1.0 section 2.5: every RP is told before the browser goes on.
        self.deliver(back, "rp_initiated")
        if front:
            with self.stats_lock:
                self.stats["frontchannel"] += [{"client_id": c, "uri": src, "trigger": "rp_initiated"} for c, src in front]
            frames = "".join(f"<iframe src=\"{html.escape(src)}\" width=\"0\" height=\"0\"></iframe>" for _, src in front)
            body = (
                "<h1>Logging out</h1>"
                f"{frames}"
                f"<p><a id=\"continue\" href=\"{html.escape(redirect_uri)}\">Continue</a></p>"
            )
            headers = [HTML, ("Refresh", f"2; url={redirect_uri}")] + list(NO_STORE)
            headers += [("Set-Cookie", set_cookie(c)) for c in cookies]
            return 200, page("Logging out", body), headers
        return self.redirect(redirect_uri, cookies)

    # --- ending sessions ---
    def end_user_sessions(self, user_id, sid=None):
        """Ends every session of user_id (idpyoidc's logout is per user). Returns the back-channel
        deliveries [(client_id, uri, logout_token)] and front-channel URIs [(client_id, src)].
        Called with the lock held."""
        manager = self.context.session_manager
        endpoint = self.server.get_endpoint("session")
        grants = self.live_grants(user_id)
        if not grants:
            self.remove_user(user_id)
            return [], []
        if sid is None:
            sid = grants[0][2]
        # idpyoidc: a logout token for each client with a backchannel_logout_uri (else an
        # iframe for each with a frontchannel_logout_uri), for the first of its grants with an
        # ID token; those clients' sessions revoked.
        result = endpoint.logout_all_clients(sid)
        back = [(client_id, uri, token) for client_id, (uri, token) in result.get("blu", {}).items()]
        front = [(client_id, iframe_src(iframe)) for client_id, iframe in result.get("flu", {}).items()]
        told = {peek_claims(token).get("sid") for _, _, token in back}
        told |= {parse_qs(urlsplit(src).query).get("sid", [None])[0] for _, src in front}
        # The front: the client's other grants too (a second sign-in to the same client is a
        # session of its own, with its own sid), once each.
        for client_id, _, _, grant in grants:
            cinfo = self.context.cdb.get(client_id, {})
            token = grant.last_issued_token_of_type("id_token")
            if token is None or token.session_id in told or grant.authentication_event is None:
                continue
            told.add(token.session_id)
            if "backchannel_logout_uri" in cinfo:
                spec = endpoint.do_back_channel_logout(cinfo, token.session_id)
                if spec:
                    back.append((client_id, spec[0], spec[1]))
            elif "frontchannel_logout_uri" in cinfo and cinfo.get("frontchannel_logout_session_required"):
                from idpyoidc.server.oidc.session import do_front_channel_logout_iframe

                front.append((client_id, iframe_src(do_front_channel_logout_iframe(cinfo, self.issuer, token.session_id))))
        # The front: every other session of the user ends as well (idpyoidc revokes only the
        # clients it told), and the ended sessions are removed, so that the user's next sign-in
        # starts afresh (idpyoidc would keep picking the revoked grant for the next logout).
        for _, _, session_id, _ in grants:
            try:
                manager.revoke_client_session(session_id)
            except Exception:
                pass
        self.remove_user(user_id)
        return back, front

    def live_grants(self, user_id):
        """[(client_id, path, session_id, grant)] of the user's active grants, oldest first."""
        manager = self.context.session_manager
        try:
            user = manager.get([user_id])
        except KeyError:
            return []
        grants = []
        for client_key in list(user.subordinate):
            path = manager.unpack_branch_key(client_key)
            try:
                client = manager.get(path)
            except KeyError:
                continue
            if client.is_revoked():
                continue
            for grant_key in list(client.subordinate):
                grant_path = manager.unpack_branch_key(grant_key)
                try:
                    grant = manager.get(grant_path)
                except KeyError:
                    continue
                if not grant.is_active():
                    continue
                token = grant.last_issued_token_of_type("id_token")
                session_id = token.session_id if token is not None else manager.encrypted_session_id(*grant_path)
                grants.append((path[-1], grant_path, session_id, grant))
        return grants

    def remove_user(self, user_id):
        manager = self.context.session_manager
        try:
            user = manager.get([user_id])
        except KeyError:
            return
        for client_key in list(user.subordinate):
            try:
                manager.delete(manager.unpack_branch_key(client_key))
            except Exception as err:
                log.info("could not remove %s: %s", client_key, err)
        try:
            manager.delete([user_id])
        except Exception:
            pass

    def deliver(self, back, trigger):
        """POSTs each logout token to its back-channel logout URI (Back-Channel Logout 1.0
        section 2.5), all at once, each given DELIVERY_TIMEOUT seconds in all; records and returns
        [{"client_id", "uri", "status", "error", "sid", "jti"}]."""
        results = [None] * len(back)

        def post(index, client_id, uri, token):
            claims = peek_claims(token)
            record = {"client_id": client_id, "uri": uri, "status": None, "error": None,
                      "sid": claims.get("sid"), "jti": claims.get("jti"), "trigger": trigger}
            started = time.monotonic()
            try:
                record["status"] = post_form(uri, {"logout_token": token}, DELIVERY_TIMEOUT)
            except Exception as err:
                record["error"] = f"{type(err).__name__}: {err}"[:300]
            record["seconds"] = round(time.monotonic() - started, 3)
            results[index] = record

        threads = []
        for index, (client_id, uri, token) in enumerate(back):
            thread = threading.Thread(target=post, args=(index, client_id, uri, token), daemon=True)
            thread.start()
            threads.append(thread)
        deadline = time.monotonic() + DELIVERY_TIMEOUT + 0.5
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        for index, (client_id, uri, token) in enumerate(back):
            if results[index] is None:
                claims = peek_claims(token)
                results[index] = {"client_id": client_id, "uri": uri, "status": None,
                                  "error": f"timed out after {DELIVERY_TIMEOUT:g} s",
                                  "sid": claims.get("sid"), "jti": claims.get("jti"), "trigger": trigger}
        for record in results:
            log.info("back-channel logout %s -> %s after %s s", record["uri"], record["status"] or record["error"],
                     record.get("seconds", "more than the timeout"))
        with self.stats_lock:
            self.deliveries += results
            del self.deliveries[:-KEEP_DELIVERIES]
        return results

    # --- test controls ---
    def op_logout(self, environ):
        form = parse_form(read_body(environ))
        user = form.get("user", "")
        if not user:
            return 400, {"error": "invalid_request", "error_description": "user is missing"}, []
        with self.lock:
            back, front = self.end_user_sessions(user)
            if back or front:
                self.count("logouts", "op_initiated")
        results = self.deliver(back, "op_initiated")
        frontchannel = [{"client_id": c, "uri": src, "status": None,
                         "error": "front-channel logout needs the user's browser"} for c, src in front]
        with self.stats_lock:
            self.stats["frontchannel"] += [{"client_id": c, "uri": src, "trigger": "op_initiated"} for c, src in front]
        return 200, {"user": user, "deliveries": results, "frontchannel": frontchannel}, list(NO_STORE)

    def register(self, environ, client_id):
        """Changes a client's registration; a new client_id adds a client like `like` (default
        logout-web) with a fresh secret."""
        try:
            changes = json.loads(read_body(environ) or "{}")
        except ValueError:
            raise BadRequest("the body is not JSON")
        if not isinstance(changes, dict):
            raise BadRequest("the body is not a JSON object")
        if not client_id or len(client_id) > 100 or not all(c.isalnum() or c in "-._~" for c in client_id):
            raise BadRequest("a client_id is letters, digits and -._~")
        if client_id not in self.context.cdb:
            like = changes.get("like", "logout-web")
            if like not in self.context.cdb:
                raise BadRequest(f"no client {like} to copy")
            confidential = "client_secret" in self.context.cdb[like]
            self.clients.add(self.context, client_id, confidential,
                             self.clients.registered[like]["redirect_uris"],
                             self.clients.registered[like]["post_logout_redirect_uris"])
        cinfo = self.context.cdb[client_id]
        for kind in Clients.KINDS:
            if kind in changes:
                uris = changes[kind]
                if not isinstance(uris, list) or not all(isinstance(u, str) and u for u in uris):
                    raise BadRequest(f"{kind} is a list of URIs")
                if any(urlsplit(u).fragment or urlsplit(u).scheme not in ("http", "https") for u in uris):
                    raise BadRequest(f"{kind}: http or https URIs without a fragment")
                self.clients.set_uris(self.context, client_id, kind, uris)
        for key in ("backchannel_logout_uri", "frontchannel_logout_uri"):
            if key in changes:
                value = changes[key]
                if value is None or value == "":
                    cinfo.pop(key, None)
                elif isinstance(value, str) and urlsplit(value).scheme in ("http", "https") and not urlsplit(value).fragment:
                    cinfo[key] = value
                else:
                    raise BadRequest(f"{key} is an http or https URI without a fragment, or null")
        for key in ("backchannel_logout_session_required", "frontchannel_logout_session_required"):
            if key in changes:
                if not isinstance(changes[key], bool):
                    raise BadRequest(f"{key} is true or false")
                cinfo[key] = changes[key]
        return 200, self.clients.describe(self.context, client_id), list(NO_STORE)

    def stats_answer(self):
        with self.stats_lock:
            answer = json.loads(json.dumps(self.stats))
            answer["backchannel"] = list(self.deliveries)
        return 200, answer, list(NO_STORE)


# --- helpers ---------------------------------------------------------------------------------
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


def request_cookies(environ):
    """The Cookie header as idpyoidc's cookie handler reads cookies: [{"name", "value"}]."""
    cookies = []
    for part in environ.get("HTTP_COOKIE", "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name:
            cookies.append({"name": name, "value": value.strip().strip('"')})
    return cookies


def set_cookie(content):
    """A Set-Cookie value for idpyoidc's cookie content (make_cookie_content)."""
    parts = [f"{content['name']}={content['value']}", "Path=/"]
    if not content["value"] or "expires" in content:
        parts += ["Max-Age=0", "Expires=Thu, 01 Jan 1970 00:00:00 GMT"]
    if content.get("httponly", True):
        parts.append("HttpOnly")
    parts.append(f"SameSite={content.get('samesite') or 'Lax'}")
    return "; ".join(parts)


def user_of(manager, sid):
    try:
        return manager.decrypt_session_id(sid)[0]
    except Exception:
        return None


def peek_claims(token):
    """A JWT's claims, unverified (the server's own tokens, for the records)."""
    try:
        segment = token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except Exception:
        return {}


def iframe_src(iframe):
    """The src of idpyoidc's front-channel `<iframe src="...">` (its URI with iss and sid)."""
    start = iframe.index('src="') + len('src="')
    return html.unescape(iframe[start:iframe.index('"', start)])


def post_form(uri, form, timeout):
    """POSTs an application/x-www-form-urlencoded body; returns the HTTP status. No redirects."""
    parts = urlsplit(uri)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=timeout,
                                                 context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    body = urlencode(form).encode()
    try:
        connection.request("POST", path, body=body, headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Content-Length": str(len(body)),
        })
        response = connection.getresponse()
        response.read(65536)
        return response.status
    finally:
        connection.close()


def description(issuer, clients, context, passwords):
    return {
        "issuer": issuer,
        "discovery": issuer + "/.well-known/openid-configuration",
        "authorization_endpoint": issuer + "/authorize",
        "token_endpoint": issuer + "/token",
        "end_session_endpoint": issuer + END_SESSION,
        "jwks_uri": issuer + "/jwks.json",
        "logged_out_page": issuer + LOGGED_OUT,
        "clients_endpoint": issuer + "/test/clients/",
        "logout_endpoint": issuer + "/test/logout",
        "stats": issuer + "/test/stats",
        "agent": os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent.py"),
        "python": sys.executable,
        "scopes": SCOPES,
        "user": "alice",
        "password": passwords["alice"],
        "users": passwords,
        "clients": {name: clients.describe(context, client_id) for name, (client_id, *_rest) in CLIENTS.items()},
    }


def build(issuer, keyjar, state):
    server = Server(OPConfiguration(conf=server_configuration(issuer)), keyjar=keyjar, cwd=state)
    context = server.context
    context.provider_info.update(advertised(issuer))
    for key in ("check_session_iframe", "frontchannel_logout_session_required", "backchannel_logout_session_required"):
        context.provider_info.pop(key, None)
    clients = Clients()
    for name, (client_id, confidential, redirects, post_logout) in CLIENTS.items():
        clients.add(context, client_id, confidential, redirects, post_logout)
    passwords = {user: f"{user}-{secrets.token_urlsafe(9)}" for user in USERS}
    app = App(server, issuer, clients, passwords)
    # The description holds the client secrets and passwords: idpy_front writes it 0600.
    return app, description(issuer, clients, context, passwords)


if __name__ == "__main__":
    sys.exit(idpy_front.run("logout", "logout-server.json", build))
