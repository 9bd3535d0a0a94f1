"""What the logout server (server.py) adds to idpyoidc 5.0.0 that idpyoidc loads by name: the user
login and its single sign-on, and the users' claims. The HTTP front itself is server.py.

PasswordLogin, a user authentication method (idpyoidc's UserAuthnMethod) with an HTML login form
(user name and password) and single sign-on across clients:
  - __call__ renders the form. Like idpyoidc's UserPassJinja2, the authorization request travels
    in a JWT the server signs, in a hidden field; the front (POST /login) checks the password,
    then has idpyoidc create the session (Authorization.create_session) and answer the client
    (Authorization.authz_part2), which sets idpyoidc's session cookie.
  - authenticated_as reads that cookie. idpyoidc's own (UserAuthnMethod.cookie_info) recognises
    it only for the client it was set for, so every client would ask for the password again.
    Here a cookie whose session is still live (its grant active, its client and user sessions
    not revoked, its authentication not expired) signs the user in to any client: for its own
    client idpyoidc gets the session id as before (it then adds a grant to that session); for
    another client only the user, and idpyoidc creates a session for that client with the same
    authentication time. After a logout the front removes the user's sessions, so the cookie
    (when the browser still has it) no longer signs anyone in.

Users, the users' claims (idpyoidc's UserInfo over a fixed table).

Session, idpyoidc's session endpoint (end_session_endpoint) without client authentication: an
end-session request has none (RP-Initiated Logout 1.0), but idpyoidc 5.0.0's Session.parse_request
runs the client authentication methods anyway, and its `none` method's answer then makes it fail
(KeyError 'token') on every request. Everything else is idpyoidc's.
"""

import html
import json
import logging

from cryptojwt.jwt import JWT
from idpyoidc.server.oidc.session import Session as IdpySession
from idpyoidc.server.user_authn.user import UserAuthnMethod
from idpyoidc.server.user_info import UserInfo
from idpyoidc.time_util import utc_time_sans_frac

log = logging.getLogger("logout-server")

PASSWORD_ACR = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
LOGIN_PATH = "/login"
# How long a login form may be answered (its signed request's age, in seconds).
FORM_LIFETIME = 900

USERS = {
    "alice": {"name": "Alice Liddell", "given_name": "Alice", "family_name": "Liddell"},
    "bob": {"name": "Bob Builder", "given_name": "Bob", "family_name": "Builder"},
    "carol": {"name": "Carol Danvers", "given_name": "Carol", "family_name": "Danvers"},
    "dave": {"name": "Dave Lister", "given_name": "Dave", "family_name": "Lister"},
    "erin": {"name": "Erin Brockovich", "given_name": "Erin", "family_name": "Brockovich"},
}


def user_claims(user):
    claims = dict(USERS[user])
    claims.update({
        "sub": user,
        "preferred_username": user,
        "email": f"{user}@oauthflow.test",
        "email_verified": True,
    })
    return claims


class Users(UserInfo):
    def __init__(self, **kwargs):
        UserInfo.__init__(self, db={user: user_claims(user) for user in USERS})


def page(title, body):
    return (
        "<!doctype html><html><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title></head><body>{body}</body></html>"
    )


class PasswordLogin(UserAuthnMethod):
    """See the module's docstring. The front sets `passwords` (user -> password) after start."""

    url_endpoint = LOGIN_PATH

    def __init__(self, upstream_get=None, **kwargs):
        UserAuthnMethod.__init__(self, upstream_get=upstream_get)
        self.kwargs = kwargs
        self.passwords = {}

    # --- the login form ---
    def __call__(self, error=None, **kwargs):
        """The login page; kwargs are idpyoidc's authentication arguments (authn_args_gather:
        the request as `query`, `return_uri`, `authn_class_ref`, `login_hint`, `ui_locales`...)."""
        keyjar = self.upstream_get("attribute", "keyjar")
        issuer = self.upstream_get("context").issuer
        signer = JWT(keyjar, iss=issuer, sign_alg="RS256", lifetime=FORM_LIFETIME)
        token = signer.pack(payload=kwargs)
        return self.form(token, kwargs.get("login_hint", ""), error)

    def form(self, token, username="", error=None):
        message = f"<p id=\"error\">{html.escape(error)}</p>" if error else ""
        body = (
            "<h1>Log in to the logout test server</h1>"
            f"{message}"
            f"<form id=\"login\" method=\"post\" action=\"{LOGIN_PATH}\">"
            f"<input type=\"hidden\" name=\"token\" value=\"{html.escape(token)}\">"
            "<label>User name <input type=\"text\" name=\"username\" "
            f"value=\"{html.escape(username or '')}\" autocomplete=\"username\"></label>"
            "<label>Password <input type=\"password\" name=\"password\" autocomplete=\"current-password\"></label>"
            "<button type=\"submit\">Log in</button>"
            "</form>"
        )
        return page("Log in", body)

    def unpack_token(self, token):
        """The authentication arguments __call__ signed; raises when the token does not verify
        or is too old."""
        keyjar = self.upstream_get("attribute", "keyjar")
        issuer = self.upstream_get("context").issuer
        verifier = JWT(keyjar, iss=issuer, allowed_sign_algs=["RS256"])
        payload = verifier.unpack(token)
        if payload.get("iat", 0) + FORM_LIFETIME < utc_time_sans_frac():
            raise ValueError("the login form has expired")
        return payload

    def verify(self, username="", password="", **kwargs):
        """The user name when the password is the user's, else None."""
        expected = self.passwords.get(username)
        if expected is None or not password or not _same(password, expected):
            return None
        return username

    # --- single sign-on ---
    def authenticated_as(self, client_id="", cookie=None, **kwargs):
        """(identity, authentication time) from the browser's idpyoidc session cookie, or
        (None, 0) when it holds no live session (see the module's docstring)."""
        if not cookie:
            return None, 0
        context = self.upstream_get("context")
        manager = context.session_manager
        for value in cookie:
            try:
                info = json.loads(value["value"])
                session_id = info["sid"]
                user_id, cookie_client, _ = manager.decrypt_session_id(session_id)
                branch = manager.get_session_info(session_id, user_session_info=True,
                                                  client_session_info=True, grant=True)
            except Exception as err:  # unknown, removed at a logout, or not ours
                log.info("session cookie ignored: %s: %s", type(err).__name__, err)
                continue
            grant = branch["grant"]
            event = grant.authentication_event
            if (
                branch["user"].is_revoked()
                or branch["client"].is_revoked()
                or not grant.is_active()
                or event is None
                or not event.is_valid()
            ):
                continue
            authenticated_at = int(event.get("authn_time") or value.get("timestamp") or 0)
            max_age = kwargs.get("max_age") or 0
            if max_age and utc_time_sans_frac() > authenticated_at + max_age:
                log.info("max_age %s: the authentication is too old", max_age)
                return None, 0
            if cookie_client == client_id:
                identity = {"uid": user_id, "sid": session_id}
            else:
                identity = {"uid": user_id}
            return identity, authenticated_at
        return None, 0


def _same(a, b):
    import hmac

    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


class Session(IdpySession):
    def client_authentication(self, request, http_info=None, **kwargs):
        return {}
