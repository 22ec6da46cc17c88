"""The client stack as a notebook uses it, each against a raw sync `httpx.Client` request
of the same route: `session` (the `Session.run` facade: a Projects search and a read-only
Design call) and `magic` (the same through `%project` / `%design`, against the Python API
call it wraps)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import httpx

from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

from . import service
from .context import Context
from .measure import interleaved_medians
from .report import Row, ms, ratio

QUERY, N = "retention", 5
TOOL = "list_design_systems"


@contextlib.contextmanager
def embedded_session(ctx: Context) -> Iterator[Session]:
    """A Session on the embedded reference service it starts itself, as a notebook's does
    when nothing is configured; consent given and scopes expanded outside the timing."""
    with Session.open(Settings.resolve({}), data_dir=ctx.scratch("session")) as s:
        s.run(s.projects.info())
        s.run(s.design.consent())
        yield s


def session(ctx: Context) -> list[Row]:
    calls = ctx.n(1000, 40)
    with embedded_session(ctx) as s:
        assert s.embedded is not None
        search_url = service.project_url(s.embedded) + "/kb/search"
        mcp = s.embedded.base_url + service.MCP_PATH
        body = service.tool_call_body(TOOL)
        with service.raw_client(s.embedded) as raw:
            headers = service.raw_mcp_session(raw, s.embedded)
            hop = s.run(_async_client(raw.headers["Authorization"]))
            times = interleaved_medians({
                "raw search": lambda: raw.get(search_url,
                                              params={"query": QUERY, "n": N}).json(),
                "hop search": lambda: s.run(hop.get(
                    search_url, params={"query": QUERY, "n": N})).json(),
                "session search": lambda: s.run(s.projects.search(QUERY, N)),
                "raw design": lambda: raw.post(mcp, headers=headers, content=body).json(),
                "session design": lambda: s.run(s.design.call(TOOL, {})),
            }, calls)
            s.run(hop.aclose())
    target = "≤ 1.3×"
    rows = []
    for what, label in (("search", "Projects search"), ("design", f"Design call ({TOOL})")):
        ours, base = times[f"session {what}"], times[f"raw {what}"]
        rows.append(Row(f"{label} via `Session.run`, median of {calls}", ms(ours),
                        f"raw sync httpx {ms(base)}", ratio(ours, base), target,
                        ours / base <= 1.3, "session"))
        if what == "search":  # where the gap is: the hop and the async client, or our code
            hop_ms = times["hop search"]
            rows.append(Row("… of which a bare `httpx.AsyncClient` GET via `Session.run`",
                            ms(hop_ms), f"raw sync httpx {ms(base)}", ratio(hop_ms, base),
                            "–", None, "session"))
    return rows


async def _async_client(authorization: str) -> httpx.AsyncClient:
    """A bare AsyncClient made on the session's loop (as the session's own client is)."""
    return httpx.AsyncClient(headers={"Authorization": authorization})


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def magic(ctx: Context) -> list[Row]:
    """Each magic three ways against the API call it wraps, interleaved in short blocks:
    the magic returning its outcome (what the target is about), and the magic plus the
    rendering IPython does for `Out[]` (`display_formatter.format`: the outcome's
    text/plain and text/html), which the API's bare result does not need; wall clock and
    the main thread's CPU (`time.thread_time`, which other processes barely move)."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    calls = ctx.n(500, 40)
    rounds = max(1, calls // 20)
    data = ctx.scratch("magic")
    config = Config()
    config.HistoryManager.enabled = False  # no history file to write at exit
    with service.running(data / "service") as svc, environment(service.env_of(svc)):
        service.give_consent(svc)
        shell = InteractiveShell.instance(config=config)
        try:
            shell.run_line_magic("load_ext", "jupyter_design_projects")
            magics = shell.magics_manager.registry["DesignProjects"]
            s = magics.session
            assert shell.display_formatter is not None
            show = shell.display_formatter.format
            line = {"search": ("project", f"search {QUERY} -n {N}"),
                    "design": ("design", TOOL)}
            contenders = {
                "api search": lambda: s.run(s.projects.call("project_search",
                                                            {"query": QUERY, "n": N})),
                "magic search": lambda: shell.run_line_magic(*line["search"]),
                "shown search": lambda: show(shell.run_line_magic(*line["search"])),
                "api design": lambda: s.run(s.design.call(TOOL, {})),
                "magic design": lambda: shell.run_line_magic(*line["design"]),
                "shown design": lambda: show(shell.run_line_magic(*line["design"])),
            }
            times = interleaved_medians(contenders, calls, rounds)
            cpu = interleaved_medians(contenders, calls, rounds, clock=time.thread_time)
        finally:
            shell.run_line_magic("unload_ext", "jupyter_design_projects")
            InteractiveShell.clear_instance()
    rows = []
    for what, label in (("search", f"`%project search {QUERY} -n {N}`"),
                        ("design", f"`%design {TOOL}`")):
        ours, shown, base = (times[f"{k} {what}"] for k in ("magic", "shown", "api"))
        over = ours - base
        rows.append(Row(f"{label}, median of {calls}", ms(ours), f"Python API {ms(base)}",
                        f"{over:+.3f} ms", "≤ +0.3 ms", over <= 0.3, "magic"))
        rows.append(Row("… and rendered as `Out[]` is (text/plain + text/html)", ms(shown),
                        f"Python API {ms(base)}", f"{shown - base:+.3f} ms", "–", None,
                        "magic"))
        ours, shown, base = (cpu[f"{k} {what}"] for k in ("magic", "shown", "api"))
        rows.append(Row("… main-thread CPU per call: the magic (rendered)",
                        f"{ms(ours)} ({ms(shown)})", f"Python API {ms(base)}",
                        f"{ours - base:+.3f} ms ({shown - base:+.3f} ms)", "–", None, "magic"))
    return rows


def trace(ctx: Context) -> list[Row]:
    """A Projects search with the HTTP trace on and its ring full (`TRACE_LIMIT`
    exchanges kept, as a long session's is), against the same search with the trace off,
    interleaved (neither changes what the ring holds): what a call pays for being traced,
    which must not grow with what the trace holds."""
    from jupyter_design_projects.core.trace_limits import TRACE_LIMIT

    calls = ctx.n(500, 40)
    with embedded_session(ctx) as s:

        def traced(on: bool):
            def call() -> object:
                s.trace.enabled = on
                return s.run(s.projects.search(QUERY, N))
            return call

        for _ in range(TRACE_LIMIT):
            traced(True)()
        assert s.trace.held == TRACE_LIMIT
        times = interleaved_medians({"on": traced(True), "off": traced(False)}, calls)
        assert s.trace.held == TRACE_LIMIT
    ours, base = times["on"], times["off"]
    return [Row(f"Projects search with the trace on and {TRACE_LIMIT} exchanges kept, "
                f"median of {calls}", ms(ours), f"trace off {ms(base)}", ratio(ours, base),
                "≤ 1.3×", ours / base <= 1.3, "trace")]


FIGURES = {"session": session, "magic": magic, "trace": trace}
