"""The official Python MCP SDK's OAuth client (`mcp` on PyPI, the version Tests/MCPServer/requirements.txt pins, run
from that virtualenv) calling tools on a protected Swift MCP server, for ProtectedMCPServerPythonClientTests.

    python client.py MCP_URL CLIENT_ID REDIRECT_URI

The protocol work is the SDK's: OAuthClientProvider meets the server's 401, reads the protected-resource metadata
(RFC 9728) it names, the authorization server's metadata (RFC 8414), signs in with PKCE and `resource` (RFC 8707), and
on a 403 `insufficient_scope` signs in again for the scopes the challenge names. The client is CLIENT_ID, registered
beforehand (handed over as stored client information, so no registration is attempted). This script plays the
browser: it fetches the authorization URL without following the redirect and hands the SDK the code, state and `iss`.

It lists the tools, calls `whoami` and then `add_note` (whose scope the first sign-in did not ask for), and prints one
JSON object on stdout: `tools`, `whoami` and `add_note` (each call's texts and `isError`), and `authorizations` (the
`scope` and `resource` of each authorization request it followed).
"""

import asyncio
import json
import sys
from urllib.parse import parse_qs
from urllib.parse import urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult
from mcp.shared.auth import OAuthClientInformationFull
from mcp.shared.auth import OAuthClientMetadata


class Storage:
    """Tokens kept in memory, and the client registered beforehand."""

    def __init__(self, client_info):
        self.tokens = None
        self.client_info = client_info

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Browser:
    """Follows the authorization URL as far as the redirect back, and keeps what the redirect carries."""

    def __init__(self):
        self.authorizations = []
        self.result = None

    async def open(self, url):
        query = parse_qs(urlparse(url).query)
        self.authorizations.append({"scope": query.get("scope", [""])[0], "resource": query.get("resource", [""])[0]})
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
            answer = await http.get(url)
        location = answer.headers.get("location")
        if answer.status_code not in (302, 303) or not location:
            raise RuntimeError(f"the authorization endpoint answered {answer.status_code} without a redirect")
        fields = parse_qs(urlparse(location).query)
        if "code" not in fields:
            raise RuntimeError(f"the authorization was refused: {fields.get('error')}")
        self.result = AuthorizationCodeResult(
            code=fields["code"][0], state=fields.get("state", [None])[0], iss=fields.get("iss", [None])[0])

    async def callback(self):
        result, self.result = self.result, None
        return result


def texts(result):
    return {"texts": [item.text for item in result.content if getattr(item, "text", None) is not None],
            "isError": bool(result.is_error)}


async def main(url, client_id, redirect_uri):
    metadata = OAuthClientMetadata(
        client_name="python-mcp-client", redirect_uris=[redirect_uri], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method="none")
    registered = OAuthClientInformationFull(
        client_id=client_id, redirect_uris=[redirect_uri], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method="none")
    browser = Browser()
    auth = OAuthClientProvider(
        server_url=url, client_metadata=metadata, storage=Storage(registered), redirect_handler=browser.open,
        callback_handler=browser.callback)
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = await client.list_tools()
            whoami = await client.call_tool("whoami", {})
            added = await client.call_tool("add_note", {"text": "from python"})
    print(json.dumps({"tools": [tool.name for tool in tools.tools], "whoami": texts(whoami), "add_note": texts(added),
                      "authorizations": browser.authorizations}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
