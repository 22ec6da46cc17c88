"""A card's record: what an approval card asked and how it was answered, as plain HTML and
text shown beside the live widget, so a saved notebook reopened with no kernel still says
what happened. JupyterLab draws a widget whose model is gone as "Error displaying widget:
model not found" and never falls back to another type of the same output, so the record is
an output of its own (shown with a display id, and updated through it when the card is
answered: JupyterLab routes an update by its display id to the cell that showed it, and
saves it). While the live card is on the page the labextension's stylesheet hides the
record. Every value in it is escaped: nothing from a service runs or loads in it."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

#: the record's first line (the card itself needs its kernel)
HEADING = "Approval card, as saved"
#: said when the notebook was saved before anyone answered
UNANSWERED = "Not answered when this was saved."
#: the cut of the final result's text kept in the record
RESULT_MAX_CHARS = 4000


class CardRecord:
    """The record of one card: `asked` (the card's body, escaped HTML), `answers` (each
    status line, oldest first) and `result` (the final outcome's plain text)."""

    def __init__(self, asked_html: str, asked_text: str) -> None:
        self.asked_html = asked_html
        self.asked_text = asked_text
        self.answers: list[str] = []
        self.result: str | None = None
        self._handle: Any = None

    def show(self, display: Callable[..., Any] | None = None) -> None:
        """Display the record with a display id, so later answers update it in place
        (`display`: IPython's, unless given; it returns the handle that updates)."""
        if display is None:
            from IPython.display import display as shown
        else:
            shown = display
        self._handle = shown(self, display_id=True)

    def asked(self, asked_html: str, asked_text: str) -> None:
        """A follow-up question replaced the card's body."""
        self.asked_html, self.asked_text = asked_html, asked_text
        self._update()

    def answered(self, said: str) -> None:
        self.answers.append(said)
        self._update()

    def answers_are(self, lines: list[str]) -> None:
        """Every answer so far (a card whose last status line was corrected)."""
        self.answers = list(lines)
        self._update()

    def finished(self, outcome: Any) -> None:
        """The final outcome: its plain text is kept, cut at RESULT_MAX_CHARS."""
        bundle = outcome._repr_mimebundle_() if hasattr(outcome, "_repr_mimebundle_") else {}
        text = str(bundle.get("text/plain", outcome))
        self.result = text if len(text) <= RESULT_MAX_CHARS else (
            text[:RESULT_MAX_CHARS] + f"… (cut at {RESULT_MAX_CHARS:,} characters)")
        self._update()

    def _update(self) -> None:
        if self._handle is not None:
            self._handle.update(self)

    def _answer_lines(self) -> list[str]:
        return self.answers or [UNANSWERED]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        answers = "".join(f"<li>{html.escape(line)}</li>" for line in self._answer_lines())
        result = (f'<div><b>Result</b><pre style="white-space:pre-wrap;margin:2px 0">'
                  f"{html.escape(self.result)}</pre></div>") if self.result else ""
        shown = (f'<div class="jdp-card-record" role="group" aria-label="{HEADING}" '
                 f'style="border:1px dashed var(--jp-border-color1, #9e9e9e);padding:6px">'
                 f"<p style=\"margin:0 0 4px\"><b>{HEADING}</b> (re-run the cell to be asked "
                 f"again)</p>{self.asked_html}<div><b>Answer</b><ul style=\"margin:2px 0\">"
                 f"{answers}</ul></div>{result}</div>")
        text = "\n".join([f"{HEADING}: {self.asked_text}",
                          *(f"Answer: {line}" for line in self._answer_lines()),
                          *([f"Result:\n{self.result}"] if self.result else [])])
        return {"text/html": shown, "text/plain": text}

    def __repr__(self) -> str:
        return f"<CardRecord {len(self.answers)} answer(s)>"
