"""`%project write`, `%%project write`, `%project delete` and `%project restore` in an
IPython shell against a real reference service: each change on a card first (a create's
path, size and budget after, a replace's diff, a delete's lost lines), Approve sends
exactly what the card showed, Deny sends nothing, a doc changed after the card is refused
and kept, `--yes` sends without a card and is journaled as `--yes`, and where nobody can
click the cell fails naming `--yes`. What was stored is read from the service's database."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.core.plans import CARD_LIMIT
from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.change_card import PendingChange
from jupyter_design_projects.server.app import DB_FILE


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


def stored(service) -> dict[str, str]:
    """The attached Project's docs as the service's database holds them."""
    conn = sqlite3.connect(Path(service.data_dir) / DB_FILE, timeout=30)
    try:
        return dict(conn.execute("SELECT file_name, content FROM docs WHERE project_uuid = ?",
                                 (service.project_uuid,)).fetchall())
    finally:
        conn.close()


def write_elsewhere(live, path: str, content: str) -> None:
    """A teammate's write, from a second session."""
    from jupyter_design_projects.session import Session

    with Session.open(live.settings()) as other:
        other.run(other.projects.write(path, content=content))


def history(shell) -> list[dict[str, Any]]:
    return shell.run_line_magic("project", "history -n 5").data


# ---------------------------------------------------------------- create


def test_a_create_card_shows_path_size_and_budget_and_approve_writes_exactly_it(
        shell, live, pointed_at_service) -> None:
    pending = shell.run_cell_magic("project", "write kb/new.md", "# New\nfirst line\n")
    assert isinstance(pending, PendingChange) and not pending.done
    assert "kb/new.md" not in stored(pointed_at_service)  # nothing before the click
    body = pending.card.header.value
    assert "Create this doc" in body and "kb/new.md" in body
    assert "Size: 17 bytes (~5 estimated tokens)" in body
    change = pending.change
    assert change.knowledge_after == change.knowledge_before + 5
    assert f"{change.knowledge_before:,} → {change.knowledge_after:,}" in body
    outcome = pending.card.approve()
    assert not outcome.is_error and pending.done and pending.data["path"] == "kb/new.md"
    assert stored(pointed_at_service)["kb/new.md"] == "# New\nfirst line\n"
    assert history(shell)[0]["approved_by"] == "card"


def test_a_denied_card_writes_nothing(shell, live, pointed_at_service) -> None:
    before = stored(pointed_at_service)
    pending = shell.run_cell_magic("project", "write kb/denied.md", "no\n")
    outcome = pending.card.deny()
    assert outcome.is_error and outcome.error.reason == "denied_on_card"
    assert stored(pointed_at_service) == before
    assert history(shell) == []


def test_a_card_answers_once(shell, live) -> None:
    from jupyter_design_projects.errors import ApprovalClosed

    pending = shell.run_cell_magic("project", "write kb/once.md", "x\n")
    pending.card.deny()
    with pytest.raises(ApprovalClosed):
        pending.card.approve()


def test_a_write_from_a_local_file_sends_the_text_its_card_showed(
        shell, live, pointed_at_service, tmp_path) -> None:
    (tmp_path / "summary.md").write_text("as shown\n")
    pending = shell.run_line_magic("project", "write kb/summary.md --from summary.md")
    assert "the local file" in pending.card.header.value
    (tmp_path / "summary.md").write_text("edited after the card\n")
    pending.card.approve()
    assert stored(pointed_at_service)["kb/summary.md"] == "as shown\n"


# ---------------------------------------------------------------- replace


def test_a_replace_card_shows_a_diff_of_what_it_replaces(shell, live,
                                                          pointed_at_service) -> None:
    write_elsewhere(live, "kb/team.md", "# Team\nalpha\nbeta\n")
    pending = shell.run_cell_magic("project", "write kb/team.md", "# Team\nalpha\ngamma\n")
    body = pending.card.header.value
    assert "Replace this doc" in body and '<div class="jdp-change-diff">' in body
    assert "--- a/kb/team.md" in body and "+++ b/kb/team.md" in body
    assert "-beta" in body and "+gamma" in body
    assert "<details" not in body  # a short diff is shown whole
    assert "-beta" in "\n".join(pending.change.request("p").details)
    pending.card.approve()
    assert stored(pointed_at_service)["kb/team.md"] == "# Team\nalpha\ngamma\n"
    entry = history(shell)[0]
    assert (entry["action"], entry["approved_by"]) == ("replace", "card")


def test_a_long_diff_is_cut_to_the_card_and_whole_in_a_collapsible_section(
        shell, live) -> None:
    old = "".join(f"line {i} as it was\n" for i in range(400))
    new = "".join(f"line {i} as it is now\n" for i in range(400))
    write_elsewhere(live, "kb/long.md", old)
    pending = shell.run_cell_magic("project", "write kb/long.md", new)
    body = pending.card.header.value
    shown = body.split('<pre class="jdp-change-diff-shown"', 1)[1].split("</pre>", 1)[0]
    text = html.unescape(re.sub(r"<[^>]+>", "", shown.split(">", 1)[1]))
    assert len(text) <= CARD_LIMIT and text.startswith("--- a/kb/long.md")
    assert "cut: " in body and "lines shown" in body
    whole = body.split('<details class="jdp-change-whole-diff">', 1)[1]
    assert "line 399 as it was" in whole and "line 399 as it is now" in whole
    pending.card.deny()


