"""Hostile content for rendering tests: a loopback beacon that records every request it
gets, payloads that try to run script (setting `window.__pwned`) or load from the beacon
in every way HTML, CSS, SVG and MathML allow, the reference service's hostile-content
switch, and a Chromium page that renders HTML as a notebook shows it (script on) and
says what ran and what was requested."""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from jupyter_design_projects.transport.http import loopback_tls


@dataclasses.dataclass
class Beacon:
    """A loopback HTTP server's URL and the path of every request it got."""

    url: str
    hits: list[str]


@contextlib.contextmanager
def beacon() -> Iterator[Beacon]:
    """A loopback HTTP server that records the path of every request it gets."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Beacon(f"http://127.0.0.1:{server.server_address[1]}", hits)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def payloads(url: str) -> dict[str, str]:
    """Each payload by name; each runs `window.__pwned = 1` or loads `url/<name>` if it is
    ever parsed as HTML (or, for the Markdown one, rendered as Markdown)."""
    run = "window.__pwned=1;fetch('{url}/{name}')"
    table = {
        "script": "<script>{run}</script>",
        "onerror": '<img src=x onerror="{run}">',
        "img": '<img src="{url}/{name}">',
        "onload": '<style onload="{run}"></style>',
        "breakout": "\"'><img src=x onerror=\"{run}\">",
        "breakout-single": "'\"><svg onload=\"{run}\">",
        "ontoggle": '<details open ontoggle="{run}"><summary>d</summary></details>',
        "iframe": '<iframe src="{url}/{name}"></iframe>',
        "import": "<style>@import url({url}/{name});</style>",
        "css-url": '<div style="background-image:url({url}/{name})">c</div>',
        "object": '<object data="{url}/{name}"></object>',
        "embed": '<embed src="{url}/{name}">',
        "srcset": '<img srcset="{url}/{name} 1x">',
        "refresh": '<meta http-equiv="refresh" content="0;url={url}/{name}">',
        "js-link": '<a class="jdp-js" href="javascript:{run}">link</a>',
        "svg": '<svg onload="{run}"><image href="{url}/{name}-image"/></svg>',
        "mathml": '<math><mtext><img src=x onerror="{run}"></mtext></math>',
        "autofocus": '<input autofocus onfocus="{run}">',
        "markdown": "![m]({url}/{name})",
    }
    shown = {}
    for name, template in table.items():
        script = run.format(url=url, name=name)
        shown[name] = template.format(url=url, name=name, run=script)
    return shown


def all_payloads(url: str) -> str:
    """Every payload in one string."""
    return "".join(payloads(url).values())


def set_hostile(base_url: str, payload: str | None, *, names: bool = False,
                keep: tuple[str, ...] = ()) -> Any:
    """Turn the service's hostile-content switch on with `payload` (None: off); `names`:
    tool names carry it too; `keep`: keys whose values stay clean."""
    body: dict[str, Any] = {"names": names, "keep": list(keep)}
    if payload is not None:
        body["payload"] = payload
    with httpx.Client(base_url=base_url, timeout=30.0, verify=loopback_tls()) as http_client:
        answer = http_client.post("/_faults/hostile", json=body)
    answer.raise_for_status()
    return answer.json()


@dataclasses.dataclass
class Rendered:
    """What rendering some HTML did: whether script ran, the beacon's hits, the URLs
    Chromium asked for outside the page, and the javascript: links left in it."""

    pwned: list[Any]
    hits: list[str]
    requested: list[str]
    js_links: int
    navigated: list[str]


def _settled(page: Any, script: str) -> Any:
    """`script` evaluated once the page stops navigating (a meta refresh, a link)."""
    for _ in range(5):
        page.wait_for_load_state("load")
        try:
            return page.evaluate(script)
        except Exception as error:  # the context was destroyed by a navigation
            if "navigat" not in str(error) and "destroyed" not in str(error):
                raise
    return page.evaluate(script)


def render(browser: Any, documents: list[str], spot: Beacon) -> Rendered:
    """Each of `documents` set as a page's content (script on, as a notebook output's HTML
    runs), every details opened and every javascript: link clicked, then the page let
    settle; what ran and what was asked for."""
    context = browser.new_context()
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    pwned: list[Any] = []
    navigated: list[str] = []
    js_links = 0
    try:
        for document in documents:
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.set_content(document, wait_until="load")
            js_links += _settled(
                page, "() => document.querySelectorAll('a[href^=\"javascript:\" i]').length")
            for link in page.locator('a[href^="javascript:" i]').all():
                with contextlib.suppress(Exception):
                    link.click(timeout=2_000, force=True)
            page.wait_for_load_state("networkidle")
            pwned.append(_settled(page, "() => window.__pwned === undefined ? null : 1"))
            if page.url != "about:blank":
                navigated.append(page.url)
            page.close()
    finally:
        context.close()
    outside = [u for u in requested if not u.startswith(("about:", "data:"))]
    return Rendered(pwned, list(spot.hits), outside, js_links, navigated)


def page_of(fragments: list[str]) -> str:
    """Fragments of HTML as one notebook page shows outputs: each in its own div."""
    body = "".join(f'<div class="output">{fragment}</div>' for fragment in fragments)
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>"
