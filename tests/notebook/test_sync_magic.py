"""`%project sync` in an IPython shell against a real reference service: the dry run's
plan outcome, one card for the batch (approved and denied from code), the progress bar,
the rerun with no card, a card too large for its size shown as a summary and a
collapsible list, the same sync from Python (`session.project.sync`), and the line that
fails the cell where nobody can click."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.core.plans import CARD_LIMIT
from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.sync_view import PendingSync, card_html


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "team").mkdir(parents=True)
    (root / "a.md").write_text("# A\n")
    (root / "team" / "b.md").write_text("# B\n")
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 32)
    return root


def synced_docs(live, prefix: str) -> set[str]:
    info = live.session.run(live.session.projects.info())
    return {d["path"] for d in info["docs"] if d["path"].startswith(prefix + "/")}


def test_a_dry_run_shows_the_plan_and_sends_nothing(shell, live, notes) -> None:
    outcome = shell.run_line_magic("project", "sync notes --to kb --dry-run")
    assert isinstance(outcome, Outcome) and not outcome.is_error
    df = outcome.df
    assert dict(zip(df["local"], df["action"], strict=True)) == {
        "a.md": "new", "photo.jpg": "skipped", "team/b.md": "new"}
    text = outcome._repr_mimebundle_()["text/plain"]
    assert "2 new, 1 skipped" in text and "dry run: nothing was sent" in text
    assert synced_docs(live, "kb") == set()


def test_one_card_for_the_batch_then_a_rerun_without_a_card(shell, live, notes) -> None:
    pending = shell.run_line_magic("project", "sync notes --to kb")
    assert isinstance(pending, PendingSync) and not pending.done
    assert "Sync 2 writes" in pending.card.header.value
    outcome = pending.card.approve()
    assert not outcome.is_error and pending.done
    assert outcome.data["report"]["written"] == ["kb/a.md", "kb/team/b.md"]
    assert pending.card.progress.bar.value == 1.0
    assert synced_docs(live, "kb") == {"kb/a.md", "kb/team/b.md"}
    history = shell.run_line_magic("project", "history -n 2")
    assert {r["path"] for r in history.data} == {"kb/a.md", "kb/team/b.md"}
    again = shell.run_line_magic("project", "sync notes --to kb")
    assert isinstance(again, Outcome)  # no card: nothing to write
    assert set(again.df["action"]) == {"unchanged", "skipped"}


def test_a_denied_card_writes_nothing(shell, live, notes) -> None:
    pending = shell.run_line_magic("project", "sync notes --to kb")
    outcome = pending.card.deny()
    assert outcome.is_error and outcome.error.reason == "denied_on_card"
    assert synced_docs(live, "kb") == set()


def test_where_nobody_can_click_the_cell_fails_naming_the_dry_run(shell, live, notes) -> None:
    live.approval_mode = "deny"
    with pytest.raises(UsageError) as caught:
        shell.run_line_magic("project", "sync notes --to kb")
    assert "--dry-run" in str(caught.value)
    assert synced_docs(live, "kb") == set()


def test_a_missing_folder_fails_the_cell_with_one_line(shell, live) -> None:
    with pytest.raises(UsageError) as caught:
        shell.run_line_magic("project", "sync no-such-folder")
    assert "no such folder" in str(caught.value)


def test_a_large_batch_shows_a_summary_and_a_collapsible_list(shell, live, tmp_path) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for i in range(60):
        (many / f"note-{i:02}.md").write_text(f"note {i}\n")
    pending = shell.run_line_magic("project", "sync many --to bulk")
    body = pending.card.header.value
    assert '<details class="jdp-sync-all">' in body and "All 60 writes" in body
    assert body.index("<details") < CARD_LIMIT
    pending.card.deny()


def test_a_small_batch_lists_every_write_without_a_collapsible_list(shell, live,
                                                                     notes) -> None:
    pending = shell.run_line_magic("project", "sync notes --to kb")
    assert "<details" not in card_html(pending.card.plan)
    pending.card.deny()


def test_the_same_sync_from_python(shell, live, notes) -> None:
    session = live.session
    plan = session.project.sync(notes, to="py", dry_run=True)
    assert plan.report is None and len(plan.writes) == 2
    plan = session.project.sync(notes, to="py")  # no approve: nothing is written
    assert plan.report is None and synced_docs(live, "py") == set()
    plan = session.project.sync(notes, to="py", approve=lambda p: len(p.writes) == 2)
    assert plan.report is not None and len(plan.report.written) == 2
    assert synced_docs(live, "py") == {"py/a.md", "py/team/b.md"}


def test_an_edit_by_a_second_session_is_kept_as_a_conflict_on_the_card(shell, live,
                                                                       notes) -> None:
    from jupyter_design_projects.session import Session

    shell.run_line_magic("project", "sync notes --to kb").card.approve()
    (notes / "a.md").write_text("# A, edited here\n")
    (notes / "team" / "b.md").write_text("# B, edited here\n")
    with Session.open(live.settings()) as other:
        other.run(other.projects.write("kb/a.md", content="# A, edited in another session\n"))
    pending = shell.run_line_magic("project", "sync notes --to kb")
    body = pending.card.header.value
    assert "Sync 1 write: 1 changed" in body
    assert '<details class="jdp-sync-conflicts">' in body
    summary = body.split('<details class="jdp-sync-conflicts"><summary>', 1)[1]
    assert summary.startswith("1 conflict kept, not written: kb/a.md (--force PATH")
    outcome = pending.card.approve()
    assert outcome.data["report"]["written"] == ["kb/team/b.md"]
    content = live.session.run(live.session.projects.read("kb/a.md"))["content"]
    assert content == "# A, edited in another session\n"


@pytest.mark.parametrize(("n", "named"), [
    (1, "a0.md"), (3, "a0.md, a1.md, a2.md"), (4, "a0.md, a1.md, a2.md and 1 more")])
def test_the_conflicts_line_names_the_paths_held_back(n, named) -> None:
    from types import SimpleNamespace

    from jupyter_design_projects.notebook.widgets.sync_view import conflicts_line

    rows = [SimpleNamespace(path=f"a{i}.md") for i in range(n)]
    assert conflicts_line(rows) == (f"{n} conflict{'s' * (n != 1)} kept, not written: "
                                    f"{named} (--force PATH writes one)")


def test_interrupting_the_kernel_stops_after_the_write_in_flight_and_says_what_was_not(
        shell, live, notes, monkeypatch, kernel_interrupts) -> None:
    import signal
    import threading

    from jupyter_design_projects.notebook.widgets.progress import ProgressPanel
    from jupyter_design_projects.projects import stoppable

    flag = threading.Event()
    real_run, real_report = stoppable.run_stoppable, ProgressPanel.report_batch
    monkeypatch.setattr(stoppable, "run_stoppable",
                        lambda run, batch, stop=None: real_run(run, batch, stop=flag))

    def report_then_interrupt(panel, progress) -> None:
        real_report(panel, progress)
        if progress.items_done == 1:  # the kernel's interrupt, after the first write
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
            assert flag.wait(30)

    monkeypatch.setattr(ProgressPanel, "report_batch", report_then_interrupt)
    pending = shell.run_line_magic("project", "sync notes --to kb")
    outcome = pending.card.approve()
    report = outcome.data["report"]
    assert (report["written"], report["not_written"]) == (["kb/a.md"], ["kb/team/b.md"])
    assert report["interrupted"] and report["error"] is None
    assert "Interrupted: stopped after the write in flight." in outcome.notice
    assert "1 not written (the result column says which)" in outcome.notice
    # the table says what happened to each row, beside the plan's action
    df = outcome.df
    assert dict(zip(df["path"], df["result"], strict=True)) == {
        "kb/a.md": "written", "kb/team/b.md": "not written", "kb/photo.jpg": ""}
    assert list(df.columns[:4]) == ["path", "local", "action", "result"]
    html = outcome._repr_mimebundle_()["text/html"]
    assert "<th>result</th>" in html and "<td>not written</td>" in html
    assert "sync: 1 of 2 writes" in pending.card.progress.caption.value
    assert synced_docs(live, "kb") == {"kb/a.md"}
