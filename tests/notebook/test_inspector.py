"""`%design inspect` / `%project inspect` against a real reference service, driven as a
person would: filter the catalogue, choose an operation, fill its generated form, Run,
answer the approval card inline, read the result (or the failure with its exchanges)."""

from __future__ import annotations

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.notebook.commands.run import inspect
from jupyter_design_projects.notebook.views.outcome import Outcome, PendingOutcome
from jupyter_design_projects.notebook.widgets.inspector import Inspector
from jupyter_design_projects.server.design.demo import DECK_ID
from tests.notebook.inspector_forms import fill_write


def deck_id(shell) -> str:
    return DECK_ID


def files_of(shell, project_id: str) -> set[str]:
    listing = shell.run_line_magic("design", f"list_files project_id={project_id}")
    return {f["path"] for f in listing.data}


def test_the_catalogue_is_the_services_and_the_filter_narrows_it(shell, live) -> None:
    inspector = inspect(live.host, "design")
    assert sorted(inspector.shown) == sorted(BY_NAME)
    inspector.filter.value = "MEMBER"
    assert sorted(inspector.shown) == ["add_member", "list_members", "remove_member",
                                       "update_member_role"]
    inspector.filter.value = "plan token"  # descriptions match too
    assert "copy_files" in inspector.shown
    assert "list_projects" not in inspector.shown


def test_every_operation_gets_its_form_from_the_served_schema(shell, live) -> None:
    inspector = inspect(live.host, "design")
    for name in inspector.shown:
        inspector.choose(name)
        assert inspector.chosen is not None
        assert inspector.chosen.name == name
        expected = [i.name for i in BY_NAME[name].inputs if not i.client_supplied]
        assert list(inspector.form.editors) == expected
    inspector.choose("add_member")
    assert "plan_token: the client supplies it itself" in inspector.about.value
    role = inspector.form.editors["role"].input
    assert [v for _label, v in role.options] == [None, "viewer", "commenter", "editor",
                                                 "admin"]
    inspector.choose("render_preview")
    width = inspector.form.editors["viewport"].editors["width"]
    assert "from 1 to 10,000" in width.label.value


def test_write_files_from_the_form_runs_through_consent_and_grant_cards(shell, live) -> None:
    deck = deck_id(shell)
    inspector = inspect(live.host, "design")
    fill_write(inspector, deck, "slides/09-inspected.html")
    inspector.run_button.click()
    pending = inspector.last
    assert isinstance(pending, PendingOutcome)
    assert pending.card.pending.request.kind == "consent"
    pending.card.approve()
    assert pending.card.pending.request.kind == "grant"
    final = pending.card.approve()
    assert isinstance(final, Outcome)
    assert not final.is_error
    assert shell.run_line_magic("design", "last") is pending
    assert "slides/09-inspected.html" in files_of(shell, deck)  # consent given above


def test_a_denied_card_from_the_inspector_writes_nothing(shell, live) -> None:
    shell.run_line_magic("design", "consent")
    deck = deck_id(shell)
    inspector = inspect(live.host, "design")
    fill_write(inspector, deck, "slides/10-denied.html")
    inspector.run_button.click()
    inspector.last.card.deny_button.click()
    assert inspector.last.is_error
    assert "slides/10-denied.html" not in files_of(shell, deck)


def test_deny_mode_fails_closed_from_the_inspector_too(shell, live) -> None:
    live.approval_mode = "deny"
    shell.run_line_magic("design", "consent")
    deck = deck_id(shell)
    inspector = inspect(live.host, "design")
    fill_write(inspector, deck, "slides/11-closed.html")
    inspector.run_button.click()
    assert isinstance(inspector.last, Outcome)
    assert inspector.last.is_error
    assert inspector.last.error.reason == "nobody_can_approve"
    assert "slides/11-closed.html" not in files_of(shell, deck)


