"""One process of the one-credential-stack race: a kernel's session or the server
extension's panel session, built by their own code paths (run under spawn)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from jupyter_design_projects.design.session import identity_headers
from jupyter_design_projects.transport.http import send


def _session(side: str, env: dict[str, str], data_dir: str):
    if side == "kernel":
        from jupyter_design_projects.session import Session
        from jupyter_design_projects.settings import Settings

        return Session.open(Settings.resolve(env), data_dir=Path(data_dir))
    from jupyter_design_projects.labserver.panel import Panel

    return Panel(env, Path(data_dir)).session()


def run(side: str, env: dict[str, str], data_dir: str, barrier, results) -> None:
    session = _session(side, env, data_dir)
    try:
        held = session.run(session.credentials.load_stored())
        barrier.wait(60)  # both hold the token
        barrier.wait(60)  # the service has expired it
        answer = session.run(send(session.http, "GET",
                                  session.settings.api_base_url + "/v1/design/consent",
                                  action="consent", max_bytes=10_000, deadline_s=30,
                                  headers=identity_headers(session.settings.client_platform)))
        now = session.credentials.current()
        results.put({
            "side": side, "status": answer.status,
            "changed": now.access_token != held.access_token,
            "token": hashlib.sha256(now.access_token.reveal().encode()).hexdigest(),
        })
    finally:
        session.close()
