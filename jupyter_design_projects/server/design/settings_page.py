"""The Design settings page: where the service's one person gives or revokes a durable
project grant outside the notebook, as they would in the Design web app (spec §8: the
grant watcher notices a grant given here while a grant card waits).

Like the authorize page it acts for the demo user, and only its owner sees it or posts
to it (`server/owner.py`): through the Jupyter server's proxy, or from a settings link
the owner's notebook made (which leaves this run's owner cookie). A form token (random per
service run) and a same-origin check keep another page from posting the form.
"""

from __future__ import annotations

import html
import sqlite3
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ...core import owner_proof
from .. import owner, paths
from ..context import DEMO_USER_ID, DEMO_USER_NAME, ServiceContext
from ..forms import FormRefused, PageForm
from .errors import NotFound
from .store import DesignStore

#: a settings form is a project id, an action and a token
MAX_FORM_BYTES = 4096
ACTIONS = ("grant", "revoke")

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Design settings</title>
<style>body{{font-family:system-ui,sans-serif;max-width:48rem;margin:3rem auto;}}
td,th{{padding:4px 10px;text-align:left}} .note{{color:#555}}</style></head>
<body><h1>Design settings</h1>
<p class="note">Signed in as <b>{user}</b> (offline reference service).</p>
{notice}<p>Consent for agents: <b data-jdp="consent">{consent}</b></p>
<table><tr><th>Project</th><th>Durable grant</th><th></th></tr>{rows}</table>
</body></html>"""


def _page(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers={
        "cache-control": "no-store", "x-frame-options": "DENY",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
                                   "form-action 'self'; frame-ancestors 'none'"})


class SettingsPage:
    """The page and its form over one run's Design store (the form token is this run's)."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        self.store = DesignStore(ctx.db, ctx.clock)
        self.form = PageForm(MAX_FORM_BYTES, nothing="nothing changed",
                             fresh="reload the page and try again")

    def routes(self) -> list[Route]:
        return [Route(paths.DESIGN_SETTINGS, self.page, methods=["GET"]),
                Route(paths.DESIGN_SETTINGS_GRANTS, self.change, methods=["POST"])]

    def prefix(self, request: Request) -> str:
        """The path prefix of the Jupyter server's proxy this page is seen through."""
        public = self.ctx.owner.public_base(request)
        return urlsplit(public).path if public else ""

    def render(self, request: Request, notice: str = "", status: int = 200) -> HTMLResponse:
        store = self.store
        granted = {g["project_id"]: g["created_at"] for g in store.grants(DEMO_USER_ID)}
        rows = [self._row(request, project, granted) for project in store.projects(100, None)]
        consent = "given" if store.consent(DEMO_USER_ID) else "not given"
        shown = f'<p role="alert">{html.escape(notice)}</p>' if notice else ""
        return _page(_PAGE.format(user=html.escape(DEMO_USER_NAME), notice=shown,
                                  consent=consent, rows="".join(rows)), status)

    def _row(self, request: Request, project: sqlite3.Row, granted: dict[str, str]) -> str:
        """One project's row: its grant's state and the one button that changes it."""
        pid = project["id"]
        if not project["grant_eligible"]:
            state, action = "cannot hold a grant (shared from elsewhere)", None
        elif pid in granted:
            state, action = f"granted {granted[pid]}", "revoke"
        else:
            state, action = "not granted", "grant"
        button = "" if action is None else (
            f'<form method="post" action="{html.escape(self.prefix(request))}'
            f'{paths.DESIGN_SETTINGS_GRANTS}">'
            f"{self.form.token_field()}"
            f'<input type="hidden" name="project_id" value="{html.escape(pid, quote=True)}">'
            f'<input type="hidden" name="action" value="{action}">'
            f'<button type="submit" data-jdp="{action}-{html.escape(pid, quote=True)}">'
            f"{'Grant' if action == 'grant' else 'Revoke'}</button></form>")
        return (f'<tr data-project="{html.escape(pid, quote=True)}"><td>'
                f"{html.escape(project['name'])}<br><code>{html.escape(pid)}</code>"
                f"</td><td>{html.escape(state)}</td><td>{button}</td></tr>")

    async def page(self, request: Request) -> Response:
        ctx = self.ctx
        query = dict(request.query_params)
        if not ctx.owner.is_owner(request, query, now_s=ctx.clock()):
            return owner.refused()
        if owner_proof.LINK_FIELD in query:  # the link did its work: a clean address
            answer = RedirectResponse(self.prefix(request) + paths.DESIGN_SETTINGS, 303,
                                      headers={"cache-control": "no-store",
                                               "referrer-policy": "no-referrer"})
            answer.set_cookie(owner_proof.OWNER_COOKIE, ctx.owner.cookie(), httponly=True,
                              samesite="strict", path="/")
            return answer
        return self.render(request)

    async def change(self, request: Request) -> Response:
        if not self.ctx.owner.is_owner(request, now_s=self.ctx.clock()):
            return owner.refused()
        try:
            posted = await self.form.posted(request)
        except FormRefused as no:
            return no.answer(lambda message, status: self.render(request, message, status))
        project_id, action = posted.get("project_id", ""), posted.get("action", "")
        if action not in ACTIONS or not project_id:
            return self.render(request, "Unknown change; nothing changed.", 400)
        store = self.store
        if action == "revoke":
            store.revoke_grant(DEMO_USER_ID, project_id)
        elif not store.consent(DEMO_USER_ID):
            return self.render(request, "Give consent for agents first (from the notebook or "
                               "from Python).", 403)
        else:
            try:
                if store.grant(DEMO_USER_ID, project_id) is None:
                    return self.render(request, "This project cannot hold a grant.", 404)
            except NotFound:
                return self.render(request, "No such Design project.", 404)
        return RedirectResponse(self.prefix(request) + paths.DESIGN_SETTINGS, status_code=303)


def routes(ctx: ServiceContext) -> list[Route]:
    return SettingsPage(ctx).routes()
