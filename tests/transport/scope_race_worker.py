"""One process of the scope-expansion race: expand the Projects scopes of the credential in
a shared file against the reference service, and report what it did (run under spawn)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from jupyter_design_projects.errors import ScopeExpansionFailed
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import FileCredentialStore
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.oauth import OAuthClient


async def expand(barrier, base_url: str, credentials_file: str, detail_path: str) -> dict:
    token_requests = 0

    async def count(request):
        nonlocal token_requests
        token_requests += request.url.path == "/v1/oauth/token"

    store = FileCredentialStore(Path(credentials_file))
    async with make_client(event_hooks={"request": [count]}) as http:
        oauth = OAuthClient(http, base_url + "/v1/oauth/token", base_url + "/oauth/authorize",
                            FIRST_PARTY_CLIENT_ID)
        manager = CredentialManager(store, oauth, client_id=FIRST_PARTY_CLIENT_ID,
                                    lock_path=Path(credentials_file + ".lock"))
        await manager.access_token()
        barrier.wait(60)  # every process holds the narrow credential before any expands
        http.auth = BearerAuth(manager, {base_url})
        try:
            notice = await manager.ensure_project_scopes()
        except ScopeExpansionFailed as exc:
            return {"failed": exc.reason, "token_requests": token_requests}
        answer = await send(http, "GET", base_url + detail_path, action="detail",
                            max_bytes=1_000_000, deadline_s=30)
    return {"notice": notice, "token_requests": token_requests, "detail_status": answer.status}


def run(barrier, base_url: str, credentials_file: str, detail_path: str, results) -> None:
    results.put(asyncio.run(expand(barrier, base_url, credentials_file, detail_path)))
