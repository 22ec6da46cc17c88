"""What a slide may hold (`design/deck/allowlist.py`), without a browser: every payload a
foreign notebook or page can carry loses what would run or load; the raw HTML Jupyter
renders in Markdown is kept as HTML, never shown as literal tags; the export keeps a
page's look without its imports and URLs. (In Chromium, with a beacon: test_deck_hostile.)"""

from __future__ import annotations

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.allowlist import clean, clean_css, own_source
from jupyter_design_projects.design.deck.export import page_for_export
from jupyter_design_projects.design.deck.from_notebook import read

BEACON = "http://127.0.0.1:9/b"
#: the beacon's URL where a browser would load it: an attribute or a CSS url()
LOADS_BEACON = re.compile(r"""(?:src|href|srcset|data|action|poster|content)\s*=\s*["']?"""
                          r"""[^"'>]*127\.0\.0\.1|url\(\s*["']?http""", re.IGNORECASE)

#: (payload, what must not survive it)
PAYLOADS = [
    (f"<script>fetch('{BEACON}')</script>", "<script"),
    (f'<img src="x" onerror="fetch(\'{BEACON}\')">', "onerror"),
    (f'<body onload="fetch(\'{BEACON}\')">x</body>', "onload"),
    (f'<p title=\'"><script>fetch("{BEACON}")</script>\'>x</p>', "<script"),
    (f'<details open ontoggle="fetch(\'{BEACON}\')"><summary>s</summary></details>',
     "ontoggle"),
    (f'<iframe src="{BEACON}"></iframe>', "<iframe"),
    (f"<style>@import url({BEACON});</style>", "@import"),
    (f'<object data="{BEACON}"></object>', "<object"),
    (f'<embed src="{BEACON}">', "<embed"),
    (f'<img srcset="{BEACON} 1x" src="assets/a.png">', "srcset"),
    (f'<meta http-equiv="refresh" content="0;url={BEACON}">', "<meta"),
    ("<a href=\"javascript:fetch('x')\">x</a>", "javascript:"),
    (f'<img src="{BEACON}.png">', BEACON),
    (f'<span style="background-image:url({BEACON})">x</span>', BEACON),
    (f'<link rel="stylesheet" href="{BEACON}.css">', "<link"),
    (f'<svg><image href="{BEACON}"/></svg>', BEACON),
    (f'<base href="{BEACON}/">', "<base"),
    (f'<form action="{BEACON}"><button>go</button></form>', "<form"),
    (f'<video src="{BEACON}"></video><audio src="{BEACON}"></audio>', BEACON),
]


@pytest.mark.parametrize("payload, gone", PAYLOADS, ids=[g for _, g in PAYLOADS])
def test_nothing_that_runs_or_loads_survives(payload, gone):
    assert gone.lower() not in clean(payload).lower()


def test_tex_cannot_smuggle_script_or_a_link_through_mathml():
    from latex2mathml.converter import convert

    raw = convert(r"\text{<script>fetch('x')</script>} + \href{javascript:alert(1)}{y}")
    assert "<script>" in raw and "javascript:" in raw  # what latex2mathml alone gives
    cleaned = clean(raw)
    assert "<script" not in cleaned and "javascript:" not in cleaned and "href" not in cleaned
    assert cleaned.startswith("<math") and "<mi>y</mi>" in cleaned


@pytest.mark.parametrize("raw, kept", [
    ("<center><b>Title</b></center>", "<center><b>Title</b></center>"),
    ('<div align="center">x</div>', '<div align="center">x</div>'),
    ('<span style="color:red;position:fixed">x</span>', '<span style="color:red">x</span>'),
    ("H<sub>2</sub>O x<sup>2</sup>", "H<sub>2</sub>O x<sup>2</sup>"),
    ("<details><summary>More</summary>hidden</details>",
     "<details><summary>More</summary>hidden</details>"),
    ("<kbd>Ctrl</kbd>", "<kbd>Ctrl</kbd>"),
    ("a<br>b", "a<br>b"),
    ('<img src="assets/logo.png" width="200">', '<img src="assets/logo.png" width="200">'),
    ('<img src="data:image/png;base64,iVBORw0KGgo=">',
     '<img src="data:image/png;base64,iVBORw0KGgo=">'),
    ('<table><tr><td align="right">1</td></tr></table>', 'align="right"'),
])
def test_the_raw_html_jupyter_renders_is_kept(raw, kept):
    assert kept in clean(raw)


