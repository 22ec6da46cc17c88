"""The one error style against a real reference service: each expected failure fails the
cell with one line naming the next step, and `last` keeps the failed outcome."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.views.outcome import Outcome


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


def failure(shell, tool: str, line: str) -> str:
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic(tool, line)
    text = str(raised.value)
    assert "\n" not in text
    return text


def test_an_operation_typo_gets_a_did_you_mean(shell, live):
    text = failure(shell, "design", "list_projcts")
    assert "Did you mean 'list_projects'?" in text
    assert text.endswith("(The failed outcome: %design last.)")
    kept = shell.run_line_magic("design", "last")
    assert isinstance(kept, Outcome) and kept.is_error
    assert kept.error.kind == "unknown_operation"
    assert "Did you mean" not in failure(shell, "design", "zzzz_qqqq")


def test_delete_files_without_a_token_points_to_finalize_plan(shell, live):
    text = failure(shell, "design", 'delete_files project_id=x paths=["a.html"]')
    assert "'plan_token' is required" in text and "finalize_plan" in text


def test_a_write_to_a_missing_project_fails_before_any_card(shell, live):
    shell.run_line_magic("design", "consent")
    text = failure(shell, "design", "write_files project_id=nope files=[]")
    assert "'nope' names no Design project" in text and "%design list_projects" in text
    assert live.session.design.projects_seen == {}


def test_a_write_to_an_existing_project_still_shows_its_card(shell, live):
    shell.run_line_magic("design", "consent")
    projects = shell.run_line_magic("design", "list_projects")
    shell.user_ns["pid"] = projects.data[0]["id"]
    shell.user_ns["files"] = [{"path": "slides/x.html", "data": "<p>x</p>"}]
    pending = shell.run_line_magic("design", "write_files project_id=$pid files=$files")
    assert not pending.done and pending.card.pending.request.kind == "grant"
    assert shell.user_ns["pid"] in live.session.design.projects_seen


def test_a_plan_card_names_the_project_not_just_its_id(shell, live):
    shell.run_line_magic("design", "consent")
    projects = shell.run_line_magic("design", "list_projects")
    deck = next(p for p in projects.data if p["name"] == "Quarterly Review Deck")
    shell.user_ns["pid"] = deck["id"]
    plan = shell.run_line_magic(
        "design", "finalize_plan project_id=$pid writes='[\"slides/x.html\"]'")
    assert plan.card.pending.request.kind == "plan"
    assert f"Quarterly Review Deck ({deck['id']})" in plan.card.header.value


def test_restore_of_a_create_says_it_would_delete(shell, live):
    shell.run_cell_magic("project", "write fresh.md --yes", "x\n")
    entry = shell.run_line_magic("project", "history").data[0]
    assert entry["action"] == "create"
    text = failure(shell, "project", f"restore {entry['id']}")
    assert "would delete 'claude/fresh.md'" in text
    assert "Next: %project delete claude/fresh.md." in text
    info = shell.run_line_magic("project", "info")
    assert "claude/fresh.md" in info.df["path"].tolist()  # nothing was deleted


def test_operation_help_lists_the_fields_of_its_schema(shell, live, capsys):
    assert shell.run_line_magic("design", "write_files --help") is None
    shown = capsys.readouterr().out
    assert "Fields of write_files (from its input schema):" in shown
    rows = {line.split()[0]: " ".join(line.split()[1:]) for line in shown.splitlines()
            if line.startswith("  ")}
    assert rows["project_id"] == "string, required"
    assert rows["plan_token"] == "string, optional"
    # the objects of an array show their own fields
    assert rows["files"].startswith("array of object, required")
    assert rows["files[].path"] == "string, required"
    assert rows["files[].data"] == "string, required"
    assert rows["files[].if_match"] == "string, optional"
    shell.run_line_magic("design", "no_such_op --help")
    assert "not a known operation here" in capsys.readouterr().out


def test_a_connection_failure_names_the_url_and_what_to_do(shell, live):
    live.api_base_url = "http://127.0.0.1:9"
    live.close()
    text = failure(shell, "design", "list")
    assert "could not connect to http://127.0.0.1:9" in text
    assert "%config DesignProjects.api_base_url" in text


def test_deny_mode_names_the_setting(shell, live):
    shell.run_line_magic("design", "consent")
    live.approval_mode = "deny"
    projects = shell.run_line_magic("design", "list_projects")
    shell.user_ns["pid"] = projects.data[0]["id"]
    text = failure(shell, "design", "write_files project_id=$pid files=[]")
    assert "approval_mode is 'deny'" in text
    assert "%config DesignProjects.approval_mode = 'auto'" in text
    assert "nbclient" not in text


def test_the_outcome_flag_and_setting_return_outcomes(shell, live):
    shell.run_line_magic("design", "consent")
    out = shell.run_line_magic("design", "--outcome get_project project_id=nope")
    assert isinstance(out, Outcome) and out.is_error
    live.errors = "outcome"
    out = shell.run_line_magic("project", "read no-such-doc.md")
    assert out.is_error and out.error.kind == "doc_not_found"
    assert shell.run_line_magic("project", "last") is out


def test_status_names_the_projects_of_its_plans(shell, live):
    shell.run_line_magic("design", "consent")
    projects = shell.run_line_magic("design", "list_projects")
    deck = next(p for p in projects.data if p["name"] == "Quarterly Review Deck")
    shell.user_ns["pid"] = deck["id"]
    plan = shell.run_line_magic(
        "design", "finalize_plan project_id=$pid writes='[\"slides/x.html\"]'")
    assert not plan.card.approve().is_error
    live.session.design.projects_seen.clear()  # a name not known yet is looked up (read-only)
    status = shell.run_line_magic("design", "status")
    assert f"Plan for Quarterly Review Deck ({deck['id']}): writes slides/x.html" in status.body
    assert live.session.design.projects_seen == {deck["id"]: "Quarterly Review Deck"}


def test_a_missing_project_and_a_deck_name_each_name_one_next_step(shell, live):
    shell.run_line_magic("design", "consent")
    for tool, line in (("design", "get_project project_id=nope"), ("project", 'search ""'),
                       ("design", 'deck open "No Such Deck"'),
                       ("design", "write_files project_id=nope files=[]"),
                       ("project", "read no-such-doc.md"), ("project", "restore 99999")):
        text = failure(shell, tool, line)
        said, _, step = text.partition(" Next: ")
        assert text.count("Next:") == 1 and said.endswith("."), text
        assert "%design" not in said and "%project" not in said, text
