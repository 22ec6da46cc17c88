"""Debian's chromium through Playwright's sync API, launched once for a run of browser
modules rather than once per module (a driver and a browser cost about 1.2 CPU-seconds
to start and stop).

While the sync API is open, its event loop is marked as the main thread's running loop
between calls, so no asyncio test may run beside it. So the browser is kept only from
one module that asked for it (the `chromium` fixture) to the next: the first test that
does not ask for it, outside the module that holds it, closes it
(`pytest_runtest_setup` in tests/conftest.py). Inside a module, it is open from its first
use to the module's end, as a module-scoped browser always was."""

from __future__ import annotations

from typing import Any

from tests.browser.lab import CHROMIUM, CHROMIUM_ARGS


class HeldBrowser:
    def __init__(self) -> None:
        self._playwright: Any = None
        self.browser: Any = None
        self.holder: object | None = None  # the module using it now, if any
        self.launches = 0

    def open(self, module: object) -> Any:
        """The browser for `module`'s tests: the one held, or a new one when none is (or
        the one held has gone)."""
        if self.browser is not None and not self.browser.is_connected():
            self.close()
        if self.browser is None:
            from playwright.sync_api import sync_playwright

            manager = sync_playwright()
            playwright = manager.__enter__()
            try:
                self.browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                          args=CHROMIUM_ARGS)
            except BaseException:
                manager.__exit__(None, None, None)
                raise
            self._playwright = manager
            self.launches += 1
        self.holder = module
        return self.browser

    def release(self) -> None:
        """Its module has ended: the next test that does not ask for it closes it."""
        self.holder = None

    def close_unless_held_by(self, module: object) -> None:
        if self.browser is not None and module is not self.holder:
            self.close()

    def close(self) -> None:
        if self.browser is None:
            return
        try:
            self.browser.close()
        finally:
            self._playwright.__exit__(None, None, None)
            self.browser = self._playwright = self.holder = None


#: this worker's browser
HELD = HeldBrowser()
