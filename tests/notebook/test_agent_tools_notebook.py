"""notebooks/agent_tools.ipynb runs headless against a fresh reference service: the scripted
tool_use sequence gets its tool_result blocks through the permission path (a Projects write
approved on its card, a delete denied, a project id refused, a Design write through the
consent and grant cards)."""

from __future__ import annotations

import json

import nbformat

from tests.notebook.notebook_runs import NOTEBOOKS, outputs, run, text_of


def test_the_agent_tools_notebook_is_valid_and_has_no_stored_outputs() -> None:
    book = nbformat.read(NOTEBOOKS / "agent_tools.ipynb", as_version=4)
    nbformat.validate(book)
    assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code")


def test_the_agent_tools_notebook_runs_its_tool_use_sequence(
        pointed_at_service, tmp_path, monkeypatch) -> None:
    book = run("agent_tools", tmp_path, monkeypatch)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.get("output_type") == "error"], cell.source
    turns = text_of(outputs(book, "for block in turns:"))
    for line in ("toolu_01 project_info ok", "toolu_02 project_search ok",
                 "toolu_03 project_write ok", "toolu_04 project_delete error",
                 "toolu_05 project_info error", "toolu_06 list_projects ok"):
        assert line in turns, line
    checked = text_of(outputs(book, 'written = json.loads(results["toolu_03"]'))
    assert "claude/agent-summary.md False True" in checked
    assert "projects_change_denied" in checked and "invalid_projects_argument" in checked
    # one card per write and delete the model asked for, and Design's consent card
    assert ("[('operation', 'project_write', ('claude/agent-summary.md',)), "
            "('operation', 'project_delete', ('onboarding.md',)), "
            "('consent', 'list_projects', ())]") in checked
    design = json.loads(text_of(outputs(book, "write = tools.handle_tool_use(")))[0]
    assert design.startswith("ok ['grant']"), design
    assert "slides/05-agent-notes.html" in design
