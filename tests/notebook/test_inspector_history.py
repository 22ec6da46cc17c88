"""One history of every call (magics, inspector, Python) against a real reference service:
`%design calls` as a table, a replay with changed arguments under the same cards, a
diff of two results, and a call copied as a cell, a Python line or the trace's curl."""

from __future__ import annotations

import json
from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.commands.history_view import RENAMED
from jupyter_design_projects.notebook.commands.run import inspect
from jupyter_design_projects.notebook.grammar import parse as grammar
from jupyter_design_projects.notebook.views.outcome import Outcome, PendingOutcome
from jupyter_design_projects.server.design.demo import DECK_ID

SLIDE = "<!doctype html><html><body><h2>Replayed</h2></body></html>"


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def live(live, shell):
    """The conftest's `live`, with Design consent given."""
    shell.run_line_magic("design", "consent")
    return live


def history(shell) -> Any:
    return shell.run_line_magic("design", "calls")


def write(shell, path: str) -> PendingOutcome:
    shell.user_ns["files"] = [{"path": path, "data": SLIDE}]
    pending = shell.run_line_magic("design", f"write_files project_id={DECK_ID} files=$files")
    assert isinstance(pending, PendingOutcome)
    return pending


def files_of(shell) -> set[str]:
    listing = shell.run_line_magic("design", f"list_files project_id={DECK_ID}")
    return {f["path"] for f in listing.data}


def test_calls_from_the_magics_the_inspector_and_python_share_one_history(shell, live):
    shell.run_line_magic("design", "list_projects limit=1")
    inspector = inspect(live.host, "design")
    inspector.choose("get_project")
    inspector.form.editors["project_id"].input.value = DECK_ID
    inspector.run_button.click()
    live.session.design_call("list_members", {"project_id": DECK_ID})
    shell.run_line_magic("project", 'search "data retention" -n 2')
    rows = history(shell).df
    assert rows["operation"].tolist() == ["search", "list_members", "get_project",
                                          "list_projects"]
    assert rows["tool"].tolist() == ["project", "design", "design", "design"]
    assert set(rows["state"]) == {"ok"}
    assert rows["n"].tolist() == sorted(rows["n"].tolist(), reverse=True)
    assert json.loads(rows["arguments"].iloc[2]) == {"project_id": DECK_ID}
    assert (rows["elapsed_ms"] >= 0).all()
    shown = history(shell)._repr_mimebundle_()["text/html"]
    assert "list_members" in shown and "<th>operation</th>" in shown.replace(" ", "")


def test_a_call_waits_in_the_history_until_its_card_is_answered(shell, live):
    pending = write(shell, "slides/20-waiting.html")
    assert history(shell).df["state"].iloc[0] == "awaiting approval"
    pending.card.approve()
    row = history(shell).df.iloc[0]
    assert (row["operation"], row["state"]) == ("write_files", "ok")


def test_a_denied_card_is_an_error_in_the_history(shell, live):
    write(shell, "slides/21-denied.html").card.deny()
    row = history(shell).df.iloc[0]
    assert row["state"] == "error"
    assert row["summary"].startswith("permission_denied")


def test_a_replay_with_a_changed_path_asks_again_and_writes_the_new_path(shell, live):
    write(shell, "slides/22-first.html").card.approve()
    first = int(history(shell).df["n"].iloc[0])
    changed = json.dumps({"files": [{"path": "slides/23-replayed.html", "data": SLIDE}]})
    replay = shell.run_line_magic("design", f"calls --replay {first} --with '{changed}'")
    assert isinstance(replay, PendingOutcome)
    assert replay.card.pending.request.writes == ("slides/23-replayed.html",)
    assert isinstance(replay.card.approve(), Outcome)
    assert {"slides/22-first.html", "slides/23-replayed.html"} <= files_of(shell)


def test_a_replay_takes_its_changes_from_the_cell_body_too(shell, live):
    shell.run_line_magic("design", "list_projects limit=1")
    n = int(history(shell).df["n"].iloc[0])
    again = shell.run_cell_magic("design", f"calls --replay {n}", '{"limit": 2}')
    assert len(again.data) == 2
    assert json.loads(history(shell).df["arguments"].iloc[0]) == {"limit": 2}


