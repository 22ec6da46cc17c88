"""The notebook's own look and the staged table's truth: a file the project holds exactly as
staged is `unchanged` (a push does not write it), one it holds otherwise is `replace`;
`--theme light|dark|PATH.css` restyles every staged slide, a CSS file of your own loading
nothing."""

from __future__ import annotations

import pytest

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.theme import BUILT_IN, CSS_FILE_MAX_BYTES
from jupyter_design_projects.errors import InvalidArguments

PID = "p-1"


def test_a_file_the_project_holds_as_staged_is_unchanged_and_not_pushed():
    deck = Deck(None, PID, "Deck")
    a = deck.add_markdown("s/a.html", "# A\n")
    deck.add_markdown("s/b.html", "# B\n")
    deck.pushed = {"s/a.html": (a.sha256, "e1"), "s/b.html": ("another-sha", "e2")}
    deck.remote = {"s/a.html": "e1", "s/b.html": "e2"}
    rows = {r["path"]: r["change"] for r in deck.staged_rows()}
    assert rows == {"s/a.html": "unchanged", "s/b.html": "replace"}
    assert [f.path for f in deck.missing()] == ["s/b.html"]
    deck.remote["s/a.html"] = "e9"  # changed on the service since: replace again
    assert {r["path"]: r["change"] for r in deck.staged_rows()}["s/a.html"] == "replace"


@pytest.mark.parametrize("name", ["light", "dark"])
def test_a_built_in_theme_restyles_every_staged_slide(name):
    deck = Deck(None, PID, "Deck")
    deck.add_markdown("s/a.html", "# A\n")
    deck.use_theme(name)
    page = deck.stage.files[0].data.decode()
    assert f"background:{BUILT_IN[name].background}" in page
    deck.add_markdown("s/b.html", "# B\n")  # and the slides staged after
    assert f"background:{BUILT_IN[name].background}" in deck.stage.files[1].data.decode()


def test_a_css_theme_file_follows_the_stylesheet_without_imports_or_urls(tmp_path):
    css = tmp_path / "mine.css"
    css.write_text("@import url(http://127.0.0.1:9/x.css);h1{color:#c0ffee;"
                   "background:url(http://127.0.0.1:9/y.png)}")
    deck = Deck(None, PID, "Deck")
    deck.add_markdown("s/a.html", "# A\n")
    theme = deck.use_theme(str(css))
    page = deck.stage.files[0].data.decode()
    assert "h1{color:#c0ffee;background:none}" in page and "127.0.0.1" not in page
    assert theme.name.endswith("+ mine.css")
    assert page.index("h1{color:#c0ffee") > page.index(".slide{")


@pytest.mark.parametrize("choice, rule", [("sepia", "is not light, dark or a .css file"),
                                          ("missing.css", "cannot be read")])
def test_a_theme_that_is_not_one_is_refused(tmp_path, choice, rule):
    with pytest.raises(InvalidArguments) as refused:
        Deck(None, PID).use_theme(str(tmp_path / choice) if choice.endswith(".css")
                                  else choice)
    assert refused.value.field == "theme" and rule in refused.value.rule


def test_a_css_file_over_the_limit_is_refused_at_the_limit_it_is_read(tmp_path):
    at, over = tmp_path / "at.css", tmp_path / "over.css"
    at.write_text("a{}" + " " * (CSS_FILE_MAX_BYTES - 3))
    over.write_text("a{}" + " " * (CSS_FILE_MAX_BYTES - 2))
    Deck(None, PID).use_theme(str(at))
    with pytest.raises(InvalidArguments) as refused:
        Deck(None, PID).use_theme(str(over))
    assert "bytes" in refused.value.rule


def test_a_slide_of_code_inputs_alone_is_listed_not_dropped_silently(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from jupyter_design_projects.design.deck.from_notebook import read

    slide = {"slideshow": {"slide_type": "slide"}}
    notebook = new_notebook(cells=[new_markdown_cell("# One", metadata=slide),
                                   new_code_cell("x = 1", metadata=slide),
                                   new_markdown_cell("# Three", metadata=slide)])
    path = tmp_path / "t.ipynb"
    nbformat.write(notebook, path)
    shown = read(path)
    assert [s.path for s in shown.slides] == ["slides/01-one.html", "slides/02-three.html"]
    assert shown.left_out == ["a slide of cell(s) 2 (only code inputs: --code shows them)"]
    with_code = read(path, code=True)
    assert len(with_code.slides) == 3 and with_code.left_out == []
