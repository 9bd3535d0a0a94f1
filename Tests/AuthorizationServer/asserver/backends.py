"""Small extensions of Django OAuth Toolkit for the tests."""
import json

from oauth2_provider.oauth2_backends import OAuthLibCore
from oauth2_provider.oauth2_validators import OAuth2Validator


class FormOrJSONOAuthLibCore(OAuthLibCore):
    """Accepts token requests with a JSON body as well as form bodies.

    DOT's own JSONOAuthLibCore rejects form bodies, so one server could not test both
    encodings; this backend reads JSON when the request says it is JSON.
    """

    def extract_body(self, request):
        if request.content_type == "application/json":
            try:
                body = json.loads(request.body.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                body = {}
            if isinstance(body, dict):
                return [(k, v) for k, v in body.items() if isinstance(v, str)]
            return []
        return super().extract_body(request)


class ClaimsValidator(OAuth2Validator):
    """Adds profile and email claims to ID tokens and userinfo."""

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.username,
            "email": user.email,
            "name": f"{user.first_name} {user.last_name}".strip(),
        }