def test_a_diff_shows_what_changed_between_two_results(shell, live):
    files_of(shell)
    write(shell, "slides/24-diffed.html").card.approve()
    files_of(shell)
    rows = history(shell).df
    listed = rows[rows["operation"] == "list_files"]["n"].tolist()
    diffed = shell.run_line_magic("design", f"calls --diff {listed[1]} {listed[0]}")
    added = [line for line in diffed.text.splitlines() if line.startswith("+ ")]
    assert any("slides/24-diffed.html" in line for line in added)
    same = shell.run_line_magic("design", f"calls --diff {listed[0]} {listed[0]}")
    assert same.text == "The two results are the same."


def test_a_call_copied_as_a_cell_parses_back_to_the_same_call(shell, live):
    shell.run_line_magic("design", f"list_files project_id={DECK_ID} depth=1")
    n = int(history(shell).df["n"].iloc[0])
    cell = shell.run_line_magic("design", f"calls --copy {n}").text
    head, _, body = cell.partition("\n")
    assert head == "%%design list_files"
    parsed = grammar.parse_design(head.removeprefix("%%design "), body, {})
    assert parsed.args == {"operation": "list_files",
                           "arguments": {"project_id": DECK_ID, "depth": 1}}


def test_a_projects_call_copied_as_a_cell_runs_as_the_same_line(shell, live):
    shell.run_line_magic("project", 'search "data retention" -n 2')
    n = int(history(shell).df["n"].iloc[0])
    line = shell.run_line_magic("design", f"calls --copy {n}").text
    assert line == "%project search 'data retention' -n 2"
    again = shell.run_line_magic("project", line.removeprefix("%project "))
    assert len(again.df) <= 2


def test_a_call_copied_as_python_names_the_session_api(shell, live):
    shell.run_line_magic("design", f"get_project project_id={DECK_ID}")
    n = int(history(shell).df["n"].iloc[0])
    line = shell.run_line_magic("design", f"calls --copy {n} --as python").text
    assert line == (f"session.design_call('get_project', {{'project_id': '{DECK_ID}'}}, "
                    "approve=approve)")
    shell.run_cell_magic("project", "write copied.md", "text\n").card.approve()
    n = int(history(shell).df["n"].iloc[0])
    line = shell.run_line_magic("design", f"calls --copy {n} --as python").text
    # the path the card showed and approved (a bare name lands under claude/)
    assert line == ("session.project.write(path='claude/copied.md', content='text\\n', "
                    "approve=approve)")


def test_a_call_copied_as_curl_is_its_traced_exchange_without_the_token(shell, live):
    shell.run_line_magic("design", f"get_project project_id={DECK_ID}")
    untraced = int(history(shell).df["n"].iloc[0])
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("design", f"calls --copy {untraced} --as curl")
    assert "%design trace on" in str(refused.value)
    shell.run_line_magic("design", "trace on")
    shell.run_line_magic("design", f"get_project project_id={DECK_ID}")
    n = int(history(shell).df["n"].iloc[0])
    curl = shell.run_line_magic("design", f"calls --copy {n} --as curl").command
    assert '"method":"tools/call"' in curl.replace(" ", "") or "tools/call" in curl
    assert DECK_ID in curl
    assert not any(s.reveal() in curl for s in live.session.secrets())


def test_plan_tokens_are_never_shown_in_the_table_or_the_copies(shell, live):
    shell.run_line_magic("design", f"list_files project_id={DECK_ID}")
    live.session.history.get(int(history(shell).df["n"].iloc[0])).arguments[
        "plan_token"] = "pt_secret_value"
    n = int(history(shell).df["n"].iloc[0])
    assert "pt_secret_value" not in history(shell).df["arguments"].iloc[0]
    for form in ("cell", "python"):
        assert "pt_secret_value" not in shell.run_line_magic(
            "design", f"calls --copy {n} --as {form}").text


def test_the_inspector_loads_a_past_call_to_edit_and_run_again(shell, live):
    write(shell, "slides/25-loaded.html").card.approve()
    n = int(history(shell).df["n"].iloc[0])
    inspector = inspect(live.host, "design")
    inspector.past.value = n
    assert inspector.chosen is not None and inspector.chosen.name == "write_files"
    entry = inspector.form.editors["files"].items[0]
    assert entry.editors["path"].input.value == "slides/25-loaded.html"
    entry.editors["path"].input.value = "slides/26-edited.html"
    inspector.run_button.click()
    assert isinstance(inspector.last, PendingOutcome)
    assert inspector.last.card.pending.request.writes == ("slides/26-edited.html",)
    inspector.last.card.approve()
    assert "slides/26-edited.html" in files_of(shell)


