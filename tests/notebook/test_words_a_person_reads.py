"""Every word a person reads is meant for a person: the text and HTML of the outcomes,
cards and answers of a broad set of magics — successes, a denied card, errors, a deck
push, a sync, copied code — against a real reference service, scanned for a Python repr
(`{'`, `[{'`), a literal backtick, an escaped line break, and developer hints
(`plan_token=`, `remedy:`, a remedy's action name, "Nothing to do")."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.errors.remedy import ACTIONS

#: what no reader should meet: reprs, backticks, escapes, developer hints
FORBIDDEN = ("{'", "['", "`", "\\n", "plan_token=", "remedy:", "remedy=", "Nothing to do",
             "0.0 of 0.0", "Remedy(", "<Outcome", "<PendingOutcome")
#: a remedy's action names (run_again, approve_elsewhere, …) read as code, not words
#: (but finalize_plan and list_projects are Design operations: a catalogue names them)
OPERATIONS = frozenset({"finalize_plan", "list_projects"})
ACTION_NAME = re.compile(r"\b(" + "|".join(a for a in ACTIONS if "_" in a
                                            and a not in OPERATIONS) + r")\b")


def visible_text(value: Any) -> str:
    """The words a frontend shows for a string of HTML: tags out, entities read."""
    without_style = re.sub(r"<(style|script)\b.*?</\1>", " ", value, flags=re.S)
    without_tags = re.sub(r"<[^>]+>", " ", without_style)
    return html.unescape(without_tags)


def read_all(thing: Any, into: list[str], seen: set[int] | None = None) -> list[str]:
    """Every text a person can read in `thing`: its rich display (plain and HTML) and,
    for a widget, its children, labels, buttons and the displays in its outputs."""
    seen = set() if seen is None else seen
    if id(thing) in seen or thing is None:
        return into
    seen.add(id(thing))
    if isinstance(thing, str):
        into.append(thing)
        return into
    import ipywidgets as w

    if isinstance(thing, w.Widget):
        for name in ("value", "description", "placeholder", "tooltip"):
            value = getattr(thing, name, None)
            if isinstance(value, str):
                into.append(visible_text(value))
        if isinstance(thing, w.Output):
            for output in thing.outputs:
                data = output.get("data", {})
                into.append(data.get("text/plain", ""))
                into.append(visible_text(data.get("text/html", "")))
                into.append(output.get("text", ""))
        for child in getattr(thing, "children", ()):
            read_all(child, into, seen)
        return into
    bundle = thing._repr_mimebundle_() if hasattr(thing, "_repr_mimebundle_") else {}
    into.append(bundle.get("text/plain", ""))
    into.append(visible_text(bundle.get("text/html", "")))
    for part in ("card", "cards", "widget", "outcome", "output", "status"):
        try:  # a pending outcome's attributes wait for its card
            inner = getattr(thing, part, None)
        except Exception:
            inner = None
        for item in inner if isinstance(inner, list) else [inner]:
            if item is not thing and not isinstance(item, str):
                read_all(item, into, seen)
    return into


def developer_words(texts: list[str]) -> list[str]:
    """Each text with a forbidden word in it, with the word."""
    found = []
    for text in texts:
        for word in FORBIDDEN:
            if word in text:
                found.append(f"{word!r} in {text[:300]!r}")
        match = ACTION_NAME.search(text)
        if match:
            found.append(f"{match.group(0)!r} in {text[:300]!r}")
    return found


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


def test_the_scan_finds_each_kind_of_developer_text() -> None:
    """The scan itself: each thing the issue named is caught."""
    for said in ("remedy: {'action': 'run_again', 'why': 'to be asked again'} · method: w",
                 "pass plan_token=… to the writes",
                 "undo: `%project delete notes/w.md`",
                 "upload: 0.0 of 0.0 MiB",
                 "Your sign-in now also covers this notebook's Project. Nothing to do.",
                 "# Data retention policy\\n\\nThis policy",
                 "Next: approve_elsewhere"):
        assert developer_words([said]), said
    assert developer_words(["Created kb/a.md (12 bytes) · to undo it: %project delete "
                            "kb/a.md"]) == []


def run(shell, line: str, cell: str | None = None) -> Any:
    tool, rest = line.split(" ", 1)
    if cell is not None:
        return shell.run_cell_magic(tool, rest, cell)
    return shell.run_line_magic(tool, rest)


def test_projects_magics_successes_denials_errors_and_sync_read_as_words(
        shell, live, tmp_path: Path) -> None:
    texts: list[str] = []
    for line in ("project info", "project history -n 5"):
        read_all(run(shell, line), texts)
    # a doc's own text (a passage of it, its content) is the Project's data, not our words
    for line in ('project search "how long do we keep raw data" -n 3',
                 "project read data-retention-policy.md"):
        outcome = run(shell, line)
        texts += [outcome.label, outcome.notice or ""]
    created = run(shell, "project write kb/words.md --yes", "# Words\nfirst\n")
    read_all(created, texts)
    assert "to undo it: %project delete kb/words.md" in created.body
    replaced = run(shell, "project write kb/words.md", "# Words\nsecond\n")
    read_all(replaced.card.approve(), texts)
    read_all(replaced, texts)
    denied = run(shell, "project write kb/denied.md", "never\n")
    read_all(denied.card.deny(), texts)
    read_all(denied, texts)
    history = run(shell, "project history -n 5")
    read_all(history, texts)
    assert "on its card" in texts[-1] and "--yes (no card)" in texts[-1]
    # errors: as the failed cell's line, and as the outcome the errors setting returns
    for line in ("project read no-such-doc.md", "project restore 99999",
                 "project sync no-such-folder"):
        with pytest.raises(UsageError) as failed:
            run(shell, line)
        texts.append(str(failed.value))
    live.errors = "outcome"
    read_all(run(shell, "project read no-such-doc.md"), texts)
    live.errors = "raise"
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(3):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n")
    read_all(run(shell, "project sync notes --to kb/notes --dry-run"), texts)
    pending = run(shell, "project sync notes --to kb/notes")
    read_all(pending, texts)
    read_all(pending.card.approve(), texts)
    read_all(pending, texts)
    read_all(run(shell, "project delete kb/words.md --yes"), texts)
    found = developer_words(texts)
    assert found == [], "\n".join(found)


def test_design_magics_a_denied_card_a_push_and_copied_code_read_as_words(
        shell, live, reference_service) -> None:
    texts: list[str] = []
    read_all(run(shell, "design consent"), texts)
    read_all(run(shell, "design list"), texts)
    read_all(run(shell, "design status"), texts)
    projects = run(shell, "design list_projects")
    read_all(projects, texts)
    import json

    body = {"project_id": projects.data[0]["id"],
            "files": [{"path": "words.html", "data": "<p>hello</p>"}]}
    refused = run(shell, "design write_files", json.dumps(body))
    read_all(refused, texts)
    if getattr(refused, "card", None) is not None:
        read_all(refused.card.deny(), texts)
        read_all(refused, texts)
    deck = run(shell, 'design deck open "Quarterly Review Deck"')
    read_all(deck, texts)
    run(shell, "design slide slides/09-words.html", "# Words\n\nFor people.\n")
    pushed = run(shell, "design deck push")
    read_all(pushed, texts)
    pushed.approve()
    read_all(pushed, texts)
    # the calls table's arguments column is JSON by design (what --with takes): its
    # other columns are read
    calls = run(shell, "design history")
    texts += [calls.notice or "", *(f"{r['state']} {r['summary']}" for r in calls.data)]
    for line in ("design history --copy 1", "design history --copy 1 --as python"):
        read_all(run(shell, line), texts)
    assert any("Plan approved for project" in t for t in texts)  # the push's plan
    assert any("was not run" in t for t in texts)  # the denied card's outcome
    with pytest.raises(UsageError) as failed:
        run(shell, "design no_such_operation")
    texts.append(str(failed.value))
    with pytest.raises(UsageError) as failed:
        run(shell, 'design history --replay 1 --with {"nothing/0":1}')
    texts.append(str(failed.value))
    found = developer_words(texts)
    assert found == [], "\n".join(found)
