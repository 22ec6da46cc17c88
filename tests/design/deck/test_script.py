"""Decks from plain Python against the real reference service: a script in its own process
stages a notebook's slides, pushes them under an `approve` callback that sees every plan's
card, and exports the PDF and the HTML, without loading ipywidgets; a denying callback
writes nothing; where nobody can answer, a push fails closed before any card; and the
model's tools stage and push under the same approvals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jupyter_design_projects.agent_tools import AgentTools
from jupyter_design_projects.errors import PermissionRefused
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.worker_processes import copied_credentials

TALK = Path(__file__).parents[2] / "fixtures" / "talk"

SCRIPT = textwrap.dedent('''
    import json, sys
    from jupyter_design_projects import Session

    answer = sys.argv[1]
    seen = []

    def approve(request):
        seen.append({"kind": request.kind, "operation": request.operation,
                     "writes": list(request.writes), "text": request.text})
        return "once" if answer == "approve" else None

    with Session.open(can_ask=lambda: True) as session:
        session.run(session.design.consent())
        deck = session.deck.new("Script talk " + answer, approve=lambda request: "once")
        reading = deck.add_notebook("talk/talk.ipynb")
        deck.theme("dark")
        staged = [row["path"] for row in deck.staged_rows()]
        pushed = deck.push(approve=approve)
        files = session.design_call("list_files", {"project_id": deck.project_id}).data
        exported = {}
        if pushed.complete:
            for name in ("talk.pdf", "talk.html"):
                done = deck.export(name)
                exported[name] = {"kind": done.kind, "bytes": len(done.data),
                                  "slides": done.slides}
        print(json.dumps({
            "slides": [s.path for s in reading.slides], "staged": staged,
            "plans": [list(b) for b in pushed.batches], "seen": seen,
            "written": pushed.written,
            "failures": [getattr(f.error, "reason", None) for f in pushed.failures],
            "project_files": sorted(f["path"] for f in files if f.get("type") == "file"),
            "exported": exported,
            "widgets": "ipywidgets" in sys.modules}))
''')


def run_script(service, tmp_path: Path, answer: str) -> dict:
    shutil.copytree(TALK, tmp_path / "talk")
    (tmp_path / "script.py").write_text(SCRIPT)
    env = {**os.environ, **service.client_env(), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("CLAUDE_SESSION_JWT", None)
    done = subprocess.run([sys.executable, "script.py", answer], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.kernel
def test_a_script_stages_a_notebook_pushes_under_approve_and_exports(
        reference_service, tmp_path):
    out = run_script(reference_service, tmp_path, "approve")
    assert out["widgets"] is False
    assert out["slides"] and set(out["slides"]) <= set(out["staged"])
    # every plan's card went to approve, as the plan card a notebook draws
    assert [card["writes"] for card in out["seen"]] == out["plans"]
    assert {card["kind"] for card in out["seen"]} == {"plan"}
    assert {card["operation"] for card in out["seen"]} == {"finalize_plan"}
    assert all(path in card["text"] for card in out["seen"] for path in card["writes"])
    assert sorted(out["written"]) == sorted(out["staged"]) == sorted(
        p for plan in out["plans"] for p in plan)
    assert set(out["staged"]) <= set(out["project_files"])
    assert out["exported"]["talk.pdf"]["kind"] == "PDF"
    assert (tmp_path / "talk.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "talk.html").stat().st_size == out["exported"]["talk.html"]["bytes"]
    assert out["exported"]["talk.pdf"]["slides"] == out["slides"]


@pytest.mark.kernel
def test_a_denying_callback_writes_nothing(reference_service, tmp_path):
    out = run_script(reference_service, tmp_path, "deny")
    assert out["seen"] and [card["writes"] for card in out["seen"]] == out["plans"]
    assert out["written"] == [] and out["project_files"] == []
    assert out["failures"] == ["denied_on_card"] * len(out["plans"])
    assert out["exported"] == {} and not (tmp_path / "talk.pdf").exists()


# -- in this process ---------------------------------------------------------------------
@pytest.fixture
def session_for(reference_service, tmp_path):
    opened: list[Session] = []

    def open_(can_ask: bool) -> Session:
        settings = Settings.resolve({}, {
            "api_base_url": reference_service.base_url,
            "org_uuid": reference_service.org_uuid,
            "project_uuid": reference_service.project_uuid,
            "credentials_file": str(copied_credentials(reference_service,
                                                       tmp_path / "creds"))})
        session = Session(settings, data_dir=tmp_path / f"data{len(opened)}",
                          can_ask=lambda: can_ask)
        opened.append(session)
        session.run(session.design.consent())
        return session

    yield open_
    for session in opened:
        session.close()


def test_a_denied_create_card_creates_no_project(session_for):
    session = session_for(True)
    seen = []
    with pytest.raises(PermissionRefused) as refused:
        session.deck.new("Never made", approve=lambda request: seen.append(request))
    assert refused.value.reason == "denied_on_card"
    assert [r.operation for r in seen] == ["create_project"]
    names = [p["name"] for p in session.design_call("list_projects", {}).data]
    assert "Never made" not in names


def test_where_nobody_can_answer_a_push_fails_closed_before_any_card(session_for, tmp_path):
    made = session_for(True).deck.new("Closed deck", approve=lambda request: "once")
    session = session_for(False)  # papermill, nbclient: nobody can answer
    deck = session.deck.open(made.project_id)
    deck.add_markdown("slides/01-a.html", "# A\n")
    seen: list = []
    pushed = deck.push(approve=seen.append)
    assert seen == [] and pushed.written == [] and pushed.pending == {}
    assert pushed.refused is not None
    reason = getattr(getattr(pushed.refused, "error", pushed.refused), "reason", None)
    assert reason == "nobody_can_approve"


def test_agent_tools_stage_and_push_under_the_same_approvals(session_for, tmp_path):
    session = session_for(True)
    seen: list = []
    tools = AgentTools(session, approve=lambda request: seen.append(request) or "once")
    deck = tools.new_deck("Agent deck")
    deck.add_markdown("slides/01-agent.html", "# From an agent\n")
    pushed = deck.push()
    assert [r.operation for r in seen] == ["create_project", "finalize_plan"]
    assert pushed.written == ["slides/01-agent.html"] and pushed.complete
    repeated = deck.push()  # the project holds every staged file: no card, nothing sent
    assert repeated.batches == [] and repeated.complete and len(seen) == 2
    again = tools.open_deck(deck.project_id)
    assert again.staged_rows() == []
    denied = AgentTools(session)  # no approve: nothing is approved
    other = denied.open_deck(deck.project_id)
    other.add_markdown("slides/02-more.html", "# More\n")
    assert other.push().written == []
