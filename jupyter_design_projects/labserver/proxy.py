"""The embedded reference service's browser pages, served through the Jupyter server
under `<base_url>jupyter-design-projects/` with Jupyter's own authentication: the
authorize page (GET, and its form's POST), the paste-the-code page, and the Design
settings page and its grant form. The service listens on a loopback port the person's
browser may not reach, and answers these pages to its owner only (`core.owner_proof`):
this proxy, running as the owner, adds the owner secret and names its public prefix, so
the pages link, post and redirect through the address the browser already uses.

A form POST passes Jupyter's own XSRF check (this proxy adds the `_xsrf` field to each
form of a page it forwards) and comes from this server's own origin; the service's
per-run form token is checked after that.
"""

from __future__ import annotations

import html
import os
import re
from typing import Any
from urllib.parse import urlsplit

from jupyter_server.base.handlers import JupyterHandler
from tornado import httpclient, web

from ..core import owner_proof
from . import sign_in

#: the answer headers a proxied page keeps
KEPT_HEADERS = ("content-type", "cache-control", "content-security-policy",
                "x-frame-options", "location")
#: the service says no-referrer; a browser then posts its forms with `Origin: null`, which
#: Jupyter's origin check refuses. Same-origin keeps every referrer inside this server.
REFERRER_POLICY = "same-origin"
MAX_FORM_BYTES = 16 * 1024
FORM_TAG = re.compile(rb'<form method="post"[^>]*>')
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
        """Jupyter's XSRF check, and a form post from this server's own origin only."""
        super().check_xsrf_cookie()
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
        self.set_header("Referrer-Policy", REFERRER_POLICY)
        body = answer.body or b""
        if answer.headers.get("content-type", "").startswith("text/html"):
            field = (f'<input type="hidden" name="_xsrf" '
                     f'value="{html.escape(self.xsrf_token.decode("ascii"), True)}">')
            body = FORM_TAG.sub(lambda m: m.group(0) + field.encode("ascii"), body)
        self.finish(body)


class PageHandler(ProxyHandler):
    """A page the browser opens."""

    @web.authenticated
    async def get(self) -> None:
        await self._forward("GET")


class FormHandler(ProxyHandler):
    """A form a page posts."""

    @web.authenticated
    async def post(self) -> None:
        await self._forward("POST")


class PageAndFormHandler(PageHandler, FormHandler):
    """A page and the form it posts to itself (the authorize page)."""


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
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>body{{font-family:system-ui,"
            "sans-serif;max-width:36rem;margin:4rem auto;}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p id=\"message\">{html.escape(sentence)}</p>"
            "</body></html>")


def routes(panel: Any, flow: sign_in.PanelSignIn) -> list[tuple[str, Any, dict[str, Any]]]:
    """(route under the prefix, handler, its arguments)."""
    kinds = {("GET",): PageHandler, ("POST",): FormHandler, ("GET", "POST"): PageAndFormHandler}
    out: list[tuple[str, Any, dict[str, Any]]] = [
        (route.lstrip("/"), kinds[methods], {"panel": panel, "target": target,
                                             "methods": methods})
        for route, (target, methods) in PAGES.items()]
    out.append((sign_in.CALLBACK.lstrip("/"), CallbackHandler, {"sign_in": flow}))
    return out
