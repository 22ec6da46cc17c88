"""Decks without a service: the design system read from the prompt, Markdown and `$name`
pieces rendered into slides, staging and its path limits, plans cut at the card limits,
and what a repeated push still has to write."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.display import MAX_PATH_CHARS
from jupyter_design_projects.core.plans import CARD_LIMIT, MAX_PLAN_PATHS
from jupyter_design_projects.design.deck import Deck, slides
from jupyter_design_projects.design.deck.batches import card_length, fits, plan_batches
from jupyter_design_projects.design.deck.staging import Stage
from jupyter_design_projects.design.deck.theme import (
    DEFAULT_THEME,
    stylesheet,
    theme_from_prompt,
)
from jupyter_design_projects.errors import InvalidArguments

PID = "0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60"
PROMPT = ("# Designing with Claude Design\n\n## Design system: Acme Night\n\n"
          "- `color.primary`: `#7fb3e6`\n- `color.background`: `#11161c`\n"
          "- `color.text`: `red;}body{display:none`\n- `font.body`: `Inter, sans-serif`\n"
          "- `radius`: `4px`\n\n## Project: Deck\n\n- `color.accent`: `#000000`\n")


class Frame:
    """Just enough of a DataFrame: `len`, `head`, `to_html` and a RangeIndex-like index."""

    class RangeIndex:
        pass

    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.index = Frame.RangeIndex()

    def __len__(self) -> int:
        return self.rows

    def head(self, n: int) -> Frame:
        return Frame(min(n, self.rows))

    def to_html(self, **options) -> str:
        return f"<table data-rows={self.rows} index={options['index']}></table>"


# -- the design system --------------------------------------------------------------------
def test_the_prompt_gives_the_design_system_keeping_only_css_safe_values():
    theme = theme_from_prompt(PROMPT)
    assert theme is not None and theme.name == "Acme Night"
    assert (theme.primary, theme.background, theme.radius) == ("#7fb3e6", "#11161c", "4px")
    assert theme.body_font == "Inter, sans-serif"
    assert theme.text == DEFAULT_THEME.text  # the unsafe value is not taken
    assert theme.accent == DEFAULT_THEME.accent  # another section's lines are not tokens
    assert "display:none" not in stylesheet(theme)


@pytest.mark.parametrize("prompt", ["# Designing\n\nno system here\n", None, 42])
def test_no_design_system_section_means_none(prompt):
    assert theme_from_prompt(prompt) is None


# -- Markdown and pieces --------------------------------------------------------------------
def test_markdown_is_rendered_by_the_library_and_raw_html_is_shown_as_text():
    body = slides.render_markdown("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                  "<script>alert(1)</script>\n", {})
    assert "<h1>Title</h1>" in body and "<td>1</td>" in body
    assert "<script>" not in body and "&lt;script&gt;" in body


def test_names_become_their_pieces_and_an_escaped_name_stays_literal():
    pieces = {"who": slides.text_piece("<Ops & Co>"), "t": slides.table_piece(Frame(3))}
    body = slides.render_markdown("Hello **$who**\n\n$t\n\nCost: \\$who\n", pieces)
    assert "<strong>&lt;Ops &amp; Co&gt;</strong>" in body
    assert "<table data-rows=3 index=False></table>" in body
    assert "<p><table" not in body  # a block piece replaces its paragraph
    assert "Cost: $who" in body


def test_an_undefined_name_is_refused_by_name():
    with pytest.raises(InvalidArguments) as caught:
        slides.render_markdown("$missing", {})
    assert caught.value.field == "$missing"


@pytest.mark.parametrize(("rows", "note"), [(slides.TABLE_MAX_ROWS, False),
                                            (slides.TABLE_MAX_ROWS + 1, True)])
def test_a_table_shows_at_most_the_row_cap(rows, note):
    piece = slides.table_piece(Frame(rows))
    assert f"data-rows={min(rows, slides.TABLE_MAX_ROWS)}" in piece.html
    assert ("Showing the first" in piece.html) is note


def test_an_object_a_slide_cannot_show_is_named_with_its_type():
    with pytest.raises(InvalidArguments) as caught:
        slides.piece_of(3.5, "slides/a.html", "x")
    assert caught.value.field == "$x" and "float" in caught.value.rule


def test_a_figure_becomes_a_png_asset_beside_the_slide():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots()
    try:
        piece = slides.piece_of(axes, "slides/05-chart.html", "chart")
    finally:
        plt.close(figure)
    (asset,) = piece.assets
    assert asset.path == "slides/assets/05-chart-chart.png"
    assert asset.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'src="assets/05-chart-chart.png"' in piece.html


# -- staging -------------------------------------------------------------------------------
def slide_of(length: int) -> str:
    return "s/" + "x" * (length - len("s/.html")) + ".html"


@pytest.mark.parametrize(("length", "ok"), [(MAX_PATH_CHARS, True), (MAX_PATH_CHARS + 1, False)])
def test_a_slide_path_has_at_most_80_characters(length, ok):
    stage = Stage()
    if ok:
        assert stage.add_slide(slide_of(length), "<p>x</p>").path == slide_of(length)
    else:
        with pytest.raises(InvalidArguments, match="longer than 80"):
            stage.add_slide(slide_of(length), "<p>x</p>")
        assert stage.files == []


@pytest.mark.parametrize("path", ["slides/CLAUDE.md/x.html", ".claude/x.html", "../x.html",
                                  "slides/x.md", "slides/\u0430pple.html"])
def test_paths_a_card_cannot_show_or_that_are_not_pages_are_refused(path):
    with pytest.raises(InvalidArguments):
        Stage().add_slide(path, "<p>x</p>")


def test_staging_a_slide_again_replaces_it_and_its_assets():
    stage = Stage()
    stage.add_slide("s/a.html", "<p>1</p>", [slides.Asset("s/assets/a-x.png", b"1")])
    stage.add_slide("s/a.html", "<p>2</p>", [slides.Asset("s/assets/a-y.png", b"2")])
    assert [f.path for f in stage.files] == ["s/a.html", "s/assets/a-y.png"]
    assert stage.units() == [["s/assets/a-y.png", "s/a.html"]]


def test_staged_rows_say_new_or_replace_against_the_listing():
    deck = Deck(None, PID, "Deck")
    deck.add_markdown("s/a.html", "# A\n")
    deck.add_markdown("s/b.html", "# B\n")
    deck.remote = {"s/a.html": "e1"}
    rows = {r["path"]: r for r in deck.staged_rows()}
    assert rows["s/a.html"]["change"] == "replace" and rows["s/b.html"]["change"] == "new"
    assert rows["s/a.html"]["bytes"] == len(deck.stage.files[0].data)


# -- plans at the card limits --------------------------------------------------------------
def paths(n: int) -> list[str]:
    return [f"s/{i:03d}.html" for i in range(n)]


@pytest.mark.parametrize(("n", "sizes"), [(MAX_PLAN_PATHS, [MAX_PLAN_PATHS]),
                                          (MAX_PLAN_PATHS + 1, [MAX_PLAN_PATHS, 1])])
def test_a_plan_lists_at_most_20_writes(n, sizes):
    batches = plan_batches(PID, [[p] for p in paths(n)], table=BY_NAME)
    assert [len(b) for b in batches] == sizes
    assert sorted(p for b in batches for p in b) == paths(n)


def test_a_plan_card_holds_at_most_2000_characters_with_the_project_name():
    few = paths(3)
    # what a name may take: "name (id)"
    room = CARD_LIMIT - card_length(PID, few, table=BY_NAME)
    assert fits(PID, few, "n" * (room - 3), table=BY_NAME)
    assert card_length(PID, few, "n" * (room - 3), table=BY_NAME) == CARD_LIMIT
    assert not fits(PID, few, "n" * (room - 2), table=BY_NAME)


def test_long_paths_and_a_long_project_name_are_cut_into_cards_that_fit():
    long_paths = [f"slides/{i:02d}-" + "x" * (MAX_PATH_CHARS - 15) + ".html"
                  for i in range(MAX_PLAN_PATHS)]
    assert all(len(p) == MAX_PATH_CHARS for p in long_paths)
    # 20 such paths fit a card
    assert fits(PID, long_paths, "Quarterly Review Deck", table=BY_NAME)
    name = "N" * 200  # the longest name the reference service accepts
    batches = plan_batches(PID, [[p] for p in long_paths], name, table=BY_NAME)
    assert len(batches) == 2
    assert all(card_length(PID, b, name, table=BY_NAME) <= CARD_LIMIT for b in batches)
    assert not fits(PID, batches[0] + batches[1][:1], name, table=BY_NAME)


def test_a_slide_and_its_assets_stay_in_one_plan_when_they_fit():
    units = [paths(19)[i:i + 1] for i in range(19)] + [["s/assets/z.png", "s/z.html"]]
    batches = plan_batches(PID, units, table=BY_NAME)
    assert [len(b) for b in batches] == [19, 2]


# -- what a repeated push still writes -----------------------------------------------------
def test_missing_is_what_the_project_does_not_hold_as_staged():
    deck = Deck(None, PID, "Deck")
    for name in "abc":
        deck.add_markdown(f"s/{name}.html", f"# {name}\n")
    files = {f.path: f for f in deck.stage.files}
    deck.pushed = {"s/a.html": (files["s/a.html"].sha256, "e-a"),
                   "s/b.html": (files["s/b.html"].sha256, "e-b")}
    deck.remote = {"s/a.html": "e-a", "s/b.html": "e-changed-elsewhere"}
    assert [f.path for f in deck.missing()] == ["s/b.html", "s/c.html"]
    deck.add_markdown("s/a.html", "# a, edited\n")
    assert [f.path for f in deck.missing()] == ["s/a.html", "s/b.html", "s/c.html"]
