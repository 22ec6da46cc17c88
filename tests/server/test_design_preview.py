"""Page previews: the PNG is valid, sized from the viewport, and changes with the page."""

from __future__ import annotations

import io
import struct
import zlib

import pytest

from jupyter_design_projects.server.design import preview

PAGE = ("<html><head><title>Q3 Review</title><style>body{background:#ffffff;color:#1b1f24}"
        "</style><script>var hidden = 1;</script></head><body><h1>Quarterly &amp; Review</h1>"
        "<p>Active teams: 42</p><img src=\"img/logo.png\"><a href=\"https://x.example/\">x</a>"
        "<a href=\"#top\">top</a><link href=\"../support.js?v=2\"></body></html>")


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The PNG's chunks, each CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, data = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + data) & 0xFFFFFFFF
        out.append((kind, data))
        at += 12 + length
    return out


def test_png_has_signature_ihdr_idat_and_iend() -> None:
    parts = chunks(preview.render_png(PAGE))
    kinds = [kind for kind, _ in parts]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    width, height, depth, colour_type = struct.unpack(">IIBB", parts[0][1][:10])
    assert (width, height, depth, colour_type) == (320, 180, 8, 2)
    pixels = zlib.decompress(b"".join(data for kind, data in parts if kind == b"IDAT"))
    assert len(pixels) == height * (1 + width * 3)


def test_png_changes_when_the_page_text_changes() -> None:
    before = preview.render_png(PAGE)
    after = preview.render_png(PAGE.replace("Active teams: 42", "Active teams: 43"))
    assert before != after


def test_png_changes_when_the_page_colours_change() -> None:
    assert preview.render_png(PAGE) != preview.render_png(PAGE.replace("#ffffff", "#000000"))


def test_same_page_renders_the_same_png() -> None:
    assert preview.render_png(PAGE) == preview.render_png(PAGE)


@pytest.mark.parametrize(("viewport", "size"), [
    (None, (320, 180)),
    ((400, 300), (100, 75)),
    ((100, 100), (64, 64)),
    ((10_000, 10_000), (640, 640)),
])
def test_preview_size_follows_the_viewport_within_bounds(
        viewport: tuple[int, int] | None, size: tuple[int, int]) -> None:
    assert preview.preview_size(viewport) == size


def test_page_text_skips_scripts_and_styles_and_unescapes() -> None:
    title, text = preview.page_text(PAGE)
    assert title == "Q3 Review"
    assert text == "Quarterly & Review Active teams: 42 x top"


def test_title_falls_back_to_the_first_heading() -> None:
    assert preview.page_text("<h1>Agenda</h1><p>x</p>")[0] == "Agenda"


def test_referenced_keeps_only_relative_targets() -> None:
    assert preview.referenced(PAGE) == ["img/logo.png", "../support.js"]


# -- the real browser, and the fallback where there is none ------------------------------

DECK_PAGE = ('<html><head><title>Deck</title><link rel="stylesheet" href="theme.css">'
             '</head><body><h1>Chart of the week</h1><p class="lead">Real text</p>'
             '<img src="assets/chart.png" alt="chart"><img src="assets/gone.png">'
             '<script>console.warn("from the page")</script>'
             '<img src="https://cdn.example/x.png"></body></html>')
THEME_CSS = b"body{background:#112233;color:#ffffff}.lead{font-size:40px}"


def tiny_png(colour: tuple[int, int, int]) -> bytes:
    raw = b"".join(b"\x00" + bytes(colour) * 8 for _ in range(8))
    return (b"\x89PNG\r\n\x1a\n" + preview._chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2,
                                                                        0, 0, 0))
            + preview._chunk(b"IDAT", zlib.compress(raw)) + preview._chunk(b"IEND", b""))


FILES = {"slides/deck.html": DECK_PAGE.encode(), "slides/theme.css": THEME_CSS,
         "slides/assets/chart.png": tiny_png((255, 0, 0))}


@pytest.fixture(scope="module")
def browser_previewer():
    previewer = preview.Previewer(preview.Browser())
    assert previewer.browser.unavailable is None, previewer.browser.unavailable
    yield previewer
    previewer.close()