def test_a_doc_changed_after_its_card_is_refused_not_overwritten(
        shell, live, pointed_at_service) -> None:
    write_elsewhere(live, "kb/shared.md", "v1\n")
    pending = shell.run_cell_magic("project", "write kb/shared.md", "mine\n")
    write_elsewhere(live, "kb/shared.md", "a teammate's v2\n")
    outcome = pending.card.approve()
    assert outcome.is_error and outcome.error.reason == "changed_since_card"
    assert stored(pointed_at_service)["kb/shared.md"] == "a teammate's v2\n"


def test_a_doc_created_after_a_create_card_is_refused_not_overwritten(
        shell, live, pointed_at_service) -> None:
    pending = shell.run_cell_magic("project", "write kb/race.md", "mine\n")
    write_elsewhere(live, "kb/race.md", "theirs\n")
    outcome = pending.card.approve()
    assert outcome.is_error and outcome.error.reason == "changed_since_card"
    assert stored(pointed_at_service)["kb/race.md"] == "theirs\n"


# ---------------------------------------------------------------- delete


def test_a_delete_card_shows_what_is_lost(shell, live, pointed_at_service) -> None:
    content = "".join(f"point {i}\n" for i in range(30))
    write_elsewhere(live, "team/b.md", content)
    pending = shell.run_line_magic("project", "delete team/b.md")
    body = pending.card.header.value
    assert "Delete this doc" in body and '<div class="jdp-change-lost">' in body
    assert "What is lost: team/b.md, 260 bytes" in body
    assert "point 0" in body and "point 9" in body and "point 10" not in body
    assert "cut: 10 of 30 lines shown" in body
    assert stored(pointed_at_service)["team/b.md"] == content  # not before the click
    pending.card.deny()
    assert stored(pointed_at_service)["team/b.md"] == content
    again = shell.run_line_magic("project", "delete team/b.md")
    again.card.approve()
    assert "team/b.md" not in stored(pointed_at_service)
    assert history(shell)[0]["action"] == "delete"


# ---------------------------------------------------------------- nobody can click, --yes


@pytest.mark.parametrize("line, cell", [
    ("write kb/headless.md", "text\n"),
    ("delete team/b.md", None),
])
def test_where_nobody_can_click_the_cell_fails_naming_yes_and_sends_nothing(
        shell, live, pointed_at_service, line, cell) -> None:
    write_elsewhere(live, "team/b.md", "kept\n")
    before = stored(pointed_at_service)
    live.approval_mode = "auto"  # no kernel here: nobody can click
    with pytest.raises(UsageError) as caught:
        if cell is None:
            shell.run_line_magic("project", line)
        else:
            shell.run_cell_magic("project", line, cell)
    assert "--yes" in str(caught.value)
    last = shell.run_line_magic("project", "last")
    assert last.error.reason == "nobody_can_click"
    assert stored(pointed_at_service) == before


def test_yes_writes_without_a_card_and_is_journaled_as_yes(shell, live,
                                                            pointed_at_service) -> None:
    live.approval_mode = "deny"
    written = shell.run_cell_magic("project", "write kb/yes.md --yes", "sent\n")
    assert isinstance(written, Outcome) and not written.is_error
    assert stored(pointed_at_service)["kb/yes.md"] == "sent\n"
    deleted = shell.run_line_magic("project", "delete kb/yes.md --yes")
    assert not deleted.is_error and "kb/yes.md" not in stored(pointed_at_service)
    assert [(e["action"], e["approved_by"]) for e in history(shell)] == [
        ("delete", "--yes"), ("create", "--yes")]


# ---------------------------------------------------------------- restore


def test_a_restore_goes_through_a_card_and_its_undo_hint_works(shell, live,
                                                               pointed_at_service) -> None:
    shell.run_cell_magic("project", "write kb/r.md --yes", "kept\n")
    shell.run_line_magic("project", "delete kb/r.md --yes")
    deleted = history(shell)[0]
    pending = shell.run_line_magic("project", f"restore {deleted['id']}")
    assert isinstance(pending, PendingChange)
    assert f"Restore journal entry {deleted['id']}" in pending.card.header.value
    assert "kb/r.md" not in stored(pointed_at_service)
    outcome = pending.card.approve()
    assert stored(pointed_at_service)["kb/r.md"] == "kept\n"
    # the restore created the doc again: its undo is a delete, which works
    assert outcome.body.endswith("to undo it: %project delete kb/r.md")
    undone = shell.run_line_magic("project", "delete kb/r.md --yes")
    assert not undone.is_error and "kb/r.md" not in stored(pointed_at_service)


