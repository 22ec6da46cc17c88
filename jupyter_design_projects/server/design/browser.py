"""The reference service's one headless browser: Playwright's sync API driving Debian's
chromium on a thread of its own, launched on the first preview and reused until the service
stops. Each render opens a fresh browser context whose every request is answered from the
project's files (anything else is blocked and reported), and collects what the page really
did: its console messages, its failed requests, its visible text and a screenshot.

Never `playwright install`: the executable is the system chromium, given by path.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import mimetypes
import posixpath
import queue
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
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed"
    return None


class Browser:
    """One chromium for the whole service, driven from its own thread (Playwright's sync
    API must stay on the thread that started it); `render` may be called from any thread."""

    def __init__(self, executable: Path | None = CHROMIUM) -> None:
        self.executable = executable
        self._jobs: queue.Queue[tuple[concurrent.futures.Future, tuple] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._failure: str | None = unavailable_reason(executable)

    @property
    def unavailable(self) -> str | None:
        return self._failure

    def render(self, path: str, fetch: Fetch, viewport: tuple[int, int],
               scale: float) -> Shot:
        """Load `path` from the project's files and screenshot it at viewport × scale."""
        with self._lock:
            if self._failure is not None:
                raise BrowserUnavailable(self._failure)
            self._start()
            future: concurrent.futures.Future = concurrent.futures.Future()
            self._jobs.put((future, (path, fetch, viewport, scale)))
        try:
            return future.result(timeout=RENDER_DEADLINE_S)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise BrowserUnavailable(
                f"the browser did not finish within {RENDER_DEADLINE_S:g} s") from None

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
            self._jobs.put(None)
            thread.join(timeout=RENDER_DEADLINE_S)

    # ---------------------------------------------------------------- the browser thread

    def _run(self) -> None:
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(self.executable),
                                                     args=CHROMIUM_ARGS)
                try:
                    self._serve(browser)
                finally:
                    browser.close()
        except Exception as exc:  # the browser could not start or died: say so from now on
            with self._lock:
                self._failure = f"the browser failed: {type(exc).__name__}: {exc}"[:300]
            self._drain(self._failure)

    def _serve(self, browser: Any) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(_shoot(browser, *args))
            except Exception as exc:
                future.set_exception(BrowserUnavailable(f"{type(exc).__name__}: {exc}"[:300]))

    def _drain(self, reason: str) -> None:
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return
            if job is not None and job[0].set_running_or_notify_cancel():
                job[0].set_exception(BrowserUnavailable(reason))


def _content_type(path: str) -> str:
    guessed, _ = mimetypes.guess_type(path)
    if guessed is None:
        return "application/octet-stream"
    return guessed + ("; charset=utf-8" if guessed.startswith("text/") or
                      guessed in ("application/javascript", "application/json") else "")


def _shoot(browser: Any, path: str, fetch: Fetch, viewport: tuple[int, int],
           scale: float) -> Shot:
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height},
                                  device_scale_factor=scale)
    console: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []

    def answer(route: Any) -> None:
        url = route.request.url
        if url.startswith(ORIGIN + "/"):
            wanted = posixpath.normpath(unquote(urlsplit(url).path).lstrip("/"))
            body = fetch(wanted)
            if body is None:
                failed.append({"url": wanted, "status": 404})
                route.fulfill(status=404, body=b"", content_type="text/plain")
            else:
                route.fulfill(status=200, body=body, content_type=_content_type(wanted))
            return
        failed.append({"url": url, "status": None,
                       "error": "blocked: a preview loads only the project's own files"})
        route.abort("blockedbyclient")

    try:
        context.route("**/*", answer)
        page = context.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.on("console", lambda message: console.append(
            {"level": message.type, "text": message.text[:CONSOLE_TEXT_CHARS]}))
        page.on("pageerror", lambda error: console.append(
            {"level": "error", "text": str(error)[:CONSOLE_TEXT_CHARS]}))
        page.goto(f"{ORIGIN}/{quote(path)}", wait_until="load")
        text = page.evaluate("() => document.body ? document.body.innerText : ''")
        png = page.screenshot(type="png")
        return Shot(png, " ".join(str(text).split()), console, failed)
    finally:
        context.close()