def test_the_browser_renders_real_text_css_images_console_and_failed_requests(
        browser_previewer) -> None:
    shown = browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None)
    assert shown.renderer == preview.RENDERER_BROWSER and shown.fallback_reason is None
    assert shown.text == "Chart of the week Real text"
    assert {"level": "warning", "text": "from the page"} in shown.console_logs
    urls = {r["url"]: r for r in shown.failed_requests}
    assert urls["slides/assets/gone.png"]["status"] == 404
    assert urls["https://cdn.example/x.png"]["status"] is None  # blocked, never fetched
    assert "slides/assets/chart.png" not in urls
    from PIL import Image

    picture = Image.open(io.BytesIO(shown.png)).convert("RGB")
    assert picture.size == (640, 360)  # the 1280x720 viewport at half scale
    assert picture.getpixel((630, 350)) == (0x11, 0x22, 0x33)  # the stylesheet was applied


def test_the_browser_is_launched_once_and_reused(browser_previewer) -> None:
    browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, (400, 300))
    thread = browser_previewer.browser._thread
    browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, (400, 300))
    assert thread is not None and browser_previewer.browser._thread is thread


def test_the_browser_starts_in_the_background_before_the_first_preview() -> None:
    browser = preview.Browser()
    try:
        browser.start()  # returns at once; the launch runs on the browser's thread
        thread = browser._thread
        assert thread is not None and thread.is_alive()
        browser.start()  # a second start is the same browser
        assert browser._thread is thread
        shot = browser.render("slides/deck.html", FILES.get, (400, 300), 0.5)
        assert shot.text.startswith("Chart of the week") and browser._thread is thread
    finally:
        browser.close()


def test_an_unavailable_browser_does_not_start(tmp_path) -> None:
    browser = preview.Browser(tmp_path / "no-chromium")
    browser.start()
    assert browser._thread is None and browser.unavailable is not None


def test_without_a_browser_the_result_says_so_and_uses_a_real_font(tmp_path) -> None:
    previewer = preview.Previewer(preview.Browser(tmp_path / "no-chromium"))
    shown = previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None)
    assert shown.renderer == preview.RENDERER_PILLOW
    assert "no browser is installed" in (shown.fallback_reason or "")
    assert shown.text == "Chart of the week Real text"
    assert {"url": "assets/gone.png", "status": 404} in shown.failed_requests
    assert {"url": "assets/chart.png", "status": 404} not in shown.failed_requests
    assert shown.png[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_a_font_the_fallback_is_the_block_glyph_drawing(tmp_path) -> None:
    previewer = preview.Previewer(preview.Browser(None), font=None)
    shown = previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None)
    assert shown.renderer == preview.RENDERER_GLYPHS
    assert shown.png == preview.render_png(DECK_PAGE, None)
    assert "turned off" in (shown.fallback_reason or "")


def test_a_dejavu_font_is_found_here() -> None:
    font = preview.find_font()
    assert font is not None and font.name == "DejaVuSans.ttf"


# -- render_preview and the design system, through the operations --------------------------

def operations(tmp_path, browser):
    from jupyter_design_projects.server.context import ServiceConfig, ServiceContext
    from jupyter_design_projects.server.database import Database
    from jupyter_design_projects.server.design import store
    from jupyter_design_projects.server.design.operations import DesignOperations

    ctx = ServiceContext(config=ServiceConfig(data_dir=tmp_path, preview_browser=browser),
                         db=Database(tmp_path / "design.sqlite3"))
    ctx.db.migrate(store.SCHEMA)
    store.seed_demo(ctx)
    return DesignOperations(ctx)


def test_a_service_without_a_browser_says_so_in_the_preview(tmp_path) -> None:
    import json

    from jupyter_design_projects.server.design.demo import DECK_ID

    ops = operations(tmp_path, None)
    reply = ops.render_preview("u", DECK_ID, "slides/03-metrics.html")
    summary = json.loads(reply.text)
    assert summary["renderer"] == preview.RENDERER_PILLOW
    assert "turned off" in summary["fallback_reason"]
    assert "pillow-dejavu" in summary["fallback_reason"]
    assert "Active teams: 42" in summary["text_content"]
    assert reply.png is not None and reply.png[:8] == b"\x89PNG\r\n\x1a\n"
    ops.close()


def test_the_prompt_of_a_project_describes_its_own_design_system(tmp_path) -> None:
    from jupyter_design_projects.server.design.demo import DARK_SYSTEM_ID, DECK_ID

    ops = operations(tmp_path, None)
    assert "## Design system: Acme Default" in ops.get_claude_design_prompt("u",
                                                                          project_id=DECK_ID)
    night = ops.create_project("u", "Night deck", DARK_SYSTEM_ID)["project_id"]
    assert "## Design system: Acme Night" in ops.get_claude_design_prompt("u",
                                                                        project_id=night)
    assert "## Design system: Acme Default" in ops.get_claude_design_prompt("u")
    ops.close()
