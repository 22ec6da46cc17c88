"""Decks through the magics against a real reference service: staged from Markdown cells,
figures and tables, pushed through plan cards answered from code, previewed in the
service's browser; a push repeated after an injected failure writes only what is missing."""

from __future__ import annotations

import html
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.core.plans import MAX_PLAN_PATHS
from jupyter_design_projects.design.deck.push import Push
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.deck import DeckPush, NotebookDeck
from tests.faults_client import faults

DECK = "Quarterly Review Deck"


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def live(live, shell, reference_service) -> Iterator[Any]:
    """The conftest's `live`, with Design consent given and the faults reset after."""
    shell.run_line_magic("design", "consent")
    yield live
    faults(reference_service).reset()


@pytest.fixture
def chart():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(4, 2.5))
    axes.bar(["Q1", "Q2", "Q3"], [12, 18, 25])
    axes.set_title("Notebooks run (thousands)")
    yield figure
    plt.close(figure)


def files_of(shell, deck: NotebookDeck) -> dict[str, Any]:
    shell.user_ns["_pid"] = deck.deck.project_id
    return {f["path"]: f for f in shell.run_line_magic("design",
                                                      "list_files project_id=$_pid").data}


def read(shell, deck: NotebookDeck, path: str) -> str:
    shell.user_ns["_pid"], shell.user_ns["_path"] = deck.deck.project_id, path
    return html.unescape(
        shell.run_line_magic("design", "read_file project_id=$_pid path=$_path").data)


def three_slides(shell, chart) -> NotebookDeck:
    import pandas as pd

    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    shell.user_ns.update(chart=chart, teams=pd.DataFrame(
        {"team": [f"team-{i}" for i in range(40)], "notebooks": range(40)}),
        headline="Up 39 % on Q2")
    deck.add_figure("slides/05-chart.html", chart, title="Weekly notebooks")
    deck.add_table("slides/06-teams.html", shell.user_ns["teams"], title="Teams")
    shell.run_cell_magic("design", "slide slides/07-summary.html",
                         "# Summary\n\n**$headline**\n\n$chart\n\n- ship it\n")
    return deck


def test_nothing_is_sent_before_push_and_staged_says_what_would_be_written(
        shell, live, chart, reference_service):
    before = faults(reference_service).counts()
    deck = three_slides(shell, chart)
    after = faults(reference_service).counts()
    staged = deck.staged
    assert list(staged.columns) == ["path", "kind", "bytes", "change", "slide"]
    # the 30 rows of the teams table are too long for one slide: continued on a second
    assert staged["path"].tolist() == [
        "slides/05-chart.html", "slides/assets/05-chart-figure.png", "slides/06-teams.html",
        "slides/06-teams_2.html", "slides/07-summary.html", "slides/assets/07-summary-chart.png"]
    assert staged.set_index("path").loc["slides/06-teams_2.html", "slide"] == \
        "slides/06-teams.html"
    assert set(staged["change"]) == {"new"} and str(staged["bytes"].dtype) == "Int64"
    # opening the deck only read; staging sent nothing at all
    tools = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    assert not any(k.endswith((":write_files", ":finalize_plan")) for k in tools), tools
    assert "mcp:tools/call:list_files" in tools  # (the counts do see the reads)
    assert "slides/05-chart.html" not in files_of(shell, deck)


