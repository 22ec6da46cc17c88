"""The embedded reference service's browser pages, served through the Jupyter server
under `<base_url>jupyter-design-projects/` with Jupyter's own authentication: the
authorize page (GET, and its form's POST), the paste-the-code page, and the Design
settings page and its grant form. The service listens on a loopback port the person's
browser may not reach, and answers these pages to its owner only (`core.owner_proof`):
this proxy, running as the owner, adds the owner secret and names its public prefix, so
the pages link, post and redirect through the address the browser already uses.

A form POST is taken from this server's own pages only (its Origin is this server's);
the service's per-run form token is the rest of the CSRF check, as Jupyter's `_xsrf`
field cannot be in a page the service renders.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from jupyter_server.base.handlers import JupyterHandler
from tornado import httpclient, web

from ..core import owner_proof
from . import sign_in

#: the answer headers a proxied page keeps
KEPT_HEADERS = ("content-type", "cache-control", "content-security-policy",
                "x-frame-options", "referrer-policy", "location")
MAX_FORM_BYTES = 16 * 1024
#: the proxied pages: the route under the prefix → the service's path, methods
PAGES = {
    sign_in.AUTHORIZE: ("/oauth/authorize", ("GET", "POST")),
    sign_in.CODE_PAGE: ("/oauth/code/callback", ("GET",)),
    "/design/settings": ("/design/settings", ("GET",)),
    "/design/settings/grants": ("/design/settings/grants", ("POST",)),
}
NO_SERVICE = ("No reference service runs in this Jupyter server (a service is configured): "
              "its own sign-in and settings pages are on its own site.")


class ProxyHandler(JupyterHandler):
    def initialize(self, panel: Any, target: str, methods: tuple[str, ...]) -> None:
        self.panel = panel
        self.target = target
        self.methods = methods

    def check_xsrf_cookie(self) -> None:
        """A form post from this server's own page only (see the module docstring)."""
        origin = self.request.headers.get("Origin")
        if origin is None or origin == "null":
            if self.request.headers.get("Sec-Fetch-Site", "same-origin") != "same-origin":
                raise web.HTTPError(403, "The form was posted from another site.")
            return
        if urlsplit(origin).netloc != self.request.host:
            raise web.HTTPError(403, "The form was posted from another site.")

    def _public_base(self) -> str:
        return sign_in.public_base(self.request.protocol, self.request.host,
                                   self.settings["base_url"], os.environ)

    async def _forward(self, method: str) -> None:
        if method not in self.methods:
            raise web.HTTPError(405)
        proxied = self.panel.proxied_service()
        if proxied is None:
            self.set_status(404)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(NO_SERVICE)
            return
        base_url, secret = proxied
        body = self.request.body if method == "POST" else None
        if body is not None and len(body) > MAX_FORM_BYTES:
            raise web.HTTPError(413)
        headers = {owner_proof.OWNER_HEADER: secret.reveal(),
                   owner_proof.PUBLIC_BASE_HEADER: self._public_base(),
                   "Origin": base_url}
        if body is not None:
            headers["Content-Type"] = self.request.headers.get("Content-Type", "")
        query = self.request.query
        url = base_url + self.target + (f"?{query}" if query else "")
        answer = await httpclient.AsyncHTTPClient().fetch(httpclient.HTTPRequest(
            url, method=method, headers=headers, body=body, follow_redirects=False,
            request_timeout=30.0), raise_error=False)
        if answer.code == 599:
            raise web.HTTPError(502, "The reference service did not answer.")
        self.set_status(answer.code)
        self.clear_header("Content-Type")
        for name in KEPT_HEADERS:
            for value in answer.headers.get_list(name):
                self.add_header(name, value)
        self.finish(answer.body or b"")

    @web.authenticated
    async def get(self) -> None:
        await self._forward("GET")

    @web.authenticated
    async def post(self) -> None:
        await self._forward("POST")


class CallbackHandler(JupyterHandler):
    """`<base_url>jupyter-design-projects/oauth/callback`: the sign-in page's redirect."""

    def initialize(self, sign_in: sign_in.PanelSignIn) -> None:
        self.sign_in = sign_in

    @web.authenticated
    async def get(self) -> None:
        status, title, sentence = await self.sign_in.finish_redirect(self.request.query)
        self.set_status(status)
        self.set_header("Cache-Control", "no-store")
        self.set_header("Referrer-Policy", "no-referrer")
        self.set_header("Content-Security-Policy",
                        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        self.finish(_page(title, sentence))


def _page(title: str, sentence: str) -> str:
    import html

    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>body{{font-family:system-ui,"
            "sans-serif;max-width:36rem;margin:4rem auto;}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p id=\"message\">{html.escape(sentence)}</p>"
            "</body></html>")


def routes(panel: Any, flow: sign_in.PanelSignIn) -> list[tuple[str, Any, dict[str, Any]]]:
    """(route under the prefix, handler, its arguments)."""
    out: list[tuple[str, Any, dict[str, Any]]] = [
        (route.lstrip("/"), ProxyHandler, {"panel": panel, "target": target,
                                           "methods": methods})
        for route, (target, methods) in PAGES.items()]
    out.append((sign_in.CALLBACK.lstrip("/"), CallbackHandler, {"sign_in": flow}))
    return out
