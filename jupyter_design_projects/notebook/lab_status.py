"""The status report behind the JupyterLab side panel, and the jupyter_server extension that
serves it at `GET <base_url>/jupyter-design-projects/status`.

It runs in the Jupyter server process, not in a kernel: it resolves the settings from the
server's environment and asks the service itself, with the stored credential (the same
store, the same cross-process lock and the same scope expansion the kernels use), for
the attached Project's detail and the Design consent and durable grants. Plan tokens live
inside each kernel process and cannot be seen from here. Every failure becomes
`{"error": kind, "message": ...}` for its part of the report, redacted, never a token.

This module is imported only by jupyter_server (`_jupyter_server_extension_points`), so
its jupyter_server and tornado imports never reach `%load_ext`.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..core.display import LOOPBACK_HOSTS, id_rule, text_rule
from ..core.redaction import Secret, redact
from ..design.rest import DesignRest
from ..errors import JdpError, NeedsConsent
from ..projects.api import open_api
from ..projects.wire import parse_detail
from ..session import user_data_dir
from ..settings import Settings
from ..transport.auth import BearerAuth
from ..transport.credential_manager import CredentialManager
from ..transport.credentials import open_store
from ..transport.http import make_client
from ..transport.oauth import OAuthClient

ROUTE = "jupyter-design-projects/status"

log = logging.getLogger(__name__)


def service_part(settings: Settings) -> dict[str, Any]:
    """Where the service is, and whether it is the offline reference service: either none
    is configured (each kernel then starts its own) or it listens on loopback, where plain
    http is allowed only for the reference service a local command started."""
    if settings.embedded:
        return {"base_url": None, "web_base_url": None, "reference": True}
    host = urlsplit(settings.api_base_url).hostname or ""
    return {
        "base_url": settings.api_base_url,
        "web_base_url": settings.web_base_url,
        "reference": host in LOOPBACK_HOSTS,
    }


def shown(value: Any, rule: Any) -> str:
    """A service-provided string as the panel may show it, or the rule it broke."""
    broken = rule(value)
    return str(value) if broken is None else f"[not shown: {broken}]"


def failure(exc: BaseException, secrets: list[Secret]) -> dict[str, str]:
    if isinstance(exc, JdpError):
        return {"error": exc.kind, "message": redact(exc.message, secrets)}
    log.error("jupyter-design-projects status: unexpected %s", type(exc).__name__)
    return {"error": "internal_error", "message": f"unexpected {type(exc).__name__}"}


class StatusReport:
    """One report: a credential manager over the stored credential and two short-lived
    httpx clients (one with the bearer, one without for the token endpoint)."""

    def __init__(
        self, settings: Settings, *, data_dir: Path,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        data_dir.mkdir(parents=True, exist_ok=True)
        self._oauth_http = make_client(transport=transport)
        oauth = OAuthClient(self._oauth_http, settings.oauth_token_url,
                            settings.oauth_authorize_url, settings.oauth_client_id)
        self.credentials = CredentialManager(
            open_store(settings.credentials_file or None, data_dir), oauth,
            client_id=settings.oauth_client_id, lock_path=data_dir / "credentials.lock",
            clock_ms=lambda: int(time.time() * 1000),
        )
        self._http = make_client(auth=BearerAuth(self.credentials, settings.allowed_origins),
                                 transport=transport)

    def secrets(self) -> list[Secret]:
        jwt = [self.settings.session_jwt] if self.settings.session_jwt is not None else []
        return [*self.credentials.known_secrets(), *jwt]

    async def project(self) -> tuple[dict[str, Any] | None, str | None]:
        """The attached Project (None when none is attached) and a scope-upgrade notice."""
        if not self.settings.project_uuid:
            return None, None
        api = open_api(
            self._http, self.settings,
            lambda: self.credentials.ensure_project_scopes(
                policy_allows=self.settings.allow_projects_tool),
            self.secrets,
        )
        detail = parse_detail(await api.detail())
        stats = detail.raw.get("knowledge_stats") or {}
        return {
            "uuid": shown(detail.raw.get("uuid", self.settings.project_uuid), id_rule),
            "name": shown(detail.raw.get("name", ""), text_rule),
            "docs": len(detail.docs),
            "uploads": len(detail.files),
            "knowledge_size": detail.knowledge_size,
            "max_knowledge_size": detail.max_knowledge_size,
            "search_enabled": stats.get("use_project_knowledge_search") is True,
            "search_threshold": stats.get("project_knowledge_search_threshold")
            if isinstance(stats.get("project_knowledge_search_threshold"), int) else None,
        }, api.take_notice()

    async def design(self) -> dict[str, Any]:
        """Consent (None when it could not be read) and the durable grants."""
        rest = DesignRest(self._http, self.settings.api_base_url,
                          platform=self.settings.client_platform)
        consent = await rest.get_consent()
        try:
            grants = await rest.list_grants()
        except NeedsConsent:
            consent, grants = False, {}
        return {
            "consent": consent,
            "grants": [{"project_id": shown(project_id, id_rule),
                        "created_at": shown(created_at, text_rule)}
                       for project_id, created_at in sorted(grants.items())],
        }

    async def collect(self) -> dict[str, Any]:
        report: dict[str, Any] = {"service": service_part(self.settings), "project": None,
                                  "design": None, "notice": None}
        try:
            report["project"], report["notice"] = await self.project()
        except Exception as exc:  # one part failing still shows the other
            report["project"] = failure(exc, self.secrets())
        try:
            report["design"] = await self.design()
        except Exception as exc:
            report["design"] = failure(exc, self.secrets())
        return report

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._oauth_http.aclose()


async def collect_status(
    env: dict[str, str], *, data_dir: Path, transport: httpx.AsyncBaseTransport | None = None,
) -> dict[str, Any]:
    """The whole panel report for this environment; never raises for expected failures."""
    try:
        settings = Settings.resolve(env)
    except JdpError as exc:
        return failure(exc, [])
    if settings.embedded:
        return {"service": service_part(settings), "project": None, "design": None,
                "notice": "No service is configured for the Jupyter server: each kernel "
                          "starts the offline reference service on first use."}
    try:
        report = StatusReport(settings, data_dir=data_dir, transport=transport)
    except (JdpError, OSError) as exc:
        part = failure(exc, []) if isinstance(exc, JdpError) else {
            "error": "data_dir_error", "message": f"{data_dir}: {type(exc).__name__}"}
        return {"service": service_part(settings), "project": part, "design": part,
                "notice": None}
    try:
        return await report.collect()
    finally:
        await report.aclose()


class StatusHandler(APIHandler):
    @web.authenticated
    async def get(self) -> None:
        status = await collect_status(dict(os.environ), data_dir=user_data_dir())
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(status))


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    route = url_path_join(web_app.settings["base_url"], ROUTE)
    web_app.add_handlers(".*$", [(route, StatusHandler)])
