"""The MCP Python SDK (the `mcp` package, newest, from .venv/mcp that scripts/setup builds) as a client of
the Worker's /mcp, driven by tests/e2e/mcp_clients.test.mjs.

Reads a plan from stdin, {url, token, mode, calls: [{name, arguments}]}, connects with `mcp.Client`
(mode "legacy": the initialize handshake; "2026-07-28": the stateless protocol), lists the tools, makes
each call in order, and prints one JSON object: {protocol, tools, results}. A call the SDK raises on is
{"raised": "<type>: <message>"}, so the test sees what a user of the SDK would.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(plan):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {plan['token']}"})
    transport = streamable_http_client(plan["url"], http_client=http)
    out = {"tools": [], "results": []}
    async with http, Client(transport, mode=plan["mode"], raise_exceptions=True) as client:
        listed = await client.list_tools()
        out["tools"] = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed.tools]
        for call in plan["calls"]:
            try:
                result = await client.call_tool(call["name"], call["arguments"])
                out["results"].append(result.model_dump(by_alias=True, exclude_none=True))
            except Exception as error:  # the test asserts on what the SDK raised
                out["results"].append({"raised": f"{type(error).__name__}: {error}"})
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(json.load(sys.stdin)))