@pytest.mark.parametrize("src, ok", [
    ("assets/01-a-01.png", True), ("data:image/svg+xml;base64,PHN2Zz4=", True),
    ("http://x/a.png", False), ("//x/a.png", False), ("/etc/a.png", False),
    ("file:///a.png", False), ("../../other/a.png", False), ("data:text/html,<b>", False),
    ("javascript:alert(1)", False), ("", False)])
def test_images_only_from_data_or_the_decks_own_assets(src, ok):
    assert own_source(src) is ok


def test_a_markdown_cells_raw_html_is_html_on_the_slide_not_literal_tags(tmp_path):
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    notebook = new_notebook(cells=[
        new_markdown_cell('<center>\n\n# Open science\n\n<img src="logo.png" width="80">\n\n'
                          f'<img src="{BEACON}.png">\n\n</center>\n\nPress <kbd>S</kbd>',
                          metadata={"slideshow": {"slide_type": "slide"}})])
    path = tmp_path / "talk.ipynb"
    nbformat.write(notebook, path)
    reading = read(path)
    slide = reading.slides[0]
    assert "<center>" in slide.body and "&lt;center&gt;" not in slide.body
    assert "<kbd>S</kbd>" in slide.body
    assert slide.assets and slide.assets[0].data.endswith(b"fake")
    assert f"{BEACON}.png (remote; not fetched)" in "; ".join(reading.skipped)
    assert slide.path == "slides/01-open-science.html" and slide.title == "Open science"
    assert slide.layout == "title"


def test_a_notebooks_hostile_cells_and_outputs_are_cleaned_on_the_staged_page(tmp_path):
    hostile = " ".join(p for p, _ in PAYLOADS)
    tex = r"$\text{<script>fetch('x')</script>}$"
    notebook = new_notebook(cells=[
        new_markdown_cell(f"# Hostile\n\n{hostile}\n\n{tex}",
                          metadata={"slideshow": {"slide_type": "slide"}}),
        new_code_cell("x", outputs=[
            new_output("display_data", data={"text/html": hostile}),
            new_output("display_data", data={"text/latex": tex}),
            new_output("display_data", data={"text/markdown": hostile})]),
        new_markdown_cell(f"notes {hostile} {tex}",
                          metadata={"slideshow": {"slide_type": "notes"}})])
    path = tmp_path / "hostile.ipynb"
    nbformat.write(notebook, path)
    deck = Deck(client=None, project_id="p")
    deck.add_notebook(path)
    page = deck.stage.files[0].data.decode()
    body = page.split("<body>", 1)[1]
    for _, gone in PAYLOADS:
        if gone != BEACON:  # the beacon's URL may stay as text (an escaped title)
            assert gone.lower() not in body.lower(), gone
    assert not LOADS_BEACON.search(body)


def test_a_remote_image_in_a_design_slide_cell_is_its_alt_text_marked_not_loaded():
    deck = Deck(client=None, project_id="p")
    deck.add_markdown("slides/a.html", f"# A\n\n![the logo]({BEACON}.png)")
    body = deck.stage.files[0].data.decode().split("<body>", 1)[1]
    assert BEACON not in body and "[image: the logo (not loaded)]" in body


def test_a_foreign_page_keeps_its_look_without_imports_urls_or_scripts():
    foreign = (f'<html><head><meta http-equiv="refresh" content="0;url={BEACON}">'
               f"<title>Their &amp; slide</title><style>@import url({BEACON}.css);"
               f"h1{{color:#c00;background:url({BEACON}.png)}}</style>"
               f'<script src="{BEACON}.js"></script></head>'
               f'<body onload="fetch(1)"><h1>Hi</h1><img src="{BEACON}.png" alt="x">'
               '<img src="assets/ok.png"></body></html>')
    page, title = page_for_export(foreign)
    assert title == "Their & slide"
    assert "h1{color:#c00;background:none}" in page
    assert not re.search(r"127\.0\.0\.1|<script|onload|@import|refresh", page)
    assert '<img src="assets/ok.png">' in page and "<h1>Hi</h1>" in page


def test_css_keeps_data_images_and_drops_every_other_url():
    css = clean_css("a{background:url(data:image/png;base64,AA)}b{background:url('//x/y')}")
    assert "data:image/png;base64,AA" in css and "//x/y" not in css
