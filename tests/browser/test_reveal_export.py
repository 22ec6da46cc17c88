"""The reveal.js HTML export opened from a file:// URL in Debian's Chromium, offline: every
request that is not for the file itself is counted (and aborted), and must stay at zero.
Fragments step in order with Right and Space, Esc shows the overview, the deck scales to
the window, `?print-pdf` prints one page per slide with its fragments shown, and `S` opens
the speaker view with the notes only when the deck carries them. Hostile slide and notes
content that slipped past the sanitizer runs no script and loads nothing (a loopback
beacon counts): the file's Content-Security-Policy stops it, and the same file without
its policy does reach the beacon, so the harness can see a load when one happens."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from jupyter_design_projects.design.deck.reveal import RevealSlide, reveal_document
from tests.hostile_content import beacon  # the loopback beacon the hostile tests share

#: Playwright's wait for one step of the deck (ms); every wait is bounded by it
STEP_MS = 15_000
READY = "() => window.Reveal !== undefined && Reveal.isReady()"
VISIBLE_FRAGMENTS = """() => [...document.querySelectorAll('section.present .fragment.visible')]
    .map(f => f.textContent.trim())"""
SLIDES = (
    RevealSlide("<h1>Decks you can hand out</h1><p>Ada Lovelace</p>",
                notes="<p>Welcome everyone</p>", title="Decks you can hand out"),
    RevealSlide("<h2>Three steps</h2>", fragments=("<p>alpha</p>", "<p>beta</p>",
                                                   "<p>gamma</p>"),
                notes="<p>Take the steps slowly</p>"),
    RevealSlide("<h2>Questions</h2>", notes="<p>Thank the room</p>"),
)


@dataclasses.dataclass
class Opened:
    page: object
    context: object
    remote: list[str]  # every request the browser tried that is not for a file: URL
    answered: list[str]  # those of them that got an answer (one the CSP blocked gets none)


@pytest.fixture
def open_deck(chromium, tmp_path: Path):
    """open_deck(document, width, height, query) → the deck opened from a file:// URL, its
    network blocked and counted; closed after the test."""
    contexts = []

    def opened(document: str, width: int = 1280, height: int = 720, query: str = "",
               block: bool = True) -> Opened:
        path = tmp_path / f"deck-{len(contexts)}.html"
        path.write_text(document, encoding="utf-8")
        context = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        remote: list[str] = []

        def count(request) -> None:
            if not request.url.startswith(("file:", "data:", "about:")):
                remote.append(request.url)

        context.on("request", count)
        answered: list[str] = []
        context.on("response", lambda response: None if response.url.startswith(
            ("file:", "data:", "about:")) else answered.append(response.url))
        if block:
            context.route(re.compile(r"^(?!file:)"), lambda route: route.abort())
        context.add_init_script(
            "window.__violations = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__violations.push(e.violatedDirective));")
        page = context.new_page()
        page.set_default_timeout(STEP_MS)
        page.goto(path.as_uri() + query)
        page.wait_for_function(READY)
        return Opened(page, context, remote, answered)

    yield opened
    for context in contexts:
        context.close()


def visible(page) -> list[str]:
    return page.evaluate(VISIBLE_FRAGMENTS)


def press_until(page, key: str, expected: list[str]) -> None:
    page.keyboard.press(key)
    page.wait_for_function(f"expected => JSON.stringify(({VISIBLE_FRAGMENTS})()) === "
                           "JSON.stringify(expected)", arg=expected)


def test_right_and_space_step_the_fragments_in_order(open_deck):
    deck = open_deck(reveal_document(SLIDES, title="Talk"))
    page = deck.page
    assert page.evaluate("Reveal.getIndices().h") == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => Reveal.getIndices().h === 1")
    assert visible(page) == []
    press_until(page, "ArrowRight", ["alpha"])
    press_until(page, "Space", ["alpha", "beta"])
    press_until(page, "ArrowRight", ["alpha", "beta", "gamma"])
    press_until(page, "ArrowLeft", ["alpha", "beta"])
    # the step back fades the third fragment out (a CSS transition)
    page.wait_for_function("() => getComputedStyle(document.querySelectorAll("
                           "'section.present .fragment')[2]).opacity === '0'")
    press_until(page, "ArrowRight", ["alpha", "beta", "gamma"])
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => Reveal.getIndices().h === 2")
    assert deck.remote == []


def test_a_fragment_marked_in_the_body_steps_before_the_listed_ones(open_deck):
    slide = RevealSlide('<h2>Marked</h2><p class="fragment">zero</p>',
                        fragments=("<p>one</p>",))
    page = open_deck(reveal_document([slide], title="Talk")).page
    assert visible(page) == []
    press_until(page, "ArrowRight", ["zero"])
    press_until(page, "ArrowRight", ["zero", "one"])


def test_escape_shows_the_overview_and_closes_it(open_deck):
    deck = open_deck(reveal_document(SLIDES, title="Talk"))
    page = deck.page
    page.keyboard.press("Escape")
    page.wait_for_function("() => Reveal.isOverview()")
    assert page.evaluate("document.querySelector('.reveal').classList.contains('overview')")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !Reveal.isOverview()")
    assert deck.remote == []


@pytest.mark.parametrize(("width", "height"), [(480, 270), (640, 480), (1920, 1080)])
def test_the_slides_scale_to_fit_the_window(open_deck, width, height):
    deck = open_deck(reveal_document(SLIDES, title="Talk"), width=width, height=height)
    box = deck.page.evaluate("() => { const r = document.querySelector('.slides')"
                             ".getBoundingClientRect(); return [r.left, r.top, r.right,"
                             " r.bottom, r.width, r.height]; }")
    left, top, right, bottom, shown_width, shown_height = box
    scale = deck.page.evaluate("Reveal.getScale()")
    assert 0 <= left and right <= width and 0 <= top and bottom <= height
    assert shown_width == pytest.approx(1280 * scale, abs=2)
    assert shown_height == pytest.approx(720 * scale, abs=2)
    assert (scale < 1) is (width < 1280)
    assert deck.remote == []


def test_print_pdf_gives_one_page_per_slide_with_its_fragments_shown(open_deck):
    deck = open_deck(reveal_document(SLIDES, title="Decks you can hand out", author="Ada"),
                     query="?print-pdf")
    page = deck.page
    page.wait_for_function("() => document.querySelectorAll('.pdf-page').length === 3")
    pdf = PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True, print_background=True)))
    # the theme sets headings in capitals
    texts = [" ".join(p.extract_text().lower().split()) for p in pdf.pages]
    assert len(texts) == 3
    assert "decks you can hand out" in texts[0] and "ada lovelace" in texts[0]
    at = [texts[1].find(word) for word in ("three steps", "alpha", "beta", "gamma")]
    assert -1 not in at and at == sorted(at)
    assert "questions" in texts[2]
    assert pdf.metadata.title == "Decks you can hand out"
    width, height = pdf.pages[0].mediabox.width, pdf.pages[0].mediabox.height
    assert float(width) / float(height) == pytest.approx(16 / 9, rel=0.05)
    assert not any("welcome everyone" in t for t in texts)  # notes are not printed
    assert deck.remote == []


def test_s_opens_the_speaker_view_with_the_notes_offline(open_deck):
    deck = open_deck(reveal_document(SLIDES, title="Talk", notes=True))
    page = deck.page
    with page.expect_popup() as popup_info:
        page.keyboard.press("s")
    speaker = popup_info.value
    notes = "() => document.querySelector('.speaker-controls-notes .value').textContent"
    speaker.wait_for_function(f"() => ({notes})().includes('Welcome everyone')")
    speaker.wait_for_function("() => document.querySelectorAll('#current-slide iframe')"
                              ".length === 1")
    [current] = [f for f in speaker.frames if "postMessageEvents=true" in f.url]
    current.wait_for_function(READY)
    page.keyboard.press("ArrowRight")
    speaker.wait_for_function(f"() => ({notes})().includes('Take the steps slowly')")
    current.wait_for_function("() => Reveal.getIndices().h === 1")
    assert speaker.evaluate("window.__violations") == []
    assert page.evaluate("window.__violations") == []
    assert deck.remote == []


def test_without_notes_there_is_no_speaker_view_and_no_notes(open_deck):
    deck = open_deck(reveal_document(SLIDES, title="Talk", notes=False))
    page = deck.page
    assert page.evaluate("() => Reveal.hasPlugin('notes')") is False
    assert page.evaluate("() => document.querySelectorAll('aside.notes').length") == 0
    page.keyboard.press("s")
    assert page.evaluate("() => Reveal.getIndices().h") == 0  # a round trip after the key
    assert deck.context.pages == [page]
    assert deck.remote == []


# ---------------------------------------------------------------- hostile content



def payloads(url: str, nested: bool = False) -> str:
    """Content a sanitizer should have removed: each part tries to run script (which sets
    window.__ran) or to load something from `url`. `nested`: also a section inside the
    slide (reveal.js then makes the slide a vertical stack, whose own notes are not shown)."""
    return "".join([
        f"<script>window.__ran = 1; fetch('{url}/script')</script>",
        f"<img src=\"x\" onerror=\"window.__ran = 1; fetch('{url}/onerror')\">",
        f'<img src="{url}/img"><img srcset="{url}/srcset 1x"><img data-src="{url}/lazy">',
        f'<iframe src="{url}/iframe"></iframe><iframe src="file:///etc/hostname"></iframe>',
        f"<iframe srcdoc=\"<script>parent.__ran = 1</script><img src='{url}/srcdoc'>\"></iframe>",
        f'<object data="{url}/object"></object><embed src="{url}/embed">',
        f'<video poster="{url}/poster" src="{url}/video" autoplay muted></video>',
        f'<audio src="{url}/audio" autoplay></audio>',
        f"<style>@import url({url}/import.css); .bg {{ background: url({url}/css-bg) }}</style>",
        f'<div class="bg">bg</div><div style="background-image: url({url}/style)">st</div>',
        f'<link rel="stylesheet" href="{url}/link.css"><link rel="preconnect" href="{url}">',
        f'<meta http-equiv="refresh" content="0; url={url}/refresh">',
        f'<base href="{url}/base/"><img src="relative.png">',
        f'<svg><image href="{url}/svg-image" width="9" height="9"/></svg>',
        "<svg onload=\"window.__ran = 1\"></svg>",
        f"<details open ontoggle=\"window.__ran = 1; fetch('{url}/ontoggle')\">"
        "<summary>d</summary></details>",
        f'<section data-background-image="{url}/background"><p>nested</p></section>'
        if nested else "",
        "<math><mtext><script>window.__ran = 1</script></mtext></math>",
        '<a id="jdp-js-link" href="javascript:window.__ran = 1">link</a>',
        f'<form action="{url}/form"><button id="jdp-submit">go</button></form>',
        '<input autofocus onfocus="window.__ran = 1">',
    ])


def hostile_deck(url: str) -> str:
    bad = payloads(url)
    slides = [RevealSlide(f"<h2>One</h2>{bad}", fragments=(bad, bad), notes=bad,
                          title="One"),
              RevealSlide(f"<h2>Two</h2>{payloads(url, nested=True)}", notes=bad, title="Two")]
    return reveal_document(slides, title="Hostile", notes=True)


def visit_everything(page) -> None:
    """Step through every slide and fragment, the overview, and click what a person might."""
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    for selector in ("#jdp-js-link", "#jdp-submit"):
        with contextlib.suppress(Exception):
            page.locator(selector).first.click(timeout=2_000, force=True)
    page.wait_for_load_state("networkidle")


def ran_anywhere(*pages) -> list[object]:
    return [frame.evaluate("() => window.__ran === undefined ? null : window.__ran")
            for page in pages for frame in page.frames if not frame.is_detached()]


def test_hostile_content_runs_no_script_and_loads_nothing_under_the_policy(open_deck):
    with beacon() as spot:
        url, hits = spot.url, spot.hits
        deck = open_deck(hostile_deck(url), block=False)
        page = deck.page
        with page.expect_popup() as popup_info:
            page.keyboard.press("s")
        speaker = popup_info.value
        speaker.wait_for_function("() => document.querySelector("
                                  "'.speaker-controls-notes .value').innerHTML.length > 0")
        visit_everything(page)
        speaker.wait_for_load_state("networkidle")
        printed = open_deck(hostile_deck(url), block=False, query="?print-pdf")
        printed.page.pdf(prefer_css_page_size=True)
        printed.page.wait_for_load_state("networkidle")
        ran = ran_anywhere(page, speaker, printed.page)
        assert len(ran) >= 3 and set(ran) == {None}
        assert page.url.startswith("file:")
        assert [f.url for f in page.frames] == [page.url]  # no frame from the content
        assert page.evaluate("window.__violations")  # the policy is what stopped them
        loaded = list(hits)
    assert loaded == []
    assert deck.answered == [] and printed.answered == []
    # what the policy stopped was tried (Chromium reports a blocked request as tried)
    assert any(u.endswith("/img") for u in deck.remote)
    assert [u for u in deck.remote + printed.remote if "/refresh" in u] == []


def test_the_same_content_without_the_policy_does_reach_the_beacon(open_deck):
    """The harness sees a load when one happens: the hostile file with its CSP meta tag
    removed loads from the beacon and runs the script."""
    with beacon() as spot:
        url, hits = spot.url, spot.hits
        document = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "",
                          hostile_deck(url), count=1)
        assert "Content-Security-Policy" not in document
        deck = open_deck(document, block=False)
        visit_everything(deck.page)
        assert 1 in ran_anywhere(deck.page)
        loaded = set(hits)
    assert {"/script", "/img", "/lazy"} <= loaded
