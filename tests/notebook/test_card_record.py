"""A card's record: a saved notebook reopened with no kernel says what the card asked and
how it was answered, updated in place as the card is answered, every value escaped."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser

from jupyter_design_projects.design.approval import PendingApproval
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.views.card_record import UNANSWERED, CardRecord
from jupyter_design_projects.notebook.widgets.cards import BATCH_ONCE, DENIED, ApprovalCard
from tests.fakes.session import outcome, pending, request
from tests.hostile_content import all_payloads

BEACON = "http://127.0.0.1:9"
#: elements that run script or load something when HTML is parsed
ACTIVE = {"script", "iframe", "object", "embed", "img", "svg", "math", "style", "meta",
          "input", "link", "image", "video", "audio", "source"}


class Display:
    """IPython's display as a kernel gives it: records each display and each update."""

    def __init__(self) -> None:
        self.shown: list[dict] = []

    def __call__(self, obj, display_id=None):
        assert display_id is True
        self.shown.append(obj._repr_mimebundle_())
        return self

    def update(self, obj) -> None:
        self.shown.append(obj._repr_mimebundle_())


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        self.attrs.extend((k, v or "") for k, v in attrs)


def parsed(shown: str) -> Elements:
    elements = Elements()
    elements.feed(shown)
    return elements


def shown_card(*answers, kind="grant"):
    card = ApprovalCard(pending(kind), lambda *_a: answers[0], views.design_outcome)
    display = Display()
    card.record.show(display)
    return card, display


def test_an_unanswered_card_records_what_it_asks_and_that_nobody_answered():
    card, display = shown_card(outcome("write_files", {"written": 1}))
    shown = display.shown[-1]
    assert "Allow writes?" in shown["text/html"]
    assert "Quarterly &lt;Review&gt; Deck" in shown["text/html"]
    assert UNANSWERED in shown["text/plain"]
    assert "jdp-card-record" in shown["text/html"]
    assert card.record.answers == []


def test_approving_updates_the_record_with_the_answer_and_the_result():
    card, display = shown_card(outcome("write_files", {"written": 1}))
    card.approve()
    last = display.shown[-1]
    assert f"Answer: {BATCH_ONCE}" in last["text/plain"]
    assert UNANSWERED not in last["text/plain"]
    assert "Result:" in last["text/plain"] and "Wrote 1 file" in last["text/plain"]
    assert len(display.shown) >= 3  # shown, answered, finished: each an update in place


def test_denying_records_the_denial():
    card, display = shown_card(outcome("write_files", {}))
    card.deny()
    assert f"Answer: {DENIED}" in display.shown[-1]["text/plain"]


def test_a_follow_up_question_replaces_what_the_record_says_was_asked():
    follow = PendingApproval(request=dataclasses.replace(request("plan"), title="Then a plan?"),
                             operation="write_files", arguments={})
    card, display = shown_card(follow, kind="consent")
    card.approve()
    assert "Then a plan?" in display.shown[-1]["text/html"]
    assert display.shown[-1]["text/plain"].count("Answer:") == 1


def test_a_record_not_shown_updates_nothing_and_still_renders():
    record = CardRecord("<p>asked</p>", "asked")
    record.answered("approved")
    assert "approved" in record._repr_mimebundle_()["text/plain"]


def test_the_result_is_cut_and_says_so():
    record = CardRecord("", "asked")
    record.finished("x" * 10_000)
    assert record.result is not None and "cut at 4,000 characters" in record.result
    assert len(record.result) < 4100


def test_hostile_values_in_a_record_are_text_never_markup():
    hostile = all_payloads(BEACON)
    asked = dataclasses.replace(request(), title=hostile, project_name=hostile,
                                notes=(hostile,), writes=(hostile,))
    card = ApprovalCard(PendingApproval(request=asked, operation="write_files",
                                        arguments={}),
                        lambda *_a: outcome("write_files", {"note": hostile}),
                        views.design_outcome)
    card.record.answered(hostile)
    card.approve()
    elements = parsed(card.record._repr_mimebundle_()["text/html"])
    assert not ACTIVE & set(elements.tags), elements.tags
    assert not [k for k, _v in elements.attrs if k.startswith("on")]
    assert not [v for _k, v in elements.attrs if BEACON in v or "javascript:" in v]
