"""Small extensions of Django OAuth Toolkit for the tests."""
import json

from oauth2_provider import models as dot_models
from oauth2_provider.oauth2_backends import OAuthLibCore
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.views import device as dot_device


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


    def validate_device_code(self, client_id, code, request, *args, **kwargs):
        """The hook oauthlib 4 calls when redeeming a device code, which DOT 3.4.1 lacks (it answers 500).

        DOT's token view has already refused pending, denied and expired grants by the time this
        runs, so an approved grant is all that arrives: hand oauthlib its user and scopes.
        """
        grant = dot_models.get_device_grant_model().objects.filter(client_id=client_id, device_code=code).first()
        if grant is None or grant.status != grant.AUTHORIZED:
            return None
        request.user = grant.user
        request.scopes = grant.scope.split()
        return "authorized"


class _DeviceCodeResponse(dot_models.DeviceCodeResponse):
    """DOT's response record, taking (and dropping) the `scope` oauthlib 4 adds to the answer."""

    def __init__(self, scope=None, **fields):
        super().__init__(**fields)


def patch_device_authorization():
    """Works around DOT 3.4.1's 500 on device authorization requests with oauthlib 4.

    DOT's view builds `DeviceCodeResponse(**response)` from oauthlib's answer, which now
    carries a `scope` field the record does not take. Everything else stays DOT's own code.
    """
    dot_device.DeviceCodeResponse = _DeviceCodeResponse