def test_push_asks_one_plan_card_then_writes_and_previews_every_slide(shell, live, chart):
    deck = three_slides(shell, chart)
    pushed = shell.run_line_magic("design", "deck push")
    assert isinstance(pushed, DeckPush) and len(pushed.cards) == 1
    card = pushed.cards[0]
    assert card.pending.request.operation == "finalize_plan"
    assert set(card.pending.request.writes) == set(deck.staged["path"])
    assert not files_of(shell, deck).keys() & set(deck.staged["path"])  # not before approval
    pushed.approve()
    assert pushed.done and not pushed.failures
    remote = files_of(shell, deck)
    assert set(deck.staged["path"]) <= remote.keys()
    png = remote["slides/assets/05-chart-figure.png"]["size"]
    assert png == deck.staged.set_index("path").loc["slides/assets/05-chart-figure.png", "bytes"]
    summary = read(shell, deck, "slides/07-summary.html")
    assert "<strong>Up 39 % on Q2</strong>" in summary
    assert "assets/07-summary-chart.png" in summary
    assert "Showing the first 30 of 40 rows." in read(shell, deck, "slides/06-teams_2.html")
    assert "Teams (continued)" in html.unescape(read(shell, deck, "slides/06-teams_2.html"))
    # the push says, once, which slide it continued; each preview is described by its
    # slide's heading
    assert pushed.message.count("slides/06-teams.html continued over 2 slides") == 1
    assert 'alt="Teams"' in pushed.grid.value and 'alt="Teams (continued)"' in pushed.grid.value
    assert [p for p, _, _ in pushed.previews] == deck.deck.stage.slides
    for _path, png_bytes, data in pushed.previews:
        assert png_bytes[:8] == b"\x89PNG\r\n\x1a\n"
        assert data["renderer"] == "chromium" and data["failed_requests"] == []
    assert "Up 39 % on Q2" in pushed.previews[3][2]["text_content"]
    assert 'class="jdp-deck-grid"' in pushed.grid.value
    # the slides carry the project's design system (Acme Default's primary colour)
    assert "#1f4e79" in summary and deck.deck.theme.name == "Acme Default"
    # a second push has nothing left to write: no card
    again = shell.run_line_magic("design", "deck push")
    assert again.cards == [] and "Nothing to push" in again.message


def test_a_push_repeated_after_a_failure_writes_only_what_is_missing(
        shell, live, reference_service):
    """The plans are written once every card is answered: the first plan's write is
    answered, the second's fails with no usable answer (a 502 the service never saw). The
    next push writes only the second plan's files; the failed call's entry stays
    `unknown`: a call of this kernel with no answer may still reach the service (its
    `if_match` then keeps it from writing a second time)."""
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    for i in range(MAX_PLAN_PATHS + 5):  # two plans: 20 paths, then 5
        deck.add_markdown(f"slides/r{i:02d}.html", f"# Slide {i}\n", {})
    switches = faults(reference_service)
    first = shell.run_line_magic("design", "deck push")
    assert [len(c.pending.request.writes) for c in first.cards] == [MAX_PLAN_PATHS, 5]
    first.cards[0].approve()
    assert first.written == []  # nothing is written before every card is answered
    real = first.deck.client.call
    calls = []

    async def second_fails(operation, arguments, **options):
        calls.append(operation)
        if operation == "write_files" and calls.count("write_files") == 2:
            switches.fail("/v1/design/mcp", status=502, tool="write_files", count=1)
        return await real(operation, arguments, **options)

    first.deck.client.call = second_fails
    try:
        first.cards[1].approve()
    finally:
        first.deck.client.call = real
    assert len(first.written) == MAX_PLAN_PATHS and len(first.failures) == 1
    assert first.report.unknown == list(first.batches[1]) and first.report.not_written == []
    assert "writes only what is still missing" in first.message
    journal = shell.magics_manager.registry["DesignProjects"].host.session.design_journal
    assert [e["outcome"] for e in journal.entries(2)] == ["unknown", "done"]
    etags = {p: f["etag"] for p, f in files_of(shell, deck).items()}
    before = switches.counts()
    second = shell.run_line_magic("design", "deck push")
    assert [c.pending.request.writes for c in second.cards] == [
        tuple(sorted(f"slides/r{i:02d}.html" for i in range(MAX_PLAN_PATHS, MAX_PLAN_PATHS + 5)))]
    second.approve()
    assert [e["outcome"] for e in journal.entries(3)] == ["done", "unknown", "done"]
    after = files_of(shell, deck)
    assert all(after[p]["etag"] == etags[p] for p in first.written)  # not written again
    assert {f"slides/r{i:02d}.html" for i in range(MAX_PLAN_PATHS + 5)} <= after.keys()
    counts = switches.counts()
    key = "mcp:tools/call:write_files"
    assert counts.get(key, 0) - before.get(key, 0) == 1


