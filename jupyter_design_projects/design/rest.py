"""The Design REST routes of PROTOCOL §2 — consent and durable project grants — read and
mapped to results or errors here and nowhere else."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from ..errors import AuthError, DesignApiError, GrantIneligible, NeedsConsent, TransportError
from ..settings import DEFAULT_CLIENT_PLATFORM
from ..transport.http import Answer, send
from . import wire
from .session import identity_headers

CONSENT_NAME = "agent_design_projects"
#: the REST answers are small JSON objects
MAX_BYTES = 262_144
DEADLINE_S = 60.0


class DesignRest:
    """Consent and grants on `api_base_url` through the session's one httpx client."""

    def __init__(self, http: httpx.AsyncClient, api_base_url: str, *,
                 platform: str = DEFAULT_CLIENT_PLATFORM) -> None:
        self._http = http
        self._base = api_base_url.rstrip("/") + "/v1/design"
        self._headers = identity_headers(platform)

    async def _send(self, method: str, route: str, action: str, json: Any = None) -> Answer:
        answer = await send(self._http, method, self._base + route, action=f"design {action}",
                            max_bytes=MAX_BYTES, deadline_s=DEADLINE_S, json=json,
                            headers=self._headers)
        wire.check_auth(answer)
        return answer

    async def get_consent(self) -> bool | None:
        """The consent bit, or None when it could not be read (a prefetch never fails)."""
        try:
            answer = await self._send("GET", "/consent", "consent prefetch")
            body = answer.json() if answer.status == 200 else None
        except (TransportError, AuthError):
            return None
        value = body.get(CONSENT_NAME) if isinstance(body, dict) else None
        return value if isinstance(value, bool) else None

    async def post_consent(self) -> None:
        answer = await self._send("POST", "/consent", "consent", {"consent": CONSENT_NAME})
        if answer.status not in (200, 201, 204):
            raise DesignApiError("consent", answer.status, answer.retry_after)

    async def delete_consent(self) -> bool:
        """Revoke consent (the service revokes every grant too); False when there was none."""
        answer = await self._send("DELETE", "/consent", "revoke consent",
                                  {"consent": CONSENT_NAME})
        if answer.status == 404:
            return False
        if answer.status not in (200, 204):
            raise DesignApiError("revoke consent", answer.status, answer.retry_after)
        return True

    async def list_grants(self) -> dict[str, str]:
        """project_id → created_at of every durable grant the service holds for this user."""
        answer = await self._send("GET", "/grants", "grants")
        if answer.status == 403 and wire.flat_error(answer)[0] == "needs_consent":
            raise NeedsConsent()
        if answer.status != 200:
            raise DesignApiError("grants", answer.status, answer.retry_after)
        body = answer.json()
        grants = body.get("grants") if isinstance(body, dict) else None
        if not isinstance(grants, list):
            raise TransportError("design grants", "malformed",
                                 detail="the answer has no grants list")
        return {
            g["project_id"]: str(g.get("created_at", ""))
            for g in grants
            if isinstance(g, dict) and isinstance(g.get("project_id"), str)
        }

    async def delete_grant(self, project_id: str) -> bool:
        """Revoke one durable grant (revocation from settings); False when there was none."""
        answer = await self._send("DELETE", f"/grants/{quote(project_id, safe='')}",
                                  "revoke grant")
        if answer.status == 404:
            return False
        if answer.status not in (200, 204):
            raise DesignApiError("revoke grant", answer.status, answer.retry_after)
        return True

    async def post_grant(self, project_id: str) -> None:
        """Mint a durable grant; GrantIneligible on 404 grant_ineligible (a 404 envelope for an
        unknown project is a DesignApiError), NeedsConsent on 403 needs_consent."""
        answer = await self._send("POST", "/grants", "grant", {"project_id": project_id})
        if answer.status in (200, 201):
            return
        if answer.status == 404 and wire.flat_error(answer)[0] == "grant_ineligible":
            raise GrantIneligible(project_id)
        if answer.status == 403 and wire.flat_error(answer)[0] == "needs_consent":
            raise NeedsConsent()
        raise DesignApiError("grant", answer.status, answer.retry_after)