def test_a_form_the_client_would_refuse_is_not_sent(shell, live) -> None:
    inspector = inspect(live.host, "design")
    shell.run_line_magic("design", "trace on")
    inspector.choose("read_file")
    inspector.form.editors["project_id"].input.value = "p1"
    inspector.form.editors["path"].input.value = "index.html"
    inspector.form.editors["limit"].input.value = "ten"
    before = len(live.session.trace.records())
    inspector.run_button.click()
    assert inspector.last is None
    assert "limit must be an integer" in inspector.status.value
    inspector.form.editors["limit"].input.value = ""
    inspector.form.editors["project_id"].input.value = ""
    inspector.run_button.click()
    assert "project_id is required" in inspector.status.value
    assert len(live.session.trace.records()) == before


def test_a_read_result_shows_as_its_outcome(shell, live) -> None:
    shell.run_line_magic("design", "consent")
    inspector = inspect(live.host, "design")
    inspector.choose("list_projects")
    inspector.form.editors["limit"].input.value = "2"
    inspector.run_button.click()
    outcome = inspector.last
    assert isinstance(outcome, Outcome) and not outcome.is_error
    assert len(outcome.data) == 2
    (shown,) = inspector.output.outputs
    assert shown["data"]["text/html"] == outcome._repr_mimebundle_()["text/html"]


def test_a_failure_shows_its_wire_exchange_when_the_trace_is_on(shell, live) -> None:
    shell.run_line_magic("design", "consent")
    shell.run_line_magic("design", "trace on")
    inspector = inspect(live.host, "design")
    inspector.choose("get_project")
    inspector.form.editors["project_id"].input.value = "00000000-0000-4000-8000-00000000dead"
    inspector.run_button.click()
    assert inspector.last.is_error
    outcome_shown, exchanges = inspector.output.outputs
    wire = exchanges["data"]["text/html"]
    assert "tools/call" in wire
    assert "00000000-0000-4000-8000-00000000dead" in wire
    secrets = [s.reveal() for s in live.session.secrets()]
    assert secrets
    assert not any(secret in wire for secret in secrets)


def test_with_the_trace_off_a_failure_says_how_to_see_its_exchange(shell, live) -> None:
    shell.run_line_magic("design", "consent")
    inspector = inspect(live.host, "design")
    inspector.choose("get_project")
    inspector.form.editors["project_id"].input.value = "00000000-0000-4000-8000-00000000dead"
    inspector.run_button.click()
    _outcome, note = inspector.output.outputs
    assert "%design trace on" in note["data"]["text/html"]


def test_project_inspect_offers_the_five_methods_and_runs_a_search(shell, live) -> None:
    inspector = inspect(live.host, "project")
    assert inspector.shown == ["project_info", "project_read", "project_search",
                               "project_write", "project_delete"]
    inspector.choose("project_search")
    editors = inspector.form.editors
    assert list(editors) == ["query", "n"]
    assert "from 1 to 15" in editors["n"].label.value
    editors["query"].input.value = "data retention"
    editors["n"].input.value = "16"
    inspector.run_button.click()
    assert "n must be at most 15" in inspector.status.value
    editors["n"].input.value = "2"
    inspector.run_button.click()
    assert not inspector.last.is_error
    assert 1 <= len(inspector.last.df) <= 2


def test_project_write_from_the_inspector_is_the_magics_write(shell, live) -> None:
    inspector = inspect(live.host, "project")
    inspector.choose("project_write")
    assert inspector.chosen is not None and inspector.chosen.destructive
    editors = inspector.form.editors
    editors["path"].input.value = "inspected.md"
    editors["content"].input.value = "from the inspector\n"
    inspector.run_button.click()
    result = inspector.last
    if isinstance(result, PendingOutcome):  # a change card, where %project asks first
        result.card.approve()
    read = shell.run_line_magic("project", "read claude/inspected.md")
    assert read.data["content"] == "from the inspector\n"


def test_the_magics_open_the_inspector(shell, live) -> None:
    design = shell.run_line_magic("design", "inspect")
    project = shell.run_line_magic("project", "inspect")
    assert (type(design), design.tool) == (Inspector, "design")
    assert (type(project), project.tool) == (Inspector, "project")
    assert "application/vnd.jupyter.widget-view+json" in design._repr_mimebundle_()
