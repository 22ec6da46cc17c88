"""One process of the 401 refresh race: load the credential in a shared file, wait for
every other process, then make one Design read whose access token the service has expired,
and report what it did (run under spawn)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from jupyter_design_projects.design.session import identity_headers
from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.settings import DEFAULT_CLIENT_PLATFORM, FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import FileCredentialStore, lock_path_for
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.oauth import OAuthClient


async def read(barrier, base_url: str, credentials_file: str, read_path: str) -> dict:
    sent: list[str] = []
    answers: list[int] = []  # the statuses of the read (its try and its retry)

    async def request(request):
        sent.append(request.url.path)

    async def response(answer):
        if answer.request.url.path == read_path:
            answers.append(answer.status_code)

    store = FileCredentialStore(Path(credentials_file))
    hooks = {"request": [request], "response": [response]}
    async with make_client(event_hooks=hooks) as http:
        oauth = OAuthClient(http, base_url + "/v1/oauth/token", base_url + "/oauth/authorize",
                            FIRST_PARTY_CLIENT_ID)
        manager = CredentialManager(store, oauth, client_id=FIRST_PARTY_CLIENT_ID,
                                    lock_path=lock_path_for(store, Path(credentials_file).parent))
        held = await manager.access_token()  # the stored token, still valid by its clock
        http.auth = BearerAuth(manager, {base_url})
        barrier.wait(60)  # every process holds the expired token before any reads
        try:
            answer = await send(http, "GET", base_url + read_path, action="grants",
                                max_bytes=1_000_000, deadline_s=30,
                                headers=identity_headers(DEFAULT_CLIENT_PLATFORM))
        except JdpError as exc:
            return {"failed": f"{type(exc).__name__}: {exc}", "sent": sent}
        fresh = manager.current()
        return {"status": answer.status, "sent": sent, "answers": answers,
                "token_changed": fresh is not None and fresh.access_token != held}


def run(barrier, base_url: str, credentials_file: str, read_path: str, results) -> None:
    results.put(asyncio.run(read(barrier, base_url, credentials_file, read_path)))
