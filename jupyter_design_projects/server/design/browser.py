"""The reference service's one headless browser: Playwright's async API driving Debian's
chromium on an event loop of its own thread, launched when the service starts (or on the
first preview) and reused until the service stops. Renders run in parallel: each is a page
of its project's browser context (one context per project and device scale, so a push's
grid draws its slides side by side, and one project's pages never share storage with
another's). Every request a page makes is answered from the project's files (anything else
is blocked and reported), and each render collects what the page really did: its console
messages, its failed requests, its visible text and a screenshot.

Never `playwright install`: the executable is the system chromium, given by path.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import concurrent.futures
import dataclasses
import mimetypes
import posixpath
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-sync", "--no-first-run",
                 "--metrics-recording-only", "--mute-audio"]
#: the made-up origin pages are loaded from; every request to it is answered from the files
ORIGIN = "http://design-preview.invalid"
#: the longest one render may take (launching the browser included)
RENDER_DEADLINE_S = 30.0
PAGE_TIMEOUT_MS = 15_000
#: characters kept of one console message
CONSOLE_TEXT_CHARS = 500
#: browser contexts kept open (one per project and scale); the least recently used idle
#: one is closed past this
CONTEXTS_MAX = 4
#: idle pages a context keeps for the next renders (as many as a grid draws at once)
TABS_KEPT = 8

#: fetch(project-relative path) -> the file's bytes, or None when the project has no such file
Fetch = Callable[[str], bytes | None]


class BrowserUnavailable(Exception):
    """No browser can render here; `reason` says why (shown in the preview's result)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Shot:
    png: bytes
    text: str
    console_logs: list[dict[str, Any]]
    failed_requests: list[dict[str, Any]]


def unavailable_reason(executable: Path | None) -> str | None:
    """Why no browser can run here, or None when one can."""
    if executable is None:
        return "previews in a browser are turned off for this service"
    if not executable.is_file():
        return f"no browser is installed at {executable}"
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed"
    return None


class Browser:
    """One chromium for the whole service, driven from its own thread's event loop;
    `render` may be called from any thread, and several renders run at once."""

    def __init__(self, executable: Path | None = CHROMIUM) -> None:
        self.executable = executable
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._failure: str | None = unavailable_reason(executable)
        #: set once the browser is launched (or failed to launch)
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._browser: Any = None
        #: (key, scale) -> [the context (a future), pages open in it], least recently used
        #: first
        self._contexts: collections.OrderedDict[tuple[str, float], list[Any]] = (
            collections.OrderedDict())
        #: the most pages one context had open at once (renders running side by side)
        self.peak_pages = 0

    @property
    def unavailable(self) -> str | None:
        return self._failure

    def render(self, path: str, fetch: Fetch, viewport: tuple[int, int],
               scale: float, key: str = "") -> Shot:
        """Load `path` from the project's files and screenshot it at viewport × scale,
        as a page of the browser context of `key` (the project) and `scale`."""
        with self._lock:
            if self._failure is not None:
                raise BrowserUnavailable(self._failure)
            self._start()
        if not self._ready.wait(RENDER_DEADLINE_S):
            raise BrowserUnavailable(
                f"the browser did not start within {RENDER_DEADLINE_S:g} s")
        loop = self._loop
        if self._failure is not None or loop is None:
            raise BrowserUnavailable(self._failure or "the browser is not running")
        future = asyncio.run_coroutine_threadsafe(
            self._shoot(path, fetch, viewport, scale, key), loop)
        try:
            return future.result(timeout=RENDER_DEADLINE_S)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise BrowserUnavailable(
                f"the browser did not finish within {RENDER_DEADLINE_S:g} s") from None
        except BrowserUnavailable:
            raise
        except Exception as exc:
            raise BrowserUnavailable(f"{type(exc).__name__}: {exc}"[:300]) from None

    def start(self) -> None:
        """Launch the browser in the background now (the service does as it starts), so
        the first preview does not wait for it; returns at once. No-op when unavailable."""
        with self._lock:
            if self._failure is None:
                self._start()

    def _start(self) -> None:  # holding the lock
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="jdp-preview-browser",
                                            daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the browser (if it ever started) and wait for its thread, boundedly."""
        with self._lock:
            thread, self._thread = self._thread, None
            if self._failure is None:
                self._failure = "the service is stopping"
        if thread is not None:
            self._ready.wait(RENDER_DEADLINE_S)
            loop, stop = self._loop, self._stop
            if loop is not None and stop is not None:
                try:
                    loop.call_soon_threadsafe(stop.set)
                except RuntimeError:  # the loop already ended
                    pass
            thread.join(timeout=RENDER_DEADLINE_S)

    # ---------------------------------------------------------------- the browser thread

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception as exc:  # the browser could not start or died: say so from now on
            with self._lock:
                if self._failure is None:
                    self._failure = f"the browser failed: {type(exc).__name__}: {exc}"[:300]
        finally:
            self._loop = None
            self._ready.set()

    async def _main(self) -> None:
        from playwright.async_api import async_playwright

        self._stop = asyncio.Event()
        async with async_playwright() as playwright:
            self._browser = await playwright.chromium.launch(
                executable_path=str(self.executable), args=CHROMIUM_ARGS)
            self._loop = asyncio.get_running_loop()
            self._ready.set()
            try:
                await self._stop.wait()
            finally:
                self._loop = None
                await self._browser.close()

    async def _context(self, key: str, scale: float) -> list[Any]:
        """The context of (key, scale) as [context (a future), pages busy, idle tabs],
        made once on first use (renders arriving together wait for the same one); idle
        contexts past CONTEXTS_MAX are closed, least recently used first."""
        entry = self._contexts.get((key, scale))
        if entry is None:
            made = asyncio.ensure_future(self._browser.new_context(device_scale_factor=scale))
            entry = self._contexts[(key, scale)] = [made, 0, []]
            idle = [k for k, v in self._contexts.items() if v[1] == 0 and k != (key, scale)]
            for old in idle[:max(0, len(self._contexts) - CONTEXTS_MAX)]:
                await (await self._contexts.pop(old)[0]).close()
        self._contexts.move_to_end((key, scale))
        return entry

    async def _shoot(self, path: str, fetch: Fetch, viewport: tuple[int, int],
                     scale: float, key: str) -> Shot:
        """A render on an idle tab of the context (a new one when all are busy); the tab
        goes back to the context's pool after, up to TABS_KEPT of them."""
        entry = await self._context(key, scale)
        entry[1] += 1
        self.peak_pages = max(self.peak_pages, entry[1])
        tab: _Tab | None = None
        try:
            context = await entry[0]
            tab = entry[2].pop() if entry[2] else await _Tab.open(context)
            shot = await tab.shoot(path, fetch, viewport, scale)
            if len(entry[2]) < TABS_KEPT:
                entry[2].append(tab)
                tab = None
            return shot
        finally:
            entry[1] -= 1
            if tab is not None:
                await tab.close()


def _content_type(path: str) -> str:
    guessed, _ = mimetypes.guess_type(path)
    if guessed is None:
        return "application/octet-stream"
    return guessed + ("; charset=utf-8" if guessed.startswith("text/") or
                      guessed in ("application/javascript", "application/json") else "")


class _Tab:
    """One page of a context, kept for the next render (a new page costs more than a
    render): its request handler and listeners answer for the render it is doing now."""

    def __init__(self, page: Any, cdp: Any) -> None:
        self.page, self.cdp = page, cdp
        self.fetch: Fetch = lambda _path: None
        self.console: list[dict[str, Any]] = []
        self.failed: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, context: Any) -> _Tab:
        page = await context.new_page()
        tab = cls(page, await context.new_cdp_session(page))
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        await page.route("**/*", tab.answer)
        page.on("console", lambda message: tab.console.append(
            {"level": message.type, "text": message.text[:CONSOLE_TEXT_CHARS]}))
        page.on("pageerror", lambda error: tab.console.append(
            {"level": "error", "text": str(error)[:CONSOLE_TEXT_CHARS]}))
        return tab

    async def answer(self, route: Any) -> None:
        """Every request: the project's file, a 404, or blocked (anything not the origin)."""
        url = route.request.url
        if url.startswith(ORIGIN + "/"):
            wanted = posixpath.normpath(unquote(urlsplit(url).path).lstrip("/"))
            body = self.fetch(wanted)
            if body is None:
                self.failed.append({"url": wanted, "status": 404})
                await route.fulfill(status=404, body=b"", content_type="text/plain")
            else:
                await route.fulfill(status=200, body=body, content_type=_content_type(wanted))
            return
        if url.startswith("about:"):
            await route.continue_()
            return
        self.failed.append({"url": url, "status": None,
                            "error": "blocked: a preview loads only the project's own files"})
        if route.request.is_navigation_request() and route.request.frame.parent_frame is None:
            # the page leaving for elsewhere (a meta refresh, a script): "204 No Content"
            # keeps it where it is, to be drawn (an aborted navigation shows an error page)
            await route.fulfill(status=204, body=b"")
            return
        await route.abort("blockedbyclient")

    async def shoot(self, path: str, fetch: Fetch, viewport: tuple[int, int],
                    scale: float) -> Shot:
        """Load `path` with every request answered from `fetch`; its text and picture."""
        self.fetch, self.console, self.failed = fetch, [], []
        console, failed = self.console, self.failed
        width, height = viewport
        await self.page.set_viewport_size({"width": width, "height": height})
        await self.page.goto(f"{ORIGIN}/{quote(path)}", wait_until="load")
        text = await self.page.evaluate("() => document.body ? document.body.innerText : ''")
        png = await _capture(self.cdp, viewport, scale)
        return Shot(png, " ".join(str(text).split()), console, failed)

    async def close(self) -> None:
        await self.page.close()


async def _capture(cdp: Any, viewport: tuple[int, int], scale: float) -> bytes:
    """The page's viewport as a PNG at `scale`, through Chromium's own capture with its
    fast PNG encoder (`optimizeForSpeed`): at device scale 2 Playwright's screenshot spends
    most of a render compressing, and `preview.fit` re-encodes the picture anyway."""
    width, height = viewport
    shot = await cdp.send("Page.captureScreenshot", {
        "format": "png", "optimizeForSpeed": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}})
    return base64.b64decode(shot["data"])
