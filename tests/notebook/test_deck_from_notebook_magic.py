"""A talk someone else wrote, through the magics against a real reference service:
`%design deck from-notebook` → push → approve → previews by the service's browser; the
edited notebook re-stages only what changed; `%design deck export` to PDF (read back with
pypdf) and to one HTML file, from the project as it holds the deck, in this session and in
a new one; a denied `%design deck new` ends the deck; bad input is one clear line."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.widgets.deck import DeckPush, NotebookDeck
from tests.faults_client import faults

DECK = "Quarterly Review Deck"
TALK = Path(__file__).parent.parent / "fixtures" / "talk"
SLIDES = ["slides/01-forecasting-weekly-demand.html", "slides/02-the-model.html",
          "slides/03-the-pipeline.html", "slides/04-weekly-demand.html",
          "slides/05-results-by-region.html", "slides/06-thank-you.html"]


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def live(live, shell, reference_service, tmp_path) -> Iterator[Any]:
    """The conftest's `live`, the talk copied beside it, with Design consent given and the
    faults reset after."""
    shutil.copytree(TALK, tmp_path / "talk")
    shell.run_line_magic("design", "consent")
    yield live
    faults(reference_service).reset()


def files_of(shell, deck: NotebookDeck) -> dict[str, Any]:
    shell.user_ns["_pid"] = deck.project_id
    return {f["path"]: f for f in shell.run_line_magic("design",
                                                      "list_files project_id=$_pid").data}


def pushed_talk(shell, name: str = "Demand talk") -> tuple[NotebookDeck, DeckPush]:
    """The talk pushed to a project of its own (the demo deck holds slides of its own)."""
    deck = shell.run_line_magic("design", f"deck new {name}")
    deck.create_card.approve()
    staged = shell.run_line_magic("design", "deck from-notebook talk/talk.ipynb")
    assert staged.data["slides"] == SLIDES
    pushed = shell.run_line_magic("design", "deck push").approve()
    assert pushed.done and not pushed.failures
    return deck, pushed


def test_from_notebook_then_push_approve_and_previews(shell, live):
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    staged = shell.run_line_magic("design", "deck from-notebook talk/talk.ipynb")
    assert "Staged 6 slide(s) from talk/talk.ipynb (by its slideshow metadata)" in \
        staged.notice
    assert "https://pydata.org/logo.png (remote; not fetched)" in staged.notice
    assert "error output KeyError" in staged.notice
    assert not files_of(shell, deck).keys() & set(SLIDES)  # nothing sent before push
    pushed = shell.run_line_magic("design", "deck push")
    # the plan card names the project by name and id, as the grant card does
    assert f"{DECK} ({deck.project_id})" in pushed.cards[0].header.value
    pushed.approve()
    remote = files_of(shell, deck)
    assert set(SLIDES) <= remote.keys()
    assert {"slides/assets/03-the-pipeline-01.svg", "slides/assets/04-weekly-demand-01.png",
            "slides/assets/06-thank-you-01.png"} <= remote.keys()
    assert [p for p, _, _ in pushed.previews] == SLIDES
    texts = {p: data for p, _, data in pushed.previews}
    for data in texts.values():
        assert data["renderer"] == "chromium" and data["failed_requests"] == []
    first = texts[SLIDES[0]]["text_content"]
    assert "Forecasting weekly demand" in first and "Welcome everyone" not in first
    assert "North" in texts[SLIDES[4]]["text_content"]


def test_the_edited_notebook_pushes_only_the_changed_slide(shell, live):
    deck, _ = pushed_talk(shell)
    etags = {p: f["etag"] for p, f in files_of(shell, deck).items()}
    shell.run_line_magic("design", "deck from-notebook talk/talk.ipynb")
    assert "Nothing to push" in shell.run_line_magic("design", "deck push").message
    notebook = nbformat.read("talk/talk.ipynb", as_version=4)
    notebook.cells[4].source += "\n- wrong at holidays"
    nbformat.write(notebook, "talk/talk.ipynb")
    again = shell.run_line_magic("design", "deck from-notebook talk/talk.ipynb")
    assert "1 file(s) differ from what the project holds" in again.notice
    pushed = shell.run_line_magic("design", "deck push")
    assert [c.pending.request.writes for c in pushed.cards] == [(SLIDES[1],)]
    pushed.approve()
    after = files_of(shell, deck)
    assert after[SLIDES[1]]["etag"] != etags[SLIDES[1]]
    assert all(after[p]["etag"] == etags[p] for p in SLIDES if p != SLIDES[1])


def pdf_pages(path: Path) -> list[str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(path.read_bytes()))
    return [page.extract_text() for page in reader.pages], reader.pages


def test_export_pdf_one_16_9_page_per_slide_and_notes_on_request(shell, live, tmp_path):
    pushed_talk(shell)
    written = shell.run_line_magic("design", "deck export talk.pdf")
    assert "Wrote" in written.notice and written.data["missing"] == []
    texts, pages = pdf_pages(tmp_path / "talk.pdf")
    assert len(pages) == len(SLIDES)
    assert "Forecasting weekly demand" in texts[0] and "Welcome everyone" not in texts[0]
    box = pages[0].mediabox
    assert round(float(box.width) / float(box.height), 3) == round(16 / 9, 3)
    assert "North" in texts[4]
    shell.run_line_magic("design", "deck export talk-notes.pdf --notes")
    texts, pages = pdf_pages(tmp_path / "talk-notes.pdf")
    assert len(pages) == len(SLIDES) + 2  # two slides have notes: a notes page after each
    assert "Welcome everyone" in texts[1] and "Notes: Forecasting weekly demand" in texts[1]


def test_export_html_is_one_offline_file_with_every_slide(shell, live, tmp_path):
    pushed_talk(shell)
    written = shell.run_line_magic("design", "deck export talk.html --notes")
    page = (tmp_path / "talk.html").read_text(encoding="utf-8")
    if written.data["kind"] == "reveal.js":  # the renderer of design/deck/reveal.py
        assert page.count("data-jdp-slide=") == len(SLIDES)
    else:
        assert written.data["kind"] == "plain viewer"
        assert page.count("<iframe") == len(SLIDES)
    assert page.count("data:image/png;base64,") == 2 and "data:image/svg+xml;base64," in page
    assert "Welcome everyone" in page


def images_on(page) -> int:
    """How many images a PDF page draws (its image XObjects)."""
    return len(page.images)


def test_export_reads_what_the_project_holds_from_a_new_session(shell, live, tmp_path):
    pushed_talk(shell, "Talk from elsewhere")
    live.close()  # a new kernel: nothing staged, only the project's files
    shell.run_line_magic("design", 'deck open "Talk from elsewhere"')
    written = shell.run_line_magic("design", "deck export other.html")
    page = (tmp_path / "other.html").read_text(encoding="utf-8")
    assert page.count("<iframe" if written.data["kind"] == "plain viewer"
                      else "data-jdp-slide=") == len(SLIDES)
    assert "data:image/svg+xml;base64," in page  # text assets come back whole
    # read_file answers text only and PROTOCOL has no binary read: the slides whose PNG
    # assets this session did not push are the service's picture of them, and say so
    assert "slides/04-weekly-demand.html: assets/04-weekly-demand-01.png" in \
        written.data["pictured"]
    assert written.data["missing"] == []
    assert "cannot be read back over the Design protocol" in written.notice
    shell.run_line_magic("design", "deck export other.pdf")
    texts, pages = pdf_pages(tmp_path / "other.pdf")
    assert len(pages) == len(SLIDES)
    weekly = SLIDES.index("slides/04-weekly-demand.html")
    assert images_on(pages[weekly]) >= 1  # the figure is on its page
    assert "Forecasting weekly demand" in texts[0]  # slides without PNGs stay text


def test_bad_input_is_one_clear_line(shell, live, tmp_path):
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    (tmp_path / "broken.ipynb").write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match="is not valid JSON") as refused:
        shell.run_line_magic("design", "deck from-notebook broken.ipynb")
    assert "\n" not in str(refused.value)
    assert deck.slides == []
    with pytest.raises(UsageError, match="does not exist: create it"):
        shell.run_line_magic("design", "deck export nowhere/deck.pdf")
    with pytest.raises(UsageError, match="needs a path"):
        shell.run_line_magic("design", "deck export")


def test_the_deck_has_the_attributes_a_user_reaches_for(shell, live):
    deck = shell.run_line_magic("design", f'deck open "{DECK}"')
    assert deck.project_id == deck.deck.project_id and deck.project_name == DECK
    assert deck.theme.name == "Acme Default" and deck.slides == []
    shell.run_line_magic("design", "deck from-notebook talk/talk.ipynb")
    assert deck.slides == SLIDES


def test_a_denied_deck_new_ends_the_deck_and_says_to_run_it_again(shell, live):
    deck = shell.run_line_magic("design", "deck new Denied talk")
    deck.create_card.deny()
    assert deck.ended is not None and "%design deck new Denied talk" in deck.ended
    with pytest.raises(UsageError, match="Run `%design deck new Denied talk` again"):
        shell.run_line_magic("design", "deck push")
    assert "ended" in repr(deck)