def test_an_interrupt_stops_the_push_after_the_write_in_flight_and_says_what_was_not(
        shell, live, reference_service, kernel_interrupts):
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    for i in range(MAX_PLAN_PATHS + 5):  # two plans: 20 paths, then 5
        deck.add_markdown(f"slides/i{i:02d}.html", f"# Slide {i}\n", {})
    push = shell.run_line_magic("design", "deck push")
    shown = push.progress.report_batch
    heard = []

    def interrupt_after_the_first_write(progress):
        shown(progress)
        heard.append(push.progress.caption.value)
        if progress.items_done == MAX_PLAN_PATHS:
            # the kernel's interrupt: SIGINT, a KeyboardInterrupt in the waiting thread
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
            assert push.stopping.wait(30)  # a stop before the next write is sent

    push.progress.report_batch = interrupt_after_the_first_write
    before = faults(reference_service).counts().get("mcp:tools/call:write_files", 0)
    push.approve()
    assert faults(reference_service).counts().get("mcp:tools/call:write_files", 0) == before + 1
    assert push.report.stopped and push.written == list(push.batches[0])
    assert push.report.not_written == list(push.batches[1])
    assert push.message.startswith(f"Stopped: {MAX_PLAN_PATHS} of 25 file(s) written")
    assert "not written: slides/i20.html, slides/i21.html" in push.message
    assert heard[0].startswith("deck push: 0 of 25 writes")
    assert heard[-1].startswith(f"deck push: {MAX_PLAN_PATHS} of 25 writes")
    assert push.previews == []  # no grid for a push that did not finish
    again = shell.run_line_magic("design", "deck push")  # the rest, and only the rest
    assert [c.pending.request.writes for c in again.cards] == [push.batches[1]]


def test_a_deck_opened_again_in_a_new_session_writes_only_what_changed(
        shell, live, reference_service):
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    for i in range(3):
        deck.add_markdown(f"slides/k{i}.html", f"# Kept {i}\n", {})
    shell.run_line_magic("design", "deck push").approve()
    etags = {p: f["etag"] for p, f in files_of(shell, deck).items()}
    live.close()  # as a new kernel would: a new session, the same user data dir
    again = shell.run_line_magic("design", f'deck open "{DECK}"')
    assert again.deck is not deck.deck and again.deck.project_id == deck.deck.project_id
    for i in range(3):
        again.add_markdown(f"slides/k{i}.html", "# Kept 0, edited\n" if i == 0
                           else f"# Kept {i}\n", {})
    assert [f.path for f in again.deck.missing()] == ["slides/k0.html"]
    pushed = shell.run_line_magic("design", "deck push")
    assert [c.pending.request.writes for c in pushed.cards] == [("slides/k0.html",)]
    pushed.approve()
    after = files_of(shell, again)
    assert after["slides/k0.html"]["etag"] != etags["slides/k0.html"]
    assert [after[p]["etag"] for p in ("slides/k1.html", "slides/k2.html")] == [
        etags["slides/k1.html"], etags["slides/k2.html"]]
    # a file changed on the service since (another etag) is written again, whatever the
    # records say
    shell.user_ns["_pid"] = again.deck.project_id
    plan = shell.run_line_magic("design", 'finalize_plan project_id=$_pid '
                                          'writes=\'["slides/k1.html"]\'')
    plan.card.approve()
    shell.user_ns["_token"] = plan.data["plan_token"]
    shell.run_line_magic("design", 'write_files project_id=$_pid plan_token=$_token '
                                   'files=\'[{"path": "slides/k1.html", "data": "<p>x</p>"}]\'')
    live.close()
    third = shell.run_line_magic("design", f'deck open "{DECK}"')
    for i in range(3):
        third.add_markdown(f"slides/k{i}.html", "# Kept 0, edited\n" if i == 0
                           else f"# Kept {i}\n", {})
    assert [f.path for f in third.deck.missing()] == ["slides/k1.html"]


