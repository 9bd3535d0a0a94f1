"""Settings of the test authorization server (Django OAuth Toolkit) on 127.0.0.1.

Test-only: the secrets here protect nothing. State (database, signing key) lives in
OAUTHFLOW_AS_STATE; the port comes from OAUTHFLOW_AS_PORT.
"""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
STATE_DIR = Path(os.environ["OAUTHFLOW_AS_STATE"])
PORT = int(os.environ.get("OAUTHFLOW_AS_PORT", "0"))

SECRET_KEY = "test-only-django-secret-key-not-used-anywhere-else"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "asserver.journal.TokenRequestJournal",
]
ROOT_URLCONF = "asserver.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [BASE_DIR / "templates"],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]
# Test suites run in parallel against one server: wait for SQLite's lock instead of failing,
# and take write locks up front so two transactions never deadlock upgrading them.
DATABASES = {"default": {
    "ENGINE": "django.db.backends.sqlite3",
    "NAME": STATE_DIR / "db.sqlite3",
    "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
LOGIN_URL = "/accounts/login/"

# Client secrets are hashed with the first hasher; PBKDF2 costs ~0.5 s a check here.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (STATE_DIR / "oidc.key").read_text() if (STATE_DIR / "oidc.key").exists() else "",
    # Without it DOT builds the issuer from the Host header.
    "OIDC_ISS_ENDPOINT": f"http://127.0.0.1:{PORT}/o",
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    # RFC 6749 §4.1.2's longest advised lifetime, not DOT's 60 s: on two cores shared by the whole suite a test
    # has taken over a minute from the code to the exchange, and got `invalid_grant`.
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 600,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your profile",
        "email": "Your email address",
        "read": "Read your data",
    },
    "DEFAULT_SCOPES": ["read"],
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    "OAUTH2_BACKEND_CLASS": "asserver.backends.FormOrJSONOAuthLibCore",
    "OAUTH2_VALIDATOR_CLASS": "asserver.backends.ClaimsValidator",
    # The device grant (RFC 8628). DOT fixes expires_in at 1800 s and never sends slow_down;
    # a 1 s interval keeps the approve test short.
    "OAUTH_DEVICE_VERIFICATION_URI": f"http://127.0.0.1:{PORT}/o/device/",
    "DEVICE_FLOW_INTERVAL": 1,
    # OpenID Connect RP-Initiated Logout 1.0 at /o/logout/, discovery's end_session_endpoint. The
    # clients' post_logout_redirect_uris are set by bootstrap.py (a loopback URI registered without
    # a port matches any port, as redirect URIs do).
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    # No "log out?" page when the id_token_hint is valid and names the signed-in user: the logout
    # goes straight through. DOT still asks without a hint, or when the hint names another user
    # (the agent then confirms); a browser with no session at DOT is sent back at once.
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    # DOT would revoke every access and refresh token of the user, of every application, at each
    # logout: the suite's tests sign alice in at once and would lose their tokens to one test's
    # logout. A logout here ends the browser's session at DOT; an application revokes its own
    # tokens (RFC 7009).
    "OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS": False,
    # An expired ID token is still a valid id_token_hint (RP-Initiated Logout 1.0 section 2); DOT's default.
    "OIDC_RP_INITIATED_LOGOUT_ACCEPT_EXPIRED_TOKENS": True,
}
