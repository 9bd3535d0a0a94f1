"""An MCP server protected by its own authorization server, both from the official Python MCP SDK
(`mcp` on PyPI, pinned in requirements.txt), for the MCP end-to-end tests.

The protocol work is the SDK's: MCPServer serves streamable HTTP at /mcp behind its bearer
middleware (401 with `resource_metadata`, tokens refused unless issued for /mcp), publishes RFC 9728
metadata at /.well-known/oauth-protected-resource/mcp, and mounts its authorization server routes
(RFC 8414 metadata, /authorize, /token, /register for Dynamic Client Registration, /revoke), which
check PKCE S256, redirect URIs (compared exactly, as registered) and client authentication. This
file is the provider those routes call (an in-memory store of clients, codes and tokens; no login
page: the user has consented), one tool, and a front that counts what clients send.

    python server.py STATE_DIR

binds a free port on 127.0.0.1 and, once it serves, writes STATE_DIR/mcp-server.json 0600:

    {"issuer": "http://127.0.0.1:PORT", "mcp": "http://127.0.0.1:PORT/mcp",
     "metadata": "http://127.0.0.1:PORT/.well-known/oauth-authorization-server"}

In front of the SDK (RevisionHeaders), a POST to /mcp other than `initialize` must carry `MCP-Protocol-Version`, as
a server that routes on the revision's headers requires (MCP 2026-07-28 puts it on every POST; the revisions before it
on every request after `initialize`): one without is answered 400 before the SDK's bearer middleware sees it, so a
client whose first request lacks the header never draws the 401 and its challenge.

HTTP besides the SDK's:
    GET  /test/stats           what the server saw: registrations (client_id, client_name, redirect_uris),
                               authorizations (client_id, resource, scopes), token requests (grant_type,
                               client_id, resource), refreshes (client_id, resource), tool calls
    POST /test/expire?client_id=ID
                               every access token issued to that client so far expires now (a refresh follows)

The tool: `add` (a, b) answers their sum, with the client and resource of the token it was called with.
"""

import asyncio
import json
import os
import secrets
import signal
import socket
import sys
import time
from urllib.parse import parse_qs

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.provider import AuthorizationCode
from mcp.server.auth.provider import RefreshToken
from mcp.server.auth.provider import TokenError
from mcp.server.auth.provider import construct_redirect_uri
from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.server.auth.settings import RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

SCOPES = ["mcp:tools", "mcp:admin"]
ACCESS_TOKEN_SECONDS = 3600


class Provider:
    """The authorization server's storage and decisions, as the SDK's OAuthAuthorizationServerProvider asks."""

    def __init__(self, resource):
        self.resource = resource
        self.clients = {}
        self.codes = {}
        self.access_tokens = {}
        self.refresh_tokens = {}
        self.stats = {"registrations": [], "authorizations": [], "tokens": [], "refreshes": [], "calls": 0, "header_less": 0}

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info
        self.stats["registrations"].append({"client_id": client_info.client_id, "client_name": client_info.client_name,
                                            "redirect_uris": [str(uri) for uri in client_info.redirect_uris or []]})

    async def authorize(self, client, params):
        # No login page: the user signs in and consents at once.
        self.stats["authorizations"].append({"client_id": client.client_id, "resource": params.resource,
                                             "scopes": params.scopes or []})
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
            subject="alice")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    def issue(self, client_id, scopes, resource):
        if resource != self.resource:
            # RFC 8707 section 2: this server issues tokens for its own MCP server only.
            raise TokenError(error="invalid_target", error_description="tokens are issued for %s only" % self.resource)
        access = secrets.token_urlsafe(32)
        refresh = secrets.token_urlsafe(32)
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + ACCESS_TOKEN_SECONDS,
            resource=resource, subject="alice")
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject="alice")
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=ACCESS_TOKEN_SECONDS,
                          scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        token = self.refresh_tokens.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        # Rotated: the refresh token used is spent.
        self.refresh_tokens.pop(refresh_token.token, None)
        self.stats["refreshes"].append({"client_id": client.client_id, "resource": refresh_token.resource})
        return self.issue(client.client_id, scopes, refresh_token.resource)

    async def load_access_token(self, token):
        return self.access_tokens.get(token)

    async def revoke_token(self, token):
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    async def exchange_identity_assertion(self, client, params):
        raise TokenError(error="unsupported_grant_type", error_description="not supported here")