def test_headless_push_fails_closed_naming_the_next_step(shell, live, chart):
    deck = three_slides(shell, chart)
    live.approval_mode = "deny"
    with pytest.raises(UsageError, match="approval_mode"):  # one error style: the cell fails
        shell.run_line_magic("design", "deck push")
    live.errors = "outcome"  # or, for API debugging, the error outcome itself
    pushed = shell.run_line_magic("design", "deck push")
    assert isinstance(pushed, Outcome) and pushed.is_error
    assert pushed.error.reason == "approval_mode_deny"  # names the setting (issue 14)
    assert "slides/05-chart.html" not in files_of(shell, deck)


def test_slide_without_a_deck_names_the_command_to_run(shell, live):
    with pytest.raises(UsageError, match="deck open"):
        shell.run_cell_magic("design", "slide slides/x.html", "# x\n")


def test_an_undefined_name_in_a_slide_is_named(shell, live):
    shell.run_line_magic("design", f'deck open "{DECK}"')
    with pytest.raises(UsageError, match=r"\$nowhere"):
        shell.run_cell_magic("design", "slide slides/x.html", "# x\n\n$nowhere\n")


def test_deck_new_creates_the_project_only_after_its_card_is_approved(shell, live):
    deck = shell.run_line_magic("design", "deck new Launch review")
    assert isinstance(deck, NotebookDeck) and deck.deck.project_id is None
    deck.add_markdown("slides/01-hello.html", "# Hello\n", {})
    deck.create_card.approve()
    assert deck.deck.project_id is not None
    projects = shell.run_line_magic("design", "list_projects").data
    assert any(p["name"] == "Launch review" and p["id"] == deck.deck.project_id
               for p in projects)
    pushed = shell.run_line_magic("design", "deck push").approve()
    assert pushed.written == ["slides/01-hello.html"]


def test_an_image_upload_read_shows_inline(shell, live):
    picture = shell.run_line_magic("project", "read team-palette.png")
    ((mime, blob),) = picture.images
    assert mime == "image/png" and blob[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(blob) == picture.data["bytes"]
    assert "image/png" in picture._repr_mimebundle_()


@pytest.mark.parametrize(("size", "shown"), [(views.INLINE_IMAGE_MAX_BYTES, True),
                                             (views.INLINE_IMAGE_MAX_BYTES + 1, False)])
def test_an_image_upload_is_shown_inline_up_to_its_cap(tmp_path, size, shown):
    saved = tmp_path / "big.png"
    saved.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * (size - 8))
    record = {"kind": "raw", "file_kind": "image", "mime_type": "image/png",
              "local_file": str(saved), "bytes": size}
    assert bool(views.project_outcome("read", record).images) is shown


def test_opening_a_deck_without_consent_names_the_consent_command(shell, live):
    shell.run_line_magic("design", "revoke")
    with pytest.raises(UsageError, match="%design consent"):
        shell.run_line_magic("design", f'deck open "{DECK}"')


class ScriptHost:
    """A deck host that is not the magics: only what `DeckHost` names."""

    def __init__(self, session: Any, names: dict[str, Any]) -> None:
        self.session = session
        self.names = names
        self.resumed: list[str] = []

    def can_ask(self) -> bool:
        return True

    def resume(self, pending: Any, approved: bool, durable: bool) -> Any:
        self.resumed.append(pending.operation)
        return self.session.run(self.session.design.resume(pending, approved=approved,
                                                           durable=durable))

    def user_namespace(self) -> dict[str, Any]:
        return self.names


def test_a_deck_needs_only_its_host_protocol_not_the_magics(shell, live):
    host = ScriptHost(live.session, {"headline": "From a plain host"})
    deck = NotebookDeck.open(host, DECK)
    deck.add_markdown("slides/08-host.html", "# $headline\n")
    pushed = deck.push()
    assert len(pushed.cards) == 1 and not files_of(shell, deck).keys() & {"slides/08-host.html"}
    # the view draws the pipeline's push: its cards are the push's open plans
    assert isinstance(pushed.push, Push)
    assert [c.pending for c in pushed.cards] == list(pushed.push.pending.values())
    pushed.approve()
    assert pushed.push.pending == {} and pushed.push.written == ["slides/08-host.html"]
    assert pushed.done and host.resumed == ["finalize_plan"]
    assert "From a plain host" in read(shell, deck, "slides/08-host.html")
