"""What the exchange server (server.py) adds to idpyoidc 5.0.0; its configuration names these
and idpyoidc imports them by name.

exchange_policy, the exchange policy: idpyoidc's own (validate_token_exchange_policy: audience
and resource from the lists it is given, scope narrowed to the subject token's) except that it
takes an actor token. idpyoidc's policy refuses every request with one ("Actor token not
supported"); this one accepts an actor token when it is an active access token this server
issued (idpyoidc's session manager finds it), leaves it in the request (idpyoidc keeps the
request in the exchange grant it creates) and lets idpyoidc's policy judge the rest.

AccessToken, idpyoidc's JWT access token with two claims idpyoidc 5.0.0 leaves out of a token
issued in an exchange grant (another client's exchange):
  aud   the exchange's resource and audience (idpyoidc checks them and records them, but
        ExchangeGrant.payload_arguments overwrites the token's `aud` with the grant's own
        resources, which are empty);
  act   the actor, when the exchange named one (RFC 8693 section 4.1).
Both come from the exchange request idpyoidc stored in the grant.

ClientCredentials, idpyoidc's client-credentials grant helper with three faults of 5.0.0 fixed:
its second request from a client fails (it looks up the client's branch of the session tree,
finds the client's node and reads it as a grant: TypeError, a 500), it answers token_type
"access_token" instead of "Bearer", and it ignores the requested scope. Each request here gets
a grant of its own under the client's branch (idpyoidc's add_grant) and idpyoidc mints the token.
"""

import logging
import time

from idpyoidc.message.oidc import TokenErrorResponse
from idpyoidc.server.oauth2.token_helper import validate_token_exchange_policy
from idpyoidc.server.oauth2.token_helper.client_credentials import (
    ClientCredentials as IdpyClientCredentials,
)
from idpyoidc.server.session.grant import ExchangeGrant
from idpyoidc.server.token.jwt_token import JWTToken

ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"

log = logging.getLogger("exchange-server")


def actor_session(context, actor_token):
    """idpyoidc's session information for an active access token it issued, or None."""
    manager = context.session_manager
    try:
        info = manager.get_session_info_by_token(actor_token, grant=True, handler_key="access_token")
        token = manager.find_token(info["branch_id"], actor_token)
    except Exception as err:  # unknown, expired, not this server's, not an access token
        log.info("actor token refused: %s: %s", type(err).__name__, err)
        return None
    if token is None or not token.is_active():
        return None
    return info


def exchange_policy(request, context, subject_token, **kwargs):
    actor = {k: request[k] for k in ("actor_token", "actor_token_type") if k in request}
    if actor:
        if len(actor) != 2:
            return TokenErrorResponse(
                error="invalid_request",
                error_description="actor_token and actor_token_type go together",
            )
        if actor["actor_token_type"] != ACCESS_TOKEN_TYPE:
            return TokenErrorResponse(
                error="invalid_request", error_description="Unsupported actor token type"
            )
        if actor_session(context, actor["actor_token"]) is None:
            return TokenErrorResponse(error="invalid_request", error_description="Actor token invalid")
        for key in actor:
            del request[key]
    answer = validate_token_exchange_policy(request, context, subject_token, **kwargs)
    if actor and answer is request:
        request.update(actor)
    return answer


class AccessToken(JWTToken):
    def load_custom_claims(self, payload=None):
        payload = super().load_custom_claims(payload)
        session_id = (payload or {}).get("sid")
        if not session_id:
            return payload
        context = self.upstream_get("context")
        try:
            grant = context.session_manager.get_grant(session_id)
        except Exception:
            return payload
        exchange = getattr(grant, "exchange_request", None)
        if not isinstance(grant, ExchangeGrant) or not exchange:
            return payload
        if not payload.get("aud"):
            targets = list(exchange.get("resource", [])) + list(exchange.get("audience", []))
            if targets:
                payload["aud"] = sorted(set(targets))
        if exchange.get("actor_token"):
            info = actor_session(context, exchange["actor_token"])
            if info is not None:
                payload["act"] = {"sub": info["grant"].sub, "client_id": info["client_id"]}
        return payload


class ClientCredentials(IdpyClientCredentials):
    def process_request(self, req, **kwargs):
        context = self.endpoint.upstream_get("context")
        manager = context.session_manager
        client_id = req["client_id"]
        if not req.get("authenticated"):
            return self.error_cls(error="invalid_client", error_description="Not authenticated")
        client = context.cdb[client_id]
        granted = client.get("grant_types_supported")
        if granted and "client_credentials" not in granted:
            return self.error_cls(
                error="unauthorized_client", error_description="Unsupported grant type"
            )
        allowed = client.get("allowed_scopes", [])
        scope = req.get("scope")
        if scope:
            scope = [s for s in scope if s in allowed]
            if not scope:
                return self.error_cls(error="invalid_scope", error_description="Invalid scope")
        else:
            scope = list(allowed)

        session_id = manager.add_grant(["client_credentials", client_id], scope=scope)
        grant = manager.get_session_info(session_id, grant=True)["grant"]
        token = self._mint_token(
            token_class="access_token",
            grant=grant,
            session_id=session_id,
            client_id=client_id,
            scope=scope,
            token_type="Bearer",
        )
        answer = {"access_token": token.value, "token_type": "Bearer", "scope": scope}
        if token.expires_at:
            answer["expires_in"] = token.expires_at - int(time.time())
        return answer
