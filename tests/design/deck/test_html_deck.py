"""The HTML export's choice of renderer (`design/deck/html_deck.py`): the reveal.js file
when the renderer is in this build, the plain viewer otherwise, and said which; a slide
page's stylesheet scoped to the slides for reveal.js."""

from __future__ import annotations

import re

import pytest

from jupyter_design_projects.design.deck import export as exporting
from jupyter_design_projects.design.deck.html_deck import (
    PLAIN,
    SCOPE,
    html_document,
    page_background,
    scoped,
)


def test_page_level_rules_apply_to_the_slide_box_and_the_rest_inside_it():
    css = scoped("*{box-sizing:border-box}html,body{margin:0}.slide{min-height:100vh}"
                 "h1{color:#c00}")
    assert f"{SCOPE} *{{box-sizing:border-box}}" in css
    assert f"{SCOPE}{{margin:0}}" in css  # html and body are the slide's section
    assert f"{SCOPE} .slide{{min-height:720px}}" in css  # 100vh of a 1280x720 slide
    assert f"{SCOPE} h1{{color:#c00}}" in css
    assert "text-transform:none" in css  # the slide's own case over reveal.js's capitals
    # the slide's own alignment over reveal.js's centring, its own rules after it
    assert css.startswith(f"{SCOPE}{{text-align:left}}")


def test_at_rules_imports_and_urls_are_left_out():
    css = scoped("@import url(http://x/a.css);@media print{h1{color:red}}"
                 "@font-face{font-family:x;src:url(http://x/f.woff)}"
                 "p{background:url(http://x/b.png);color:blue}")
    assert "http" not in css and "@" not in css
    assert f"{SCOPE} p{{background:none;color:blue}}" in css


def test_without_reveal_js_built_the_plain_viewer_is_written_and_named(monkeypatch):
    from jupyter_design_projects.design.deck import reveal_assets
    from jupyter_design_projects.errors import ConfigError

    def not_built():
        raise ConfigError("HTML export", reveal_assets.NOT_BUILT)

    monkeypatch.setattr(reveal_assets, "packaged_assets", not_built)
    export = exporting.Export([exporting.ExportedSlide("slides/01.html", "One", "<p>1</p>",
                                                       "", "<p>1</p>", "")])
    document, kind = html_document(export, "Talk")
    assert kind == PLAIN and document == exporting.html_file(export, "Talk")


def slide_with_css(path: str, css: str, body: str = "<main class=\"slide\"><p>x</p></main>"):
    return exporting.ExportedSlide(path, path, f"<style>{css}</style>{body}", "", body, css)


def test_one_look_is_scoped_to_every_slide_and_no_slide_gets_a_look_class():
    css = "h2{color:#00aa00}"
    export = exporting.Export([slide_with_css("slides/01.html", css),
                               slide_with_css("slides/02.html", css)])
    document, _ = html_document(export, "Talk")
    assert f"{SCOPE} h2{{color:#00aa00}}" in document and "jdp-look-" not in document


def test_every_look_reaches_the_file_when_the_first_slide_is_the_services_picture():
    """The first slide exported as the service's picture carries a stylesheet of its own:
    the theme of the others must still reach the file, each look on its own slides."""
    picture = "html,body{margin:0}img{display:block;width:1280px;height:720px}"
    themed = "body{background:#ff00ff}h2{color:#00aa00}"
    export = exporting.Export([slide_with_css("slides/01.html", picture, "<img alt=x>"),
                               slide_with_css("slides/02.html", themed),
                               slide_with_css("slides/03.html", themed)])
    document, _ = html_document(export, "Talk")
    assert f"{SCOPE}.jdp-look-2 h2{{color:#00aa00}}" in document
    assert f"{SCOPE}.jdp-look-1 img{{display:block" in document
    sections = re.findall(r'<section class="([^"]*)" data-jdp-slide', document)
    assert sections == ["jdp-look-1", "jdp-look-2", "jdp-look-2"]


@pytest.mark.parametrize("css, background", [
    ("html,body{background:#fff}body{background-color:#f0f}",
     "background:#fff;background-color:#f0f"),
    ("body{background-color:#f0f}html{background:#123456}",
     "background-color:#f0f;background:#123456"),
    (":root{color:red}.slide{background:#f0f}", ""),  # not a page-level background
    ("body{background:url(http://x/b.png)}", "background:none"),  # cleaned as scoped cleans
])
def test_the_page_background_is_the_windows_around_the_slides(css, background):
    assert page_background(css) == background