async def buffered(receive):
    """The request's body messages, read to the end, and the body they carry."""
    messages = []
    body = b""
    while True:
        message = await receive()
        messages.append(message)
        body += message.get("body", b"")
        if not message.get("more_body"):
            return messages, body


def replaying(messages):
    """A `receive` that hands `messages` to the app again, then a disconnect."""
    async def replay():
        return messages.pop(0) if messages else {"type": "http.disconnect"}
    return replay


class TokenRequests:
    """Counts the grant and `resource` of every token request (the SDK hands the provider neither for a
    code exchange), then passes the request on unchanged."""

    def __init__(self, app, stats):
        self.app = app
        self.stats = stats

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/token" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages, body = await buffered(receive)
        form = parse_qs(body.decode("utf-8", "replace"))
        self.stats["tokens"].append({"grant_type": form.get("grant_type", [None])[0],
                                     "client_id": form.get("client_id", [None])[0],
                                     "resource": form.get("resource", [None])[0]})
        await self.app(scope, replaying(messages), send)


class RevisionHeaders:
    """Answers 400 to a POST to /mcp that is not `initialize` and carries no `MCP-Protocol-Version`, counting them
    (`stats["header_less"]`); passes every other request on unchanged."""

    def __init__(self, app, stats):
        self.app = app
        self.stats = stats

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/mcp" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        if any(name.lower() == b"mcp-protocol-version" for name, _ in scope.get("headers", [])):
            await self.app(scope, receive, send)
            return
        messages, body = await buffered(receive)
        try:
            method = json.loads(body).get("method")
        except (ValueError, AttributeError):
            method = None
        if method != "initialize":
            self.stats["header_less"] = self.stats.get("header_less", 0) + 1
            data = json.dumps({"jsonrpc": "2.0", "id": None,
                               "error": {"code": -32000, "message": "Bad Request: MCP-Protocol-Version header required"}}).encode()
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
            await send({"type": "http.response.body", "body": data})
            return
        await self.app(scope, replaying(messages), send)


def main():
    state = sys.argv[1]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    issuer = "http://127.0.0.1:%d" % port
    resource = issuer + "/mcp"
    provider = Provider(resource)

    server = MCPServer(
        "oauthflow-test", version="1.0.0", auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=issuer, resource_server_url=resource, validate_token_resource=True,
            required_scopes=["mcp:tools"],
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES,
                                                                   default_scopes=["mcp:tools"]),
            revocation_options=RevocationOptions(enabled=True)))

    @server.tool()
    def add(a: int, b: int) -> str:
        """Adds two numbers."""
        provider.stats["calls"] += 1
        token = get_access_token()
        return json.dumps({"sum": a + b, "client_id": token.client_id if token else None,
                           "resource": token.resource if token else None})

    async def stats(request: Request):
        return JSONResponse(provider.stats)

    async def expire(request: Request):
        client_id = request.query_params.get("client_id")
        expired = [token for token in provider.access_tokens.values() if token.client_id == client_id]
        for token in expired:
            token.expires_at = int(time.time()) - 1
        return JSONResponse({"expired": len(expired)})

    # JSON answers, not SSE streams: the Swift SDK's HTTPClientTransport (0.12.1) on Linux hands an SSE body to its
    # JSON decoder as it is, so an answer in an event stream never reaches the client.
    app = server.streamable_http_app(host="127.0.0.1", json_response=True)
    app.router.routes.append(Route("/test/stats", stats, methods=["GET"]))
    app.router.routes.append(Route("/test/expire", expire, methods=["POST"]))
    config = uvicorn.Config(RevisionHeaders(TokenRequests(app, provider.stats), provider.stats), log_level="warning", lifespan="on")
    web = uvicorn.Server(config)

    async def serve():
        task = asyncio.ensure_future(web.serve(sockets=[listener]))
        while not web.started:
            if task.done():
                task.result()
                return
            await asyncio.sleep(0.05)
        description = os.path.join(state, "mcp-server.json")
        temporary = description + ".tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump({"issuer": issuer, "mcp": resource,
                       "metadata": issuer + "/.well-known/oauth-authorization-server"}, handle)
        os.replace(temporary, description)
        print("serving on %s" % issuer, flush=True)
        await task

    signal.signal(signal.SIGTERM, lambda *_: setattr(web, "should_exit", True))
    asyncio.run(serve())


if __name__ == "__main__":
    main()
