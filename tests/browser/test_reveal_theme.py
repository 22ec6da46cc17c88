"""A theme file of the person's own (`--theme mine.css`) reaches the reveal.js export, and
loads nothing there. Through the whole path — the file read by `chosen_theme` (its
`@import`s and `url()`s dropped), a talk staged under it, the pages exported as the
project holds them, the reveal.js file written — its background colour is the slide's and
the window's, its rules win over the deck's own, and a loopback beacon named in its
`@import`, a `background:url()` and an `@font-face` gets no request. The same CSS handed
to the renderer raw is stopped by the file's Content-Security-Policy alone (Chromium
reports the violations), and without the policy it does reach the beacon, so the harness
sees a load when one happens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.deck.html_deck import REVEAL, html_document
from jupyter_design_projects.design.deck.reveal import RevealSlide, reveal_document
from tests.deck_staged import staged_export
from tests.hostile_content import beacon

TALK = Path(__file__).parents[1] / "fixtures" / "talk" / "talk.ipynb"
MAGENTA = "rgb(255, 0, 255)"
GREEN = "rgb(0, 170, 0)"
READY = "() => window.Reveal !== undefined && Reveal.isReady()"


def own_css(url: str = "") -> str:
    remote = (f"@import url({url}/import.css);"
              f"@font-face{{font-family:Far;src:url({url}/font.woff)}}"
              f".slide{{background-image:url({url}/bg.png)}}" if url else "")
    return (remote + "body{background:#ff00ff}h2{color:#00aa00;font-family:Far,sans-serif}"
            ".jdp-code{font-size:41px}")


def themed_export(tmp_path: Path, css: str) -> str:
    mine = tmp_path / "mine.css"
    mine.write_text(css, encoding="utf-8")
    deck = Deck(client=None, project_id="p")
    deck.use_theme(str(mine))
    deck.add_notebook(TALK, code=True)
    document, kind = html_document(staged_export(deck), "Themed")
    assert kind == REVEAL
    return document


def opened(chromium, document: str, folder: Path, query: str = "#/4"):
    """The file opened from file:// with the network left open (the beacon must be
    reachable for its zero to mean anything); the context and the page."""
    path = folder / f"deck-{abs(hash(document))}.html"
    path.write_text(document, encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(
        "window.__violations = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__violations.push(e.violatedDirective));")
    page = context.new_page()
    page.goto(path.as_uri() + query)
    page.wait_for_function(READY)
    page.wait_for_load_state("networkidle")
    return context, page


def test_the_theme_files_background_and_rules_show_in_the_reveal_export(chromium, tmp_path):
    context, page = opened(chromium, themed_export(tmp_path, own_css()), tmp_path)
    try:
        colours = page.evaluate("""() => {
            const section = document.querySelector('section.present');
            return [getComputedStyle(section).backgroundColor,
                    getComputedStyle(document.querySelector('.reveal-viewport')).backgroundColor,
                    getComputedStyle(section.querySelector('h2')).color,
                    getComputedStyle(section.querySelector('.jdp-code')).fontSize]}""")
        box = page.locator("section.present").bounding_box()
        shot = page.screenshot()
    finally:
        context.close()
    assert colours == [MAGENTA, MAGENTA, GREEN, "41px"]  # its rule beats the deck's 20px
    from io import BytesIO

    from PIL import Image

    picture = Image.open(BytesIO(shot)).convert("RGB")
    assert box["x"] > 4 and box["y"] > 4  # reveal.js's margin: the window shows around it
    inside = (int(box["x"] + 8), int(box["y"] + box["height"] - 8))  # the slide's corner
    assert picture.getpixel(inside) == picture.getpixel((2, 2)) == (255, 0, 255)


def test_a_theme_files_remote_loads_are_dropped_and_reach_no_beacon(chromium, tmp_path):
    with beacon() as spot:
        document = themed_export(tmp_path, own_css(spot.url))
        assert spot.url not in document and "@import" not in document
        context, page = opened(chromium, document, tmp_path)
        try:
            page.evaluate("() => document.fonts.ready")
            looked = page.evaluate("() => getComputedStyle(document.querySelector("
                                   "'section.present h2')).color")
        finally:
            context.close()
        hits = list(spot.hits)
    assert looked == GREEN  # the file's other rules still apply
    assert hits == []


def raw_themed_deck(url: str) -> str:
    slide = RevealSlide('<main class="slide"><h2>Raw</h2><p>text</p></main>', title="Raw")
    return reveal_document([slide], title="Raw", theme_css=(
        f"@import url({url}/import.css);@font-face{{font-family:Far;src:url({url}/font.woff)}}"
        f".reveal h2{{font-family:Far}}.reveal .slides section{{background:url({url}/bg.png)}}"))


@pytest.mark.parametrize("policy", [True, False])
def test_raw_remote_css_is_stopped_by_the_policy_alone_and_loads_without_it(
        chromium, tmp_path, policy):
    with beacon() as spot:
        document = raw_themed_deck(spot.url)
        if not policy:
            document = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "",
                              document, count=1)
            assert "Content-Security-Policy" not in document
        context, page = opened(chromium, document, tmp_path, query="")
        try:
            page.evaluate("() => document.fonts.ready")
            page.wait_for_load_state("networkidle")
            violations = page.evaluate("window.__violations")
        finally:
            context.close()
        hits = set(spot.hits)
    if policy:
        assert hits == set() and {"style-src-elem", "img-src", "font-src"} <= set(violations)
    else:
        assert {"/import.css", "/bg.png", "/font.woff"} <= hits
