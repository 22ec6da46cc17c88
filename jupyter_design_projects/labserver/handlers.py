"""The side panel's routes under `<base_url>/jupyter-design-projects/` (docs/panel-api.md):
tornado handlers that check the request, ask the `Panel`, and answer JSON.

Each is an `APIHandler` with `@web.authenticated`, so login and the XSRF check are exactly
JupyterLab's own; answers are `application/json; charset=utf-8` with `no-store`. A
failure object is answered with the HTTP status `failures.http_status` gives it (a part
of `status` is not a failure of the request and answers 200).
"""

from __future__ import annotations

import json
import os
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..core.budgets import SEARCH_N_DEFAULT, search_n_allowed
from . import failures
from .panel import Panel
from .sign_in import PanelSignIn, public_base

PREFIX = "jupyter-design-projects"
JOURNAL_DEFAULT = 50


class PanelHandler(APIHandler):
    def initialize(self, panel: Panel) -> None:
        self.panel = panel

    def public_base(self) -> str:
        """Where this server's sign-in pages are for the browser asking (noted for the
        kernels' `%design login`)."""
        base = public_base(self.request.protocol, self.request.host,
                           self.settings["base_url"], os.environ)
        if self.panel.public_address is not None:
            self.panel.public_address.note(base)
        return base

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
        self.public_base()
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
    """Begin a sign-in: `{"mode": "redirect"}` (the page sends the browser back to this
    server's callback) or `{"mode": "paste"}` (the page shows a code to paste here)."""

    def initialize(self, panel: Panel, sign_in: PanelSignIn) -> None:  # type: ignore[override]
        super().initialize(panel)
        self.sign_in = sign_in

    def body_field(self, name: str, default: str) -> str | None:
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            return None
        value = body.get(name, default) if isinstance(body, dict) else None
        return value if isinstance(value, str) else None

    @web.authenticated
    async def post(self) -> None:
        mode = self.body_field("mode", "redirect")
        if mode is None:
            return self.refuse("The body must be JSON: {\"mode\": \"redirect\" or \"paste\"}.")
        self.reply(await self.sign_in.begin(self.public_base(), mode))


class LoginFinishHandler(LoginHandler):
    """Finish a sign-in with the `code#state` the person pasted: `{"code": "..."}`."""

    @web.authenticated
    async def post(self) -> None:
        code = self.body_field("code", "")
        if not code:
            return self.refuse("Paste the code the sign-in page shows (code#state).")
        self.reply(await self.sign_in.finish_paste(code))


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
    ("login/finish", LoginFinishHandler),
]


def register(web_app: Any, panel: Panel) -> None:
    from . import proxy

    base = web_app.settings["base_url"]
    flow = PanelSignIn(panel)
    handlers: list[tuple[str, Any, dict[str, Any]]] = [
        (url_path_join(base, PREFIX, route), handler,
         {"panel": panel, "sign_in": flow} if issubclass(handler, LoginHandler)
         else {"panel": panel}) for route, handler in ROUTES]
    handlers += [(url_path_join(base, PREFIX, route), handler, args)
                 for route, handler, args in proxy.routes(panel, flow)]
    web_app.add_handlers(".*$", handlers)
