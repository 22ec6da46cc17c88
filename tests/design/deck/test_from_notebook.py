"""A notebook someone else wrote (tests/fixtures/talk: slideshow metadata, an executed
figure, a DataFrame, notes, a skipped and a removed cell, math, a relative image, an
attachment, a remote image and an error output) read as slides, without a service; bad
input refused in one clear line that stages nothing; the HTML export's file."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.plans import MAX_PLAN_PATHS
from jupyter_design_projects.design.deck import Deck, pdf
from jupyter_design_projects.design.deck import export as exporting
from jupyter_design_projects.design.deck.from_notebook import read
from jupyter_design_projects.design.deck.notebook_cells import sanitize
from jupyter_design_projects.errors import ConfigError, InvalidArguments

TALK = Path(__file__).parents[2] / "fixtures" / "talk"
PID = "0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60"
SLIDES = ["slides/01-forecasting-weekly-demand.html", "slides/02-the-model.html",
          "slides/03-the-pipeline.html", "slides/04-weekly-demand.html",
          "slides/05-results-by-region.html", "slides/06-thank-you.html"]


@pytest.fixture
def talk(tmp_path) -> Path:
    folder = tmp_path / "talk"
    shutil.copytree(TALK, folder)
    return folder / "talk.ipynb"


def by_path(reading):
    return {s.path: s for s in reading.slides}


def test_each_slide_and_subslide_is_a_page_with_a_stable_path(talk):
    reading = read(talk)
    assert reading.rule == "slideshow metadata"
    assert [s.path for s in reading.slides] == SLIDES
    assert [s.title for s in reading.slides][:3] == ["Forecasting weekly demand", "The model",
                                                     "The pipeline"]


def test_skip_and_remove_cell_are_left_out_and_fragments_join_their_slide(talk):
    slides = by_path(read(talk))
    everything = "".join(s.body + s.notes for s in slides.values())
    assert "import matplotlib" not in everything  # skip
    assert "checking the kernel" not in everything  # remove-cell
    assert "cheap to fit" in slides[SLIDES[1]].body  # a fragment joins "The model"


def test_notes_are_kept_with_their_slide_but_hidden(talk):
    slides = by_path(read(talk))
    first = slides[SLIDES[0]]
    assert "Welcome everyone" not in first.body
    assert re.search(r'<aside class="jdp-notes" hidden>.*Welcome everyone', first.notes)
    assert "North region is the outlier" in slides[SLIDES[4]].notes


def test_math_becomes_mathml_inline_and_display(talk):
    body = by_path(read(talk))[SLIDES[1]].body
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in body
    assert 'display="block"' in body and "<mfrac>" in body
    assert "$" not in body


def test_tex_latex2mathml_cannot_read_stays_as_its_tex(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "# Maths\n\n$x^{$ and $x^2$")])
    nbformat.write(notebook, tmp_path / "m.ipynb")
    body = read(tmp_path / "m.ipynb").slides[0].body
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in body  # x^2 converted
    assert '<code class="jdp-tex">x^{</code>' in body


def test_figures_relative_images_and_attachments_become_assets(talk):
    slides = by_path(read(talk))
    pipeline = slides[SLIDES[2]]
    assert [a.path for a in pipeline.assets] == ["slides/assets/03-the-pipeline-01.svg"]
    assert pipeline.assets[0].data == (talk.parent / "figures" / "pipeline.svg").read_bytes()
    assert 'src="assets/03-the-pipeline-01.svg"' in pipeline.body
    figure = slides[SLIDES[3]]
    assert figure.assets[0].data.startswith(b"\x89PNG")
    assert 'src="assets/04-weekly-demand-01.png"' in figure.body
    assert slides[SLIDES[5]].assets[0].data.startswith(b"\x89PNG")  # the attachment


def test_remote_images_are_not_fetched_but_listed_and_errors_are_listed(talk):
    reading = read(talk)
    assert reading.skipped == ["cell 6: https://pydata.org/logo.png (remote; not fetched)"]
    assert reading.left_out == ["cell 13: error output KeyError: 'Mars'"]
    body = by_path(reading)[SLIDES[2]].body
    assert "pydata.org" not in body.split("[image:")[0] and "[image: PyData]" in body


def test_a_dataframe_shows_as_a_sanitized_table(talk):
    body = by_path(read(talk))[SLIDES[4]].body
    assert "<table" in body and "<td>North</td>" in body
    assert "<script" not in body and "alert(1)" not in body


@pytest.mark.parametrize("dirty, gone", [
    ('<table onclick="x()"><tr><td>1</td></tr></table>', "onclick"),
    ("<style>body{display:none}</style><b>t</b>", "display:none"),
    ('<a href="javascript:alert(1)">x</a>', "javascript:"),
    ("<iframe src=//evil></iframe>", "iframe")])
def test_the_sanitizer_removes_what_could_run_or_restyle_the_slide(dirty, gone):
    assert gone not in sanitize(dirty)


def test_inputs_are_hidden_by_default_and_highlighted_with_code_except_tagged_ones(talk):
    plain = by_path(read(talk))
    assert "jdp-code" not in "".join(s.body for s in plain.values())
    with_code = by_path(read(talk, code=True))
    results = with_code[SLIDES[4]].body
    assert '<pre class="jdp-code"' in results and "read_csv" in results
    assert "style=\"color:" in results  # Pygments, inline styles
    assert "plt.subplots" not in with_code[SLIDES[3]].body  # hide-input


@pytest.mark.parametrize("tag, shows_input, shows_output", [
    ("remove-input", False, True), ("remove-output", True, False),
    ("hide-input", False, True), (None, True, True)])
def test_jupyter_book_tags(tmp_path, tag, shows_input, shows_output):
    cell = nbformat.v4.new_code_cell("print('in')", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="out-text\n")])
    if tag:
        cell.metadata["tags"] = [tag]
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# T"), cell]), tmp_path / "t.ipynb")
    body = read(tmp_path / "t.ipynb", code=True).slides[0].body
    assert ("print" in body) is shows_input
    assert ("out-text" in body) is shows_output


def test_without_metadata_level_one_and_two_headings_start_slides(tmp_path):
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(s) for s in ("# One", "text", "## Two", "### sub")]),
        tmp_path / "h.ipynb")
    reading = read(tmp_path / "h.ipynb")
    assert reading.rule == "headings"
    assert [s.path for s in reading.slides] == ["slides/01-one.html", "slides/02-two.html"]


# -- bad input: one clear line, nothing staged ------------------------------------------------
def staged_deck(talk) -> Deck:
    deck = Deck(client=None, project_id=PID, project_name="Talk")
    deck.add_notebook(talk)
    return deck


def test_not_json_is_refused_and_the_deck_keeps_what_it_had(talk, tmp_path):
    deck = staged_deck(talk)
    before = [f.sha256 for f in deck.stage.files]
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    with pytest.raises(InvalidArguments) as refused:
        deck.add_notebook(broken)
    assert refused.value.field == "path" and "is not valid JSON" in refused.value.rule
    assert "\n" not in str(refused.value)
    assert [f.sha256 for f in deck.stage.files] == before


@pytest.mark.parametrize("content, says", [
    ({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}, "not an nbformat 4 notebook"),
    ({"cells": []}, "not an nbformat 4 notebook"),
    ({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "x"}]},
     "not a valid nbformat 4 notebook")])
def test_not_nbformat_4_is_refused(tmp_path, content, says):
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(InvalidArguments) as refused:
        read(path)
    assert says in refused.value.rule


def test_a_missing_notebook_and_a_wrong_suffix_are_named(tmp_path):
    with pytest.raises(InvalidArguments, match="does not exist"):
        read(tmp_path / "nope.ipynb")
    with pytest.raises(InvalidArguments, match="is not a notebook"):
        read(tmp_path / "talk.md")


@pytest.mark.parametrize("src", ["../outside.png", "figures/../../outside.png",
                                 "/etc/hosts.png"])
def test_an_image_leaving_the_notebooks_folder_is_refused_and_nothing_is_staged(
        talk, src):
    (talk.parent.parent / "outside.png").write_bytes(b"\x89PNG secret")
    notebook = nbformat.read(talk, as_version=4)
    notebook.cells[3].source += f"\n\n![x]({src})"
    nbformat.write(notebook, talk)
    deck = Deck(client=None, project_id=PID)
    with pytest.raises(InvalidArguments) as refused:
        deck.add_notebook(talk)
    assert refused.value.field == "image" and "leaves the notebook's folder" in \
        refused.value.rule
    assert deck.stage.files == []


def test_a_symlink_out_of_the_folder_is_refused_too(talk):
    (talk.parent.parent / "outside.png").write_bytes(b"\x89PNG secret")
    (talk.parent / "link.png").symlink_to(talk.parent.parent / "outside.png")
    notebook = nbformat.read(talk, as_version=4)
    notebook.cells[3].source += "\n\n![x](link.png)"
    nbformat.write(notebook, talk)
    with pytest.raises(InvalidArguments, match="leaves the notebook's folder"):
        read(talk)


def test_a_slide_over_the_card_limits_is_split_as_pushes_are(tmp_path):
    images = MAX_PLAN_PATHS + 3
    for i in range(images):
        (tmp_path / f"p{i}.svg").write_text(f"<svg xmlns='http://www.w3.org/2000/svg'>{i}"
                                             "</svg>")
    source = "# Many pictures\n\n" + "\n".join(f"![p{i}](p{i}.svg)" for i in range(images))
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source)]),
                   tmp_path / "many.ipynb")
    # the plans are cut as the client's table asks them (its plan operation's card)
    client = SimpleNamespace(catalogue=SimpleNamespace(table=BY_NAME))
    deck = Deck(client=client, project_id=PID, project_name="Talk")
    deck.add_notebook(tmp_path / "many.ipynb")
    batches = deck.batches()
    assert len(batches) == 2
    assert all(len(b) <= MAX_PLAN_PATHS for b in batches)
    assert sorted(p for b in batches for p in b) == sorted(f.path for f in deck.stage.files)


# -- re-running on an edited notebook ---------------------------------------------------------
def test_rerunning_on_an_edited_notebook_changes_only_the_edited_slide(talk):
    deck = staged_deck(talk)
    deck.pushed = {f.path: (f.sha256, "etag-" + f.path) for f in deck.stage.files}
    deck.remote = {f.path: "etag-" + f.path for f in deck.stage.files}
    assert deck.missing() == []
    deck.add_notebook(talk)  # unchanged: nothing to write
    assert deck.missing() == []
    notebook = nbformat.read(talk, as_version=4)
    notebook.cells[4].source = "- cheap to fit\n- easy to explain\n- wrong at holidays"
    nbformat.write(notebook, talk)
    deck.add_notebook(talk)
    assert [f.path for f in deck.missing()] == [SLIDES[1]]


def test_a_slide_the_notebook_no_longer_has_is_unstaged(talk):
    deck = staged_deck(talk)
    notebook = nbformat.read(talk, as_version=4)
    del notebook.cells[13:]  # the error fragment and "Thank you"
    nbformat.write(notebook, talk)
    deck.add_notebook(talk)
    assert deck.stage.slides == SLIDES[:5]
    assert not any("thank-you" in f.path for f in deck.stage.files)


# -- export, without a service ------------------------------------------------------------
@pytest.mark.parametrize("name, field_rule", [
    ("missing/deck.pdf", "does not exist"), ("deck.pptx", "must end in .pdf or .html")])
def test_an_export_path_that_cannot_be_written_is_refused_first(tmp_path, name, field_rule):
    with pytest.raises(InvalidArguments) as refused:
        exporting.checked_target(tmp_path / name)
    assert field_rule in refused.value.rule
    assert not (tmp_path / "missing").exists()


def test_no_browser_is_one_line_saying_how_to_get_one(monkeypatch):
    import asyncio

    monkeypatch.setenv("JDP_CHROMIUM", "/nonexistent/chromium")
    export = exporting.Export([exporting.ExportedSlide("slides/01.html", "t", "<p>x</p>", "")])
    with pytest.raises(ConfigError) as refused:
        asyncio.run(pdf.pdf_bytes(export))
    message = str(refused.value)
    assert "\n" not in message
    assert "[export]" in message and "apt-get install chromium" in message


def test_the_html_export_is_one_file_with_every_slide_and_no_remote_reference():
    export = exporting.Export([
        exporting.ExportedSlide("slides/01-a.html", "A", '<p>one</p><img src="data:x">',
                                "<p>say one</p>"),
        exporting.ExportedSlide("slides/02-b.html", "B", "<p>two</p>", "")])
    page = exporting.html_file(export, "Talk", notes=True)
    assert page.count("<iframe sandbox=\"\"") == 2
    assert "say one" in page and "No notes." in page
    assert "http:" not in page.replace("http://www.w3.org", "") and "https:" not in page
    assert "ArrowRight" in page
    assert "say one" not in exporting.html_file(export, "Talk")


def test_read_file_answers_are_unwrapped_and_unescaped():
    wrapped = ('<untrusted-project-content path="slides/a.html" etag="e1">&lt;p&gt;a &amp;amp; '
               "b&lt;/p&gt;</untrusted-project-content>")
    assert exporting.unwrap(wrapped) == "<p>a &amp; b</p>"
