"""The docs site's Mermaid blocks drawn as pictures at build time, offline: each ```mermaid
block becomes an inline SVG that a local Chromium drew with the Mermaid the JupyterLab
extension's dependencies install (`labextension/node_modules/mermaid`), every network
request refused; the page itself runs no script and loads nothing. Without Chromium or
that Mermaid the block stays its source, and the page says why under it."""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
from pathlib import Path

from docutils import nodes

DOCS = Path(__file__).resolve().parents[1]
CACHE = DOCS / "_generated" / "mermaid"
CHROMIUM = Path("/usr/bin/chromium")
#: where the Mermaid bundle is looked for (MERMAID_JS names another)
MERMAID_CANDIDATES = (DOCS.parent / "labextension" / "node_modules" / "mermaid" / "dist"
                      / "mermaid.min.js",)
#: said under a block left as its source
NOT_DRAWN = ("This picture is shown as its Mermaid source: the build draws it only where "
             "Chromium ({chromium}) and Mermaid (labextension/node_modules, after "
             "`jlpm install`) are installed.")


def mermaid_js() -> Path | None:
    named = os.environ.get("MERMAID_JS")
    for path in ([Path(named)] if named else []) + list(MERMAID_CANDIDATES):
        if path.is_file():
            return path
    return None


def _draw(source: str, script: Path) -> str:
    """The SVG Mermaid draws for `source`, in a headless Chromium with the network off."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: route.abort())
            page.set_content("<!doctype html><html><body></body></html>")
            page.add_script_tag(content=script.read_text(encoding="utf-8"))
            return page.evaluate(
                """async (source) => {
                    mermaid.initialize({startOnLoad: false, securityLevel: "strict",
                                        theme: "neutral", htmlLabels: false,
                                        flowchart: {htmlLabels: false}});
                    const {svg} = await mermaid.render("jdp-mermaid", source);
                    return svg;
                }""", source)
        finally:
            browser.close()


def draw(source: str) -> str | None:
    """The SVG for `source` (cached by its hash under docs/_generated), or None when it
    cannot be drawn here."""
    script = mermaid_js()
    if script is None or not CHROMIUM.is_file():
        return None
    key = hashlib.sha256(source.encode() + script.read_bytes()).hexdigest()[:16]
    cached = CACHE / f"{key}.svg"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    # Playwright's sync API needs a thread with no running event loop
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        svg = pool.submit(_draw, source, script).result(timeout=120)
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_text(svg, encoding="utf-8")
    return svg


def replace_blocks(app, doctree: nodes.document) -> None:
    """Each Mermaid code block: its picture (HTML builders), or its source and a note."""
    for block in list(doctree.findall(nodes.literal_block)):
        if block.get("language") != "mermaid":
            continue
        svg = draw(block.astext()) if app.builder.format == "html" else None
        if svg is not None:
            figure = nodes.raw("", f'<div class="jdp-mermaid">{svg}</div>', format="html")
            block.replace_self(figure)
        else:
            note = nodes.paragraph(text=NOT_DRAWN.format(chromium=CHROMIUM))
            block.parent.insert(block.parent.index(block) + 1, note)


def setup(app):
    from pygments.lexers.special import TextLexer

    app.add_lexer("mermaid", TextLexer)  # a block left as its source is plain text
    app.connect("doctree-read", replace_blocks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
