"""The Design MCP path: `mcp` (one `McpSession.call_tool` against a raw httpx JSON-RPC
POST and the official MCP SDK client), `handshake` (64 concurrent first calls share one
initialize and one tools/list, counted on the service) and `list` (a repeated `list` with
an unchanged hash, against the full catalogue)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx

from jupyter_design_projects.core.catalogue import first_sentence
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.session import Session
from jupyter_design_projects.transport.http import make_client

from . import service
from .context import Context
from .measure import WARMUP, atimed, median_ms
from .report import Row, ms, ratio

TOOL = "list_design_systems"
ROUNDS = 5


async def _interleaved(calls: dict[str, Callable[[], Awaitable[object]]],
                       n: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        await atimed(call, 0, warmup=WARMUP)
    for _ in range(ROUNDS):
        for name, call in calls.items():
            samples[name] += await atimed(call, max(1, n // ROUNDS), warmup=0)
    return {name: median_ms(values) for name, values in samples.items()}


async def _mcp(svc, calls: int) -> dict[str, float]:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    url = svc.base_url + service.MCP_PATH
    bearer = service.request_headers(svc)  # the SDK client and the raw POST send them too
    body = service.tool_call_body(TOOL)
    async with httpx.AsyncClient(headers=bearer) as raw, make_client() as ours, \
            httpx2.AsyncClient(headers=bearer) as sdk_http:
        with httpx.Client(headers=bearer) as sync:
            headers = service.raw_mcp_session(sync, svc)

        async def raw_call() -> object:
            return (await raw.post(url, headers=headers, content=body)).json()["result"]

        ours.headers.update(bearer)
        session = McpSession(ours, url)
        transport = streamable_http_client(url, http_client=sdk_http)
        async with Client(transport, mode="legacy", cache=None) as sdk:
            try:
                return await _interleaved({
                    "raw": raw_call,
                    "ours": lambda: session.call_tool(TOOL, {}),
                    "sdk": lambda: sdk.call_tool(TOOL, {}),
                }, calls)
            finally:
                await session.close()


def mcp(ctx: Context) -> list[Row]:
    calls = ctx.n(600, 40)
    with service.running(ctx.scratch("mcp")) as svc:
        service.give_consent(svc)
        times = asyncio.run(_mcp(svc, calls))
    raw, ours, sdk = times["raw"], times["ours"], times["sdk"]
    return [
        Row(f"`McpSession.call_tool` ({TOOL}), median of {calls}", ms(ours),
            f"raw httpx JSON-RPC POST {ms(raw)}", ratio(ours, raw), "≤ 1.0× raw",
            ours <= raw, "mcp"),
        Row("… against the official MCP SDK client", ms(ours), f"MCP SDK client {ms(sdk)}",
            ratio(ours, sdk), "< 1.0× the SDK", ours < sdk, "mcp"),
    ]


def handshake(ctx: Context) -> list[Row]:
    data = ctx.scratch("handshake")
    with service.running(data / "service", faults=True) as svc:
        service.give_consent(svc)
        service.reset_counts(svc)
        with Session(service.settings_of(svc), data_dir=data / "session") as s:
            async def first_calls() -> list[object]:
                return list(await asyncio.gather(
                    *(s.design.call(TOOL, {}) for _ in range(64))))
            outcomes = s.run(first_calls())
        counted = service.counts(svc)
    failed = sum(1 for o in outcomes if getattr(o, "is_error", True))
    init, listed = counted.get("mcp:initialize", 0), counted.get("mcp:tools/list", 0)
    calls = counted.get(f"mcp:tools/call:{TOOL}", 0)
    return [Row("64 concurrent first Design calls (one Session)",
                f"{init} initialize, {listed} tools/list, {calls} tools/call, "
                f"{failed} failed", "–", "–", "exactly 1 initialize + 1 tools/list",
                init == 1 and listed == 1 and failed == 0 and calls == 64, "handshake")]


def _agent_chars(outcome: object) -> int:
    """Characters of the text an agent receives: the tool_result's text blocks."""
    blocks = outcome.to_tool_result("bench")["content"]  # type: ignore[attr-defined]
    return sum(len(block["text"]) for block in blocks if block["type"] == "text")


def catalogue_list(ctx: Context) -> list[Row]:
    data = ctx.scratch("list")
    with service.running(data / "service") as svc:
        service.give_consent(svc)
        with Session(service.settings_of(svc), data_dir=data / "session") as s:
            full = s.run(s.design.list())
            again = s.run(s.design.list())
    full_chars, again_chars = _agent_chars(full), _agent_chars(again)
    unchanged = isinstance(again.data, dict) and again.data.get("catalog_unchanged") is True
    operations = full.data["operations"]
    floor = sum(len(op["name"]) + len(first_sentence(op["description"])) for op in operations)
    return [Row("repeated `list`, hash unchanged (the text an agent receives)",
                f"{again_chars:,} chars", f"full catalogue {full_chars:,} chars",
                f"{again_chars / full_chars:.1%}", "≤ 10%",
                unchanged and again_chars <= 0.10 * full_chars, "list"),
            Row(f"… of which the spec's own content: {len(operations)} names + first "
                "sentences", f"{floor:,} chars", f"full catalogue {full_chars:,} chars",
                f"{floor / full_chars:.1%}", "–", None, "list")]


FIGURES = {"mcp": mcp, "handshake": handshake, "list": catalogue_list}