def test_a_restore_over_a_doc_undoes_with_a_restore_that_works(shell, live,
                                                               pointed_at_service) -> None:
    shell.run_cell_magic("project", "write kb/s.md --yes", "v1\n")
    shell.run_cell_magic("project", "write kb/s.md --yes", "v2\n")
    replaced = history(shell)[0]
    restored = shell.run_line_magic("project", f"restore {replaced['id']} --yes")
    assert stored(pointed_at_service)["kb/s.md"] == "v1\n"
    entry = history(shell)[0]
    assert restored.body.endswith(f"to undo it: %project restore {entry['id']}")
    shell.run_line_magic("project", f"restore {entry['id']} --yes")
    assert stored(pointed_at_service)["kb/s.md"] == "v2\n"


# ---------------------------------------------------------------- a real kernel, headless


def test_in_a_kernel_under_nbclient_a_change_fails_naming_yes_and_yes_sends_it(
        pointed_at_service, tmp_path, monkeypatch) -> None:
    """nbclient runs each cell with allow_stdin False: nobody can click, so a change with
    no `--yes` fails its cell (and sends nothing); with `--yes` it is sent, journaled so."""
    import nbformat

    from tests.notebook.notebook_runs import run_path, text_of

    refused = nbformat.v4.new_code_cell("%%project write claude/headless.md\nnot sent\n")
    refused.metadata["tags"] = ["raises-exception"]  # the run goes on past the failed cell
    cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_design_projects"),
        refused,
        nbformat.v4.new_code_cell("%%project write claude/headless-yes.md --yes\nsent\n"),
        nbformat.v4.new_code_cell(
            "entry = get_ipython().run_line_magic('project', 'history -n 1').data[0]\n"
            "print(entry['path'], entry['approved_by'])"),
    ]
    scratch = tmp_path / "headless-change.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), scratch)
    executed = run_path(scratch, tmp_path, monkeypatch)
    # the first call may show the transient "connecting" bar first, when the session begun
    # at %load_ext is not ready within host.QUIET_WAIT_S (a loaded machine): only that
    failed = [o for o in executed.cells[1].outputs if not connecting_bar(o)]
    # IPython shows a UsageError as one stderr line, no traceback
    assert [(o["output_type"], o.get("name")) for o in failed] == [("stream", "stderr")]
    assert failed[0]["text"].startswith("UsageError: ") and "--yes" in failed[0]["text"]
    assert "claude/headless-yes.md --yes" in text_of(executed.cells[3].outputs)
    docs = stored(pointed_at_service)
    assert "claude/headless.md" not in docs and docs["claude/headless-yes.md"] == "sent\n"


def connecting_bar(output: dict) -> bool:
    """Whether an output is the progress bar a first call shows while it connects: a
    transient panel, blanked to an empty text/plain when the call goes on (host.progress),
    or still showing its "connecting" step."""
    if output["output_type"] != "display_data":
        return False
    data = output.get("data", {})
    return data == {"text/plain": ""} or "connect" in json.dumps(data).lower()


# ---------------------------------------------------------------- a pending outcome


def test_a_pending_outcome_answers_hasattr_getattr_and_dir_without_raising(shell,
                                                                           live) -> None:
    from jupyter_design_projects.errors import AwaitingApproval

    pending = shell.run_cell_magic("project", "write kb/pending.md", "x\n")
    assert hasattr(pending, "no_such_name") is False
    assert getattr(pending, "no_such_name", "default") == "default"
    with pytest.raises(AttributeError) as caught:
        _ = pending.no_such_name
    assert not isinstance(caught.value, AwaitingApproval)
    assert {"data", "df", "is_error", "to_tool_result"} <= set(dir(pending))
    with pytest.raises(AwaitingApproval) as waiting:
        _ = pending.data  # an Outcome's name: it waits for the card
    assert waiting.value.operation == "project write"
    assert str(waiting.value).startswith("Projects write is awaiting approval")
    pending.card.approve()
    assert pending.data["path"] == "kb/pending.md" and not hasattr(pending, "no_such_name")


def test_a_pending_sync_names_its_own_pipeline(shell, live, tmp_path) -> None:
    from jupyter_design_projects.errors import AwaitingApproval

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n")
    pending = shell.run_line_magic("project", "sync notes --to kb")
    assert not hasattr(pending, "report")  # no Outcome has it: AttributeError, no wait
    with pytest.raises(AwaitingApproval) as waiting:
        _ = pending.is_error
    assert "Design" not in str(waiting.value)
    assert str(waiting.value).startswith("Projects sync is awaiting approval")
    pending.card.deny()


def test_a_card_names_the_project_by_its_name_and_id(shell, live, pointed_at_service) -> None:
    info = shell.run_line_magic("project", "info").data["project"]
    pending = shell.run_cell_magic("project", "write kb/named.md", "x\n")
    assert f"{info['name']} ({pointed_at_service.project_uuid})" in pending.card.header.value
    pending.card.deny()


def test_a_name_that_is_not_display_safe_is_left_out() -> None:
    from jupyter_design_projects.projects.change import ProjectChange

    change = ProjectChange("write", "a.md", "x", None, None, 0, 1, 10,
                           project_name="\u202eevil")  # a bidi override
    assert change.request("p-1").project == "p-1"
