"""The side panel's routes under `<base_url>/jupyter-design-projects/` (docs/panel-api.md):
tornado handlers that check the request, ask the `Panel`, and answer JSON.

Each is an `APIHandler` with `@web.authenticated`, so login and the XSRF check are exactly
JupyterLab's own; answers are `application/json; charset=utf-8` with `no-store`. A
failure object is answered with the HTTP status `failures.http_status` gives it (a part
of `status` is not a failure of the request and answers 200).
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..core.budgets import SEARCH_N_DEFAULT, search_n_allowed
from . import failures
from .panel import Panel

PREFIX = "jupyter-design-projects"
JOURNAL_DEFAULT = 50


class PanelHandler(APIHandler):
    def initialize(self, panel: Panel) -> None:
        self.panel = panel

    def reply(self, value: Any, *, whole: bool = False) -> None:
        """Answer `value`; a failure object (unless it is a part of a whole report) with its
        HTTP status."""
        if not whole and failures.is_failure(value):
            self.set_status(failures.http_status(value))
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(value), set_content_type="application/json; charset=utf-8")

    def refuse(self, message: str) -> None:
        self.reply(failures.fail("invalid_argument", message))

    def whole_number(self, name: str, default: int) -> int | None:
        raw = self.get_query_argument(name, str(default))
        return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else None


class StatusHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        self.reply(await self.panel.status(), whole=True)


class FilesHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        self.reply(await self.panel.files())


class SearchHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        query = self.get_query_argument("q", "").strip()
        n = self.whole_number("n", SEARCH_N_DEFAULT)
        if not query:
            return self.refuse("Type something to search for.")
        if n is None or not search_n_allowed(n):
            return self.refuse("n must be a whole number from 1 to 15.")
        self.reply(await self.panel.search(query, n))


class DocHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        path = self.get_query_argument("path", "")
        if not path:
            return self.refuse("Name the doc to open: ?path=exact/path.md")
        self.reply(await self.panel.doc(path))


class ConsentHandler(PanelHandler):
    @web.authenticated
    async def post(self) -> None:
        self.reply(await self.panel.consent(give=True))

    @web.authenticated
    async def delete(self) -> None:
        self.reply(await self.panel.consent(give=False))


class GrantHandler(PanelHandler):
    @web.authenticated
    async def delete(self, project_id: str) -> None:
        self.reply(await self.panel.revoke_grant(project_id))


class JournalHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        n = self.whole_number("n", JOURNAL_DEFAULT)
        if n is None:
            return self.refuse("n must be a whole number.")
        self.reply(await self.panel.journal(n))


class DesignJournalHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        n = self.whole_number("n", JOURNAL_DEFAULT)
        if n is None:
            return self.refuse("n must be a whole number.")
        self.reply(await self.panel.design_journal(n))


class RestoreHandler(PanelHandler):
    @web.authenticated
    async def post(self, entry_id: str) -> None:
        self.reply(await self.panel.restore(int(entry_id)))


class LoginHandler(PanelHandler):
    @web.authenticated
    async def post(self) -> None:
        self.reply(await self.panel.login())


ROUTES: list[tuple[str, type[PanelHandler]]] = [
    ("status", StatusHandler),
    ("project/files", FilesHandler),
    ("project/search", SearchHandler),
    ("project/doc", DocHandler),
    ("design/consent", ConsentHandler),
    ("design/grants/([^/]+)", GrantHandler),
    ("journal", JournalHandler),
    ("design/journal", DesignJournalHandler),
    (r"journal/([0-9]{1,9})/restore", RestoreHandler),
    ("login", LoginHandler),
]


def register(web_app: Any, panel: Panel) -> None:
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base, PREFIX, route), handler,
                                  {"panel": panel}) for route, handler in ROUTES])