def test_an_unknown_call_number_is_a_usage_error(shell, live):
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("design", "calls --copy 999")
    assert "no call 999" in str(refused.value)


def test_the_python_facade_and_the_projects_magics_are_in_the_history_too(shell, live):
    live.session.project.search("data retention", 1)
    shell.run_line_magic("project", "read data-retention-policy.md")
    rows = history(shell).df
    assert rows["operation"].tolist()[:2] == ["read", "search"]
    assert json.loads(rows["arguments"].iloc[1]) == {"query": "data retention", "n": 1}
    assert json.loads(rows["arguments"].iloc[0]) == {"path": "data-retention-policy.md"}


def test_the_former_name_runs_the_call_history_and_says_it_was_renamed(shell, live):
    shell.run_line_magic("design", "status")
    live.session.project.search("data retention", 1)
    former = shell.run_line_magic("design", "history")
    assert former.notice.startswith(RENAMED)
    assert former.data == history(shell).data
    assert [row["tool"] for row in former.data] == ["project"]
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("design", "history --copy 999")
    assert "no call 999" in str(refused.value)


def test_a_replay_changes_one_nested_field_by_its_pointer(shell, live):
    write(shell, "slides/27-first.html").card.approve()
    first = int(history(shell).df["n"].iloc[0])
    replay = shell.run_line_magic(
        "design", f"""calls --replay {first} --with '{{"files/0/path": "slides/28-b.html"}}'""")
    assert isinstance(replay, PendingOutcome)
    assert replay.card.pending.request.writes == ("slides/28-b.html",)
    replay.card.approve()
    sent = history(shell).df
    assert json.loads(sent["arguments"].iloc[0])["files"] == [
        {"path": "slides/28-b.html", "data": SLIDE}]  # the rest of the item as it was


def test_a_replay_pointer_that_names_nothing_fails_the_cell_and_sends_nothing(shell, live):
    write(shell, "slides/29-first.html").card.approve()
    first = int(history(shell).df["n"].iloc[0])
    calls = len(live.session.history)
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic(
            "design", f"""calls --replay {first} --with '{{"files/3/path": "x.html"}}'""")
    assert "'files/3/path' names nothing" in str(refused.value)
    assert "index 3 is past the end (the array has 1 item)" in str(refused.value)
    assert len(live.session.history) == calls


def test_the_inspectors_history_list_follows_calls_made_anywhere(shell, live):
    inspector = inspect(live.host, "design")
    pending = write(shell, "slides/30-followed.html")  # a magic, after the inspector opened
    n = int(history(shell).df["n"].iloc[0])
    labels = dict((value, label) for label, value in inspector.past.options)
    assert labels[n] == f"#{n} write_files (awaiting approval)"
    inspector.past.value = n  # chosen: a refresh keeps it and does not load it again
    inspector.form.editors["project_id"].input.value = "edited in the form"
    pending.card.approve()
    labels = dict((value, label) for label, value in inspector.past.options)
    assert labels[n] == f"#{n} write_files (ok)"
    assert inspector.past.value == n
    assert inspector.form.editors["project_id"].input.value == "edited in the form"


def test_copied_code_carries_the_mime_type_the_labextension_draws_buttons_for(shell, live):
    from pathlib import Path

    from jupyter_design_projects.notebook.commands.history_view import CODE_MIME

    shell.run_line_magic("design", "list_projects limit=1")
    n = int(history(shell).df["n"].iloc[0])
    cell = shell.run_line_magic("design", f"calls --copy {n}")._repr_mimebundle_()
    assert cell[CODE_MIME] == {"code": "%%design list_projects\n{\n  \"limit\": 1\n}",
                               "insert": True}
    assert "<button" not in cell["text/html"]  # no button where nothing draws one
    diffed = shell.run_line_magic("design", f"calls --diff {n} {n}")._repr_mimebundle_()
    assert CODE_MIME not in diffed  # a diff is not code to run
    source = Path(__file__).resolve().parents[2] / "labextension" / "src" / "code.ts"
    assert f"export const CODE_MIME = '{CODE_MIME}';" in source.read_text()
