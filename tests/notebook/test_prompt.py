"""`ask_in_notebook`, the `approve` callback of AgentTools at a notebook: the card is shown as
HTML, the answer read from the input prompt; anything but a clear yes denies."""

from __future__ import annotations

import pytest

from jupyter_design_projects.agent_tools import projects_request
from jupyter_design_projects.core.cards import APPROVE_FOR_PROJECT, ApprovalRequest
from jupyter_design_projects.notebook import prompt

WRITE = projects_request("project_write", {"path": "claude/a.md", "content": "<b>x</b>"},
                         "0f8fad5b-d9cb-469f-a165-70867728950e")
GRANT = ApprovalRequest(kind="grant", operation="write_files", title="Grant?",
                        buttons=("Approve", APPROVE_FOR_PROJECT, "Deny"))


@pytest.fixture
def shown(monkeypatch) -> list:
    seen: list = []
    import IPython.display

    monkeypatch.setattr(IPython.display, "display", lambda obj: seen.append(obj))
    return seen


@pytest.mark.parametrize(("request_", "typed", "answer"), [
    (WRITE, "y", "once"), (WRITE, " YES ", "once"), (WRITE, "", None), (WRITE, "n", None),
    (WRITE, "p", None),  # no durable grant on this card: not a yes
    (GRANT, "p", "project"), (GRANT, "y", "once"), (GRANT, "maybe", None),
])
def test_the_typed_answer_decides(shown, request_, typed, answer) -> None:
    prompts: list[str] = []
    got = prompt.ask_in_notebook(request_, read=lambda text: prompts.append(text) or typed)
    assert got == answer
    assert ("[p]roject" in prompts[0]) is request_.allows_durable


def test_the_card_is_shown_escaped_before_the_question(shown) -> None:
    prompt.ask_in_notebook(WRITE, read=lambda text: "n")
    html = shown[0].data
    assert "claude/a.md" in html and "<b>x</b>" not in html and "&lt;b&gt;" in html


@pytest.mark.parametrize("failure", [EOFError, RuntimeError, KeyboardInterrupt])
def test_no_input_prompt_denies(shown, failure) -> None:
    def read(text: str) -> str:
        raise failure()

    assert prompt.ask_in_notebook(WRITE, read=read) is None
