"""The HTML export's choice of renderer (`design/deck/html_deck.py`): the reveal.js file
when the renderer is in this build, the plain viewer otherwise, and said which; a slide
page's stylesheet scoped to the slides for reveal.js."""

from __future__ import annotations

import sys

from jupyter_design_projects.design.deck import export as exporting
from jupyter_design_projects.design.deck.html_deck import PLAIN, SCOPE, html_document, scoped


def test_page_level_rules_apply_to_the_slide_box_and_the_rest_inside_it():
    css = scoped("*{box-sizing:border-box}html,body{margin:0}.slide{min-height:100vh}"
                 "h1{color:#c00}")
    assert f"{SCOPE} *{{box-sizing:border-box}}" in css
    assert f"{SCOPE}{{margin:0}}" in css  # html and body are the slide's section
    assert f"{SCOPE} .slide{{min-height:720px}}" in css  # 100vh of a 1280x720 slide
    assert f"{SCOPE} h1{{color:#c00}}" in css
    assert "text-transform:none" in css  # the slide's own case over reveal.js's capitals


def test_at_rules_imports_and_urls_are_left_out():
    css = scoped("@import url(http://x/a.css);@media print{h1{color:red}}"
                 "@font-face{font-family:x;src:url(http://x/f.woff)}"
                 "p{background:url(http://x/b.png);color:blue}")
    assert "http" not in css and "@" not in css
    assert f"{SCOPE} p{{background:none;color:blue}}" in css


def test_without_the_reveal_renderer_the_plain_viewer_is_written_and_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "jupyter_design_projects.design.deck.reveal", None)
    export = exporting.Export([exporting.ExportedSlide("slides/01.html", "One", "<p>1</p>",
                                                       "", "<p>1</p>", "")])
    document, kind = html_document(export, "Talk")
    assert kind == PLAIN and document == exporting.html_file(export, "Talk")
