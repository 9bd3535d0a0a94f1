#!/usr/bin/env python3
"""Creates the test server's state: database, signing key, user and clients.

Usage: OAUTHFLOW_AS_STATE=DIR python bootstrap.py
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
state = Path(os.environ["OAUTHFLOW_AS_STATE"])
state.mkdir(parents=True, exist_ok=True)

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

key_file = state / "oidc.key"
if not key_file.exists():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_file.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "asserver.settings")
import django

django.setup()
from django.core.management import call_command

call_command("migrate", verbosity=0, interactive=False)

from django.contrib.auth import get_user_model
from oauth2_provider.models import Application

User = get_user_model()
if not User.objects.filter(username="alice").exists():
    User.objects.create_user("alice", email="alice@example.com", password="wonderland-test-password",
                             first_name="Alice", last_name="Liddell")

CLIENTS = [
    ("oauthflow-public", Application.CLIENT_PUBLIC, ""),
    ("oauthflow-confidential", Application.CLIENT_CONFIDENTIAL, "confidential-test-secret-0123456789"),
]
for client_id, client_type, secret in CLIENTS:
    if Application.objects.filter(client_id=client_id).exists():
        continue
    Application.objects.create(
        name=client_id,
        client_id=client_id,
        client_secret=secret,
        client_type=client_type,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        # A loopback redirect URI registered without a port matches any port (RFC 8252 §7.3).
        redirect_uris="http://127.0.0.1/callback",
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=False,
    )
# RP-Initiated Logout: where the browser may return after /o/logout/. Registered without a port, the
# loopback URI matches any port (DOT's RFC 8252 section 7.3 rule, as for redirect URIs). update()
# leaves the hashed client secrets alone.
Application.objects.filter(client_id__in=[client_id for client_id, _, _ in CLIENTS]).update(
    post_logout_redirect_uris="http://127.0.0.1/logged-out")
# A DOT application holds one grant type, so the device grant has a client of its own.
if not Application.objects.filter(client_id="oauthflow-device").exists():
    Application.objects.create(
        name="oauthflow-device",
        client_id="oauthflow-device",
        client_secret="",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_DEVICE_CODE,
        redirect_uris="",
        algorithm=Application.RS256_ALGORITHM,
    )
# A service (client credentials, RFC 6749 §4.4): a confidential client with that grant only.
if not Application.objects.filter(client_id="oauthflow-service").exists():
    Application.objects.create(
        name="oauthflow-service",
        client_id="oauthflow-service",
        client_secret="service-test-secret-0123456789abcdef",
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
        redirect_uris="",
        algorithm=Application.NO_ALGORITHM,
    )
# The web sign-in example (Examples/WebSignIn): a confidential web client whose redirect URI
# names the port scripts/test.sh chose for it, on `localhost` (another site than this server's
# 127.0.0.1, so cookies cross sites in the browser test as they do in production).
web_port = os.environ.get("OAUTHFLOW_WEB_PORT")
if web_port:
    Application.objects.update_or_create(
        client_id="oauthflow-web",
        defaults=dict(
            name="oauthflow-web",
            client_secret="web-test-secret-0123456789abcdef",
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=f"http://localhost:{web_port}/auth/django/callback",
            # After RP-initiated logout: the site's root, or a page of its own.
            post_logout_redirect_uris=" ".join(
                f"http://localhost:{web_port}{path}" for path in ("/", "/logged-out", "/auth/django/signed-out")),
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=False,
        ),
    )
print("bootstrapped", state)
