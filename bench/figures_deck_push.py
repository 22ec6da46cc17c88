"""A big deck into the project (issue 35.2): 50 slides pushed as a notebook pushes them
(the plan asked and approved as a click would, the writes journaled, the push records
kept), against the same requests sent raw in the same run: one `list_files`, then each
plan's `finalize_plan` and `write_files` with the same files and `if_match`, hand-framed
JSON-RPC over a bare httpx client (no journal, no records, no previews). The two arms
alternate, each into a project of its own; best of the rounds of each.

And the push's previews of those 50 slides (asked for at once, as the push does after its
writes) against a bare Playwright `set_content` + `screenshot` of the same 50 pages at
device scale 2 in a warm browser: the grid target of `deck_push`, at 50 slides."""

from __future__ import annotations

import asyncio
import json
import time

from .context import Context
from .report import Row, ms, ratio

SLIDES = 50
QUICK_SLIDES = 10
ROUNDS = 5
#: the target: the push within this many times the same requests sent raw
RAW_FACTOR = 2.0
#: the previews grid's target (`deck_push`: 8 slides within 3 s), per slide
GRID_MS_PER_SLIDE = 3000 / 8


def slide_markdown(i: int) -> str:
    points = "\n".join(f"- point {j} of slide {i}: numbers went from {j * 7} to {j * 11}"
                       for j in range(6))
    return f"# Slide {i}: results, part {i}\n\n{points}\n\n*Source: the bench, round {i}.*"


def stage(deck, slides: int) -> None:
    for i in range(slides):
        deck.add_markdown(f"slides/{i:02}-part.html", slide_markdown(i))


def push(session, deck) -> dict:
    """The push as the notebook runs it: one listing, each plan's card approved as a click
    would, then every approved plan written in one run (`Deck.write_plans`)."""
    from jupyter_design_projects.design.approval import PendingApproval

    session.run(deck.refresh())
    batches = deck.batches()
    plans = []
    for batch in batches:
        card = session.run(deck.ask_plan(batch))
        plan = (session.run(session.design.resume(card, approved=True))
                if isinstance(card, PendingApproval) else card)
        plans.append((batch, plan.data["plan_token"]))
    report = session.run(deck.write_plans(plans))
    assert report.failure is None, report.failure
    return {"written": report.written, "plans": len(batches), "cards": len(batches)}


class RawPush:
    """The same requests by hand: JSON-RPC over one bare httpx client and MCP session."""

    def __init__(self, service) -> None:
        from . import service as bench_service

        self.url = service.base_url + bench_service.MCP_PATH
        self.http = bench_service.raw_client(service)
        self.headers = bench_service.raw_mcp_session(self.http, service)
        self._id = 0

    def call(self, tool: str, arguments: dict):
        self._id += 1
        answer = self.http.post(self.url, headers=self.headers, content=json.dumps({
            "jsonrpc": "2.0", "id": self._id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}))
        answer.raise_for_status()
        result = answer.json()["result"]
        assert not result.get("isError"), result
        return json.loads(result["content"][0]["text"])

    def push(self, project_id: str, batches: list[tuple[str, ...]],
             files: dict[str, dict]) -> None:
        self.call("list_files", {"project_id": project_id})
        for batch in batches:
            plan = self.call("finalize_plan", {"project_id": project_id,
                                               "writes": sorted(batch)})
            self.call("write_files", {"project_id": project_id,
                                      "files": [files[p] for p in batch],
                                      "plan_token": plan["plan_token"]})

    def close(self) -> None:
        self.http.close()


def wire_files(deck) -> dict[str, dict]:
    """The write_files entries of every staged file, as the deck sends them (all new)."""
    import base64

    out = {}
    for staged in deck.stage.files:
        entry: dict = {"path": staged.path, "if_match": "0"}
        if staged.kind == "slide":
            entry["data"] = staged.data.decode("utf-8")
        else:
            entry.update(data=base64.b64encode(staged.data).decode("ascii"), encoding="base64")
        out[staged.path] = entry
    return out


def deck_push_50(ctx: Context) -> list[Row]:
    from jupyter_design_projects.design.approval import PendingApproval
    from jupyter_design_projects.design.deck import Deck
    from jupyter_design_projects.session import Session

    from .figures_deck import _bare_shots
    from .service import running, settings_of

    slides = QUICK_SLIDES if ctx.quick else SLIDES
    rounds = ctx.n(ROUNDS, 1)
    times: dict[str, list[float]] = {"push": [], "raw": [], "previews": []}
    plans = cards = 0
    pages: list[str] = []
    data_dir = ctx.scratch("deck-push-50")
    with running(data_dir) as service, Session(
            settings_of(service), data_dir=data_dir / "session",
            can_ask=lambda: True) as session:
        session.run(session.design.consent())
        raw = RawPush(service)

        def new_project(name: str) -> str:
            made = session.run(session.design.call("create_project", {"name": name}))
            if isinstance(made, PendingApproval):
                made = session.run(session.design.resume(made, approved=True))
            return made.data["project_id"]

        try:
            for round_ in range(rounds):
                arms = ("push", "raw") if round_ % 2 == 0 else ("raw", "push")
                for arm in arms:
                    pid = new_project(f"Bench big deck {arm} {round_}")
                    deck = Deck(session.design, records=session.deck_records)
                    session.run(deck.bind(pid, f"Bench big deck {arm} {round_}"))
                    stage(deck, slides)
                    if arm == "raw":
                        batches = deck.batches()
                        files = wire_files(deck)
                        started = time.perf_counter()
                        raw.push(pid, batches, files)
                        times["raw"].append(time.perf_counter() - started)
                        continue
                    started = time.perf_counter()
                    got = push(session, deck)
                    times["push"].append(time.perf_counter() - started)
                    assert len(got["written"]) == len(deck.stage.files), got
                    plans, cards = got["plans"], got["cards"]
                    started = time.perf_counter()
                    shots = session.run(deck.previews(list(deck.stage.slides)))
                    times["previews"].append(time.perf_counter() - started)
                    assert all(s.images for s in shots), "a preview has no picture"
                    pages = [f.data.decode() for f in deck.stage.files if f.kind == "slide"]
        finally:
            raw.close()
    bare = min(asyncio.run(_bare_shots(pages, cold=False)) for _ in range(rounds))
    best = {k: min(v) * 1000 for k, v in times.items()}
    return [
        Row(f"deck push of {slides} slides: {plans} plan(s), {cards} card(s), writes "
            f"journaled and recorded, best of {rounds}", ms(best["push"]),
            f"{ms(best['raw'])} (the same list_files, finalize_plan and write_files sent "
            "raw over httpx)", ratio(best["push"], best["raw"]), f"≤ {RAW_FACTOR:g}× raw",
            best["push"] <= RAW_FACTOR * best["raw"], "deck_push_50"),
        Row(f"… its {slides} previews, asked for at once (device scale 2)",
            ms(best["previews"]),
            f"{ms(bare)} (bare set_content + screenshot, scale 2, warm)",
            ratio(best["previews"], bare),
            f"≤ {GRID_MS_PER_SLIDE * slides / 1000:.1f} s (deck_push's grid: 3 s for 8)",
            best["previews"] <= GRID_MS_PER_SLIDE * slides, "deck_push_50"),
    ]


FIGURES = {"deck_push_50": deck_push_50}
