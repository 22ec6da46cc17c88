"""`ask_in_notebook`: the `approve` callback of `AgentTools` for a person at a notebook. A
running cell cannot receive a widget click (the kernel handles the click after the cell),
so the card is shown as HTML — the same `card_html` the approval widget renders — and the
answer is read from the cell's input prompt. Where the frontend has no input prompt
(nbclient, papermill) nobody can answer, and the call is denied."""

from __future__ import annotations

from collections.abc import Callable

from ..core.cards import ApprovalRequest
from .views.card_body import card_html

#: what the input prompt accepts, per answer
ANSWERS = {"y": "once", "yes": "once", "p": "project", "project": "project"}


def ask_in_notebook(request: ApprovalRequest, *,
                    read: Callable[[str], str] | None = None) -> str | None:
    """Show the card, then "once", "project" (where the card offers it) or None."""
    from IPython.display import HTML, display

    display(HTML(card_html(request)))
    choices = "[y]es once, [p]roject, [N]o" if request.allows_durable else "[y]es, [N]o"
    try:
        typed = (read or input)(f"Approve {request.operation}? {choices}: ")
    except (EOFError, RuntimeError, KeyboardInterrupt):  # no input prompt here
        return None
    answer = ANSWERS.get(typed.strip().lower())
    if answer == "project" and not request.allows_durable:
        return None
    return answer
