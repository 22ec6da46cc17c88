"""Benchmark of the Design MCP call path against the real reference service on loopback.

Prints the median cost of one read-only tools/call (list_design_systems) through
(a) a raw httpx POST with a hand-written body (baseline 1.00x), (b) McpSession.call_tool,
(c) the official MCP SDK client; then the import time of the session module against
`mcp.client`. Ratios are against baselines measured in the same run; nothing is asserted.

    PYTHONPATH=. .venv/bin/python bench/bench_design.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable

import httpx

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.embedded import start_embedded
from jupyter_design_projects.transport.http import make_client

MCP_PATH = "/v1/design/mcp"
TOOL = "list_design_systems"
WARMUP = 20


async def median_ms(call: Callable[[], Awaitable[object]], calls: int) -> float:
    for _ in range(WARMUP):
        await call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def bearer(token: Secret) -> dict[str, str]:
    return {"Authorization": f"Bearer {token.reveal()}"}


async def raw_httpx(url: str, token: Secret, calls: int) -> float:
    headers = {**bearer(token), "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    async with httpx.AsyncClient(headers=headers) as http:
        init = await http.post(url, content=json.dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}}}))
        headers = {"Mcp-Session-Id": init.headers["mcp-session-id"],
                   "MCP-Protocol-Version": "2025-03-26"}
        await http.post(url, headers=headers,
                        content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": TOOL, "arguments": {}}}).encode()

        async def call() -> object:
            answer = await http.post(url, headers=headers, content=body)
            return answer.json()["result"]

        return await median_ms(call, calls)


async def mcp_session(url: str, token: Secret, calls: int) -> float:
    async with make_client() as http:
        http.headers.update(bearer(token))
        session = McpSession(http, url)
        try:
            return await median_ms(lambda: session.call_tool(TOOL, {}), calls)
        finally:
            await session.close()


async def sdk_client(url: str, token: Secret, calls: int) -> float:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=bearer(token)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="legacy", cache=None) as client:
            return await median_ms(lambda: client.call_tool(TOOL, {}), calls)


def import_ms(module: str, runs: int = 5) -> float:
    code = (f"import time; t = time.perf_counter(); import {module}; "
            "print(time.perf_counter() - t)")
    samples = [float(subprocess.run([sys.executable, "-c", code], check=True,
                                    capture_output=True, text=True).stdout)
               for _ in range(runs)]
    return statistics.median(samples) * 1000


async def run(calls: int) -> None:
    service = start_embedded(tempfile.mkdtemp(prefix="bench-design-"))
    try:
        token = Secret(json.loads(service.credentials_file.read_text())["access_token"])
        async with httpx.AsyncClient(headers=bearer(token)) as http:
            answer = await http.post(service.base_url + "/v1/design/consent",
                                     json={"consent": "agent_design_projects"})
            answer.raise_for_status()
        url = service.base_url + MCP_PATH
        results = {
            "raw httpx POST (baseline)": await raw_httpx(url, token, calls),
            "McpSession.call_tool": await mcp_session(url, token, calls),
        }
        try:
            results["official MCP SDK client"] = await sdk_client(url, token, calls)
        except Exception as exc:  # the SDK is the comparison, not the subject
            print(f"(SDK client failed: {type(exc).__name__}: {exc})")
    finally:
        service.stop()
    baseline = results["raw httpx POST (baseline)"]
    print(f"median per read-only tools/call ({TOOL}), {calls} calls each, loopback:")
    for name, value in results.items():
        print(f"  {name:<28} {value:7.3f} ms  {value / baseline:5.2f}x")
    ours = import_ms("jupyter_design_projects.design.session")
    sdk = import_ms("mcp.client")
    print("import time (median of 5 fresh interpreters):")
    print(f"  jupyter_design_projects.design.session {ours:7.1f} ms  1.00x")
    print(f"  mcp.client                             {sdk:7.1f} ms  {sdk / ours:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(run(parser.parse_args().calls))


if __name__ == "__main__":
    main()
