"""The official Python MCP SDK's ID-JAG client (`IdentityAssertionOAuthProvider`, `mcp` as Tests/MCPServer/requirements.txt
pins it, run from that virtualenv) calling tools on a protected Swift MCP server, for MCPEnterpriseEndToEndTests.

    IDJAG_CLIENT_SECRET=... python sdk_client.py MCP_URL ISSUER CLIENT_ID GRANT_FILE

The SDK does the second leg of enterprise-managed authorization only: on the server's 401 it reads the configured
authorization server's RFC 8414 metadata (ISSUER, never discovered from the MCP server) and presents an ID-JAG as a
JWT bearer grant with client_secret_basic; the first leg (the exchange at the identity provider) is the caller's
`assertion_provider`, here the ID-JAG the test minted, read from GRANT_FILE. It lists the tools, calls `whoami`, and
prints one JSON object on stdout: `tools`, `whoami` (its texts and `isError`) and `asked` (the audience and resource
the SDK asked the assertion provider for).
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client


class Storage:
    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def main(url, issuer, client_id, grant_file):
    asked = []

    async def assertion(audience, resource):
        asked.append({"audience": audience, "resource": resource})
        with open(grant_file) as handle:
            return handle.read().strip()

    auth = IdentityAssertionOAuthProvider(
        server_url=url, storage=Storage(), client_id=client_id, client_secret=os.environ["IDJAG_CLIENT_SECRET"], issuer=issuer,
        assertion_provider=assertion, token_endpoint_auth_method="client_secret_basic")
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = await client.list_tools()
            whoami = await client.call_tool("whoami", {})
    texts = [item.text for item in whoami.content if getattr(item, "text", None) is not None]
    print(json.dumps({"tools": [tool.name for tool in tools.tools], "whoami": {"texts": texts, "isError": bool(whoami.is_error)},
                      "asked": asked}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
