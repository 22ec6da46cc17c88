"""A slide page too long for its page, fitted and continued on its HTML (design/deck/fit.py),
and where that is said: staging and the export."""

from __future__ import annotations

import re

import pytest

from jupyter_design_projects.design.deck import fit, staging
from jupyter_design_projects.design.deck.slides import page
from jupyter_design_projects.design.deck.theme import DEFAULT_THEME


def slide(body: str, title: str = "Checks") -> str:
    return page(title, body, DEFAULT_THEME)


def bullets(count: int, tag: str = "ul", attrs: str = "") -> str:
    items = "".join(f"<li>check word{n} passes</li>" for n in range(1, count + 1))
    return f"<{tag}{attrs}>{items}</{tag}>"


def words(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"word([0-9]+)\b", text)]


def test_a_short_slide_is_left_as_it_is():
    text = slide("<h2>Checks</h2>" + bullets(5))
    shown = fit.fit_page("slides/a.html", text)
    assert shown.pages == (("slides/a.html", text),) and not shown.changed


def test_a_slide_a_little_too_long_is_fitted_on_its_page():
    shown = fit.fit_page("slides/a.html", slide("<h2>Checks</h2>" + bullets(14)))
    assert len(shown.pages) == 1 and 0.5 <= shown.outcome.scale < 1.0
    assert f'<main class="slide jdp-fit-{round(shown.outcome.scale * 100)}">' in \
        shown.pages[0][1]


def test_thirty_bullets_are_continued_with_the_heading_marked_and_the_notes_kept_first():
    notes = '<aside class="jdp-notes" hidden><p>go fast</p></aside>'
    shown = fit.fit_page("slides/07-checks.html",
                         slide("<h2>Checks</h2>" + bullets(30) + notes))
    paths = [p for p, _ in shown.pages]
    assert paths == ["slides/07-checks.html", "slides/07-checks_2.html"]
    first, second = (text for _, text in shown.pages)
    assert words(first) + words(second) == list(range(1, 31))
    assert abs(len(words(first)) - len(words(second))) <= 4  # balanced, no lone bullet
    assert "go fast" in first and "go fast" not in second
    assert '<h2>Checks<span class="jdp-continued"> (continued)</span></h2>' in second
    assert "<title>Checks (continued)</title>" in second
    assert shown.outcome.pages == 2


def test_a_numbered_list_keeps_its_numbers_and_a_table_its_header():
    shown = fit.fit_page("s/a.html", slide("<h2>Steps</h2>" + bullets(40, "ol", ' start="3"')))
    second = shown.pages[1][1]
    first_count = len(words(shown.pages[0][1]))
    assert f'<ol start="{3 + first_count}">' in second
    rows = "".join(f"<tr><td>row word{n}</td><td>{n}</td></tr>" for n in range(1, 41))
    table = f"<table><thead><tr><th>name</th><th>n</th></tr></thead><tbody>{rows}</tbody></table>"
    shown = fit.fit_page("s/b.html", slide("<h2>Rows</h2>" + table))
    assert len(shown.pages) >= 2
    assert all("<thead><tr><th>name</th>" in text for _, text in shown.pages)
    assert sum((words(text) for _, text in shown.pages), []) == list(range(1, 41))


def test_fitting_again_changes_nothing():
    shown = fit.fit_page("s/a.html", slide("<h2>Checks</h2>" + bullets(30)))
    for path, text in shown.pages:
        again = fit.fit_page(path, text)
        assert again.pages == ((path, text),)


@pytest.mark.parametrize(("path", "continued", "neighbours"), [
    ("slides/07-checks.html", "slides/07-checks_2.html",
     ["slides/07-checks-more.html", "slides/07-checksum.html", "slides/08-next.html"]),
    ("slides/notes.htm", "slides/notes_2.htm", ["slides/note.htm", "slides/notesb.htm"]),
])
def test_a_continuation_sorts_right_after_its_slide(path, continued, neighbours):
    assert fit.continuation_path(path, 2) == continued
    order = sorted([*neighbours, continued, path])
    assert order.index(continued) == order.index(path) + 1


def test_staging_stages_the_continuation_with_its_slide_and_unstages_it_with_it():
    stage = staging.Stage()
    stage.add_slide("slides/07-checks.html", slide("<h2>Checks</h2>" + bullets(30)))
    assert stage.slides == ["slides/07-checks.html", "slides/07-checks_2.html"]
    assert {f.slide for f in stage.files} == {"slides/07-checks.html"}
    percent = round(stage.fitted["slides/07-checks.html"].scale * 100)
    assert stage.fit_summary() == ("Too long for one slide: slides/07-checks.html continued "
                                   f"over 2 slides at {percent} %.")
    stage.add_slide("slides/07-checks.html", slide("<h2>Checks</h2>" + bullets(3)))
    assert stage.slides == ["slides/07-checks.html"] and stage.fit_summary() == ""


def test_the_stylesheet_prints_backgrounds_and_holds_the_fit_rules():
    text = slide("<p>x</p>")
    assert "print-color-adjust:exact" in text and ".slide.jdp-fit-50>*{zoom:0.5}" in text


def test_a_cut_keeps_every_item_as_it_was_written():
    """The pages are cut from the cleaned HTML, never re-parsed into new markup: an
    attribute holding `>` and escaped tags come through byte for byte."""
    items = [f'<li><img alt="a>b word{n}" src="assets/x.png"> &lt;script&gt;word{n}</li>'
             for n in range(1, 31)]
    written = slide("<h2>Odd</h2><ul>" + "".join(items) + "</ul>")  # cleaned as staged
    cleaned = [whole for tag, _, _, whole in fit.children(
        written[written.index("<ul>") + 4:written.index("</ul>")]) if tag == "li"]
    assert len(cleaned) == 30 and all("&lt;script&gt;word" in item for item in cleaned)
    shown = fit.fit_page("s/a.html", written)
    text = "".join(t for _, t in shown.pages)
    assert len(shown.pages) > 1 and "<script" not in text.lower()
    assert all(text.count(item) == 1 for item in cleaned)


def test_the_export_says_each_fitted_continued_and_pictured_slide_once(tmp_path):
    from jupyter_design_projects.core.slide_fit import Outcome
    from jupyter_design_projects.design.deck.export import Export, ExportedSlide
    from jupyter_design_projects.notebook.views.deck_outcomes import export_outcome

    read = Export([ExportedSlide("slides/01-a.html", "A", "<p>a</p>", "")],
                  fitted={"slides/02-b.html": Outcome(0.7, 2), "slides/03-c.html": Outcome(0.9)},
                  pictures={"slides/04-chart.html": "Weekly demand"})
    said = export_outcome(tmp_path / "t.pdf", b"x", read, "A", False).notice
    assert said.count("slides/02-b.html") == 1 and "continued over 2 slides at 70 %" in said
    assert "slides/03-c.html fitted at 90 %" in said
    assert "slides/04-chart.html ('Weekly demand')" in said and "not text" in said
