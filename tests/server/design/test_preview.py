"""Page previews: the PNG is valid, sized from the viewport, and changes with the page."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest

from jupyter_design_projects.server.design import preview
from jupyter_design_projects.server.design.browser import CHROMIUM

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
    assert picture.size == (2560, 1440)  # the 1280x720 viewport at device scale 2
    assert picture.getpixel((2550, 1430)) == (0x11, 0x22, 0x33)  # the stylesheet was applied


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


# -- device scale 2, fitted to the client's image limits, drawn side by side ---------------

def slide_files() -> dict[str, bytes]:
    """Eight slides as decks write them: text slides, and figures with a PNG asset."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from jupyter_design_projects.design.deck.slides import page, render_markdown
    from jupyter_design_projects.design.deck.theme import DEFAULT_THEME

    files: dict[str, bytes] = {}
    for n in range(1, 9):
        if n % 2:
            markdown = (f"# Slide {n}: quarterly review\n\n- Revenue grew **{n}2%** year over "
                        "year, ahead of plan\n- Churn fell to 2.1% after the onboarding rework"
                        "\n- Three new regions opened: Lisbon, Osaka, Austin\n\n> The best "
                        "quarter since 2019.\n\n`deck.push()` sends it.")
            body = render_markdown(markdown, {})
        else:
            figure, axes = plt.subplots(figsize=(8, 4.5))
            x = np.linspace(0, 10, 400)
            axes.plot(x, np.sin(x * n)), axes.plot(x, np.cos(x) * n)
            axes.set_title(f"Signal {n}")
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=100)
            plt.close(figure)
            files[f"slides/{n:02d}/figure.png"] = buffer.getvalue()
            body = f'<h2>Figure {n}</h2><figure><img src="{n:02d}/figure.png"></figure>'
        files[f"slides/{n:02d}.html"] = page(f"Slide {n}", body, DEFAULT_THEME).encode()
    return files


def test_fit_keeps_a_png_whose_base64_is_exactly_the_budget(browser_previewer) -> None:
    png = browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None).png
    budget = len(base64.b64encode(png))
    assert preview.fit(png, budget) == png


def test_fit_encodes_smaller_a_png_one_character_over_the_budget(browser_previewer) -> None:
    from PIL import Image

    png = browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None).png
    budget = len(base64.b64encode(png)) - 1
    fitted = preview.fit(png, budget)
    assert fitted is not None and fitted != png
    assert len(base64.b64encode(fitted)) <= budget
    assert Image.open(io.BytesIO(fitted)).size == (2560, 1440)  # a palette, not smaller


def test_fit_gives_none_when_no_encoding_fits(browser_previewer) -> None:
    png = browser_previewer.render("slides/deck.html", DECK_PAGE, FILES.get, None).png
    assert preview.fit(png, 100) is None


def test_an_eight_slide_grid_and_a_single_preview_fit_the_client_limits(tmp_path) -> None:
    import concurrent.futures
    import json

    from PIL import Image

    from jupyter_design_projects.core.results import map_result
    from jupyter_design_projects.server.design.demo import DECK_ID
    from jupyter_design_projects.server.design.files import FileWrite
    from jupyter_design_projects.server.design.mcp import _result

    ops = operations(tmp_path, CHROMIUM)
    try:
        files = slide_files()
        ops.files.write(DECK_ID, [FileWrite(p, data) for p, data in files.items()])
        slides = sorted(p for p in files if p.endswith(".html"))
        with concurrent.futures.ThreadPoolExecutor(8) as pool:  # as the SDK's worker threads
            replies = list(pool.map(lambda p: ops.render_preview("u", DECK_ID, p), slides))
        for reply in replies:
            wire = _result(reply).model_dump(by_alias=True, exclude_none=True)
            mapped = map_result(wire)
            kinds = [block["type"] for block in mapped.blocks]
            assert kinds == ["text", "image"], mapped.blocks[-1]
            image = mapped.blocks[1]["source"]["data"]
            assert len(image) + len(mapped.blocks[0]["text"]) <= 130_000
            assert json.loads(reply.text)["renderer"] == preview.RENDERER_BROWSER
            assert Image.open(io.BytesIO(reply.png)).size == (2560, 1440)
        browser = ops.previews.browser
        assert len(browser._contexts) == 1  # one project: its pages share one context
        assert browser.peak_pages > 1  # and several were open at once
    finally:
        ops.close()
