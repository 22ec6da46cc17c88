"""The `jdp-server` command: parse flags, build the app, serve it with uvicorn on loopback,
and print one JSON line (base_url, ids, credentials file, session token) once listening."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn

from . import oauth, seed
from .app import create_app
from .context import DEFAULT_PREVIEW_BROWSER, ServiceConfig, ServiceContext
from .projects import remote_session

CREDENTIALS_FILE = "client-credentials.json"
STARTUP_DEADLINE_S = 60.0


def default_data_dir() -> Path:
    """The embedded launcher's default (it always passes --data-dir, so platformdirs loads
    only for a bare `jdp-server`)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("jupyter-design-projects")) / "reference-service"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="jdp-server",
        description="The jupyter-design-projects reference service (offline, loopback).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--seed", choices=seed.SEEDS, default=None)
    parser.add_argument("--faults", action="store_true",
                        help="enable the /_faults routes (loopback clients only)")
    parser.add_argument("--session-idle-timeout", type=float, default=1800.0,
                        help="seconds before an idle MCP session expires")
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit when this process is gone (the embedded client sets it)")
    parser.add_argument("--preview-browser", default=str(DEFAULT_PREVIEW_BROWSER),
                        help="the chromium render_preview drives ('none': the fallback "
                             "drawing only)")
    parser.add_argument("--no-warm-browser", dest="warm_browser", action="store_false",
                        help="launch the preview browser on the first preview, not as the "
                             "service starts (the tests' many short-lived services)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error("--port must be 0-65535")
    if args.session_idle_timeout <= 0:
        parser.error("--session-idle-timeout must be positive")
    return args


def config_from(args: argparse.Namespace) -> ServiceConfig:
    return ServiceConfig(data_dir=(args.data_dir or default_data_dir()).resolve(),
                         host=args.host, port=args.port, seed=args.seed, faults=args.faults,
                         session_idle_timeout=args.session_idle_timeout,
                         preview_browser=None if args.preview_browser == "none"
                         else Path(args.preview_browser), warm_browser=args.warm_browser)


def startup_info(ctx: ServiceContext, base_url: str) -> dict[str, Any]:
    """What the startup line says; writes the first credential if there is no usable one."""
    credentials = oauth.ensure_credential_file(ctx, ctx.config.data_dir / CREDENTIALS_FILE)
    org_uuid, project_uuid = seed.demo_ids(ctx)
    session_jwt = (remote_session.mint_token(ctx, org_uuid, project_uuid)
                   if org_uuid and project_uuid else None)
    return {"base_url": base_url, "org_uuid": org_uuid, "project_uuid": project_uuid,
            "credentials_file": str(credentials), "session_jwt": session_jwt}


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
log = logging.getLogger(__name__)


def listening_notice(host: str, base_url: str) -> tuple[int, str]:
    """What the service says once it listens: loopback only (the default), or a warning
    that other machines can reach it when --host said otherwise."""
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        return logging.INFO, f"listening on {base_url} (loopback only)"
    return logging.WARNING, (f"listening on {base_url}: --host {host} is not loopback, so "
                             "other machines can reach this service and its demo data")


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only then,
    # and without it Nagle + delayed ACK add ~40 ms to every answer
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _parent_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Server(uvicorn.Server):
    """uvicorn's server, which says the moment it listens (`ready`) rather than being
    polled for `started` (a 20 ms poll added 10 ms to every start on average)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


async def serve(config: ServiceConfig, parent_pid: int | None = None) -> None:
    try:
        app = create_app(config)
    except PermissionError as exc:  # e.g. a --data-dir another user owns: refused, said so
        raise SystemExit(f"jdp-server: {exc}") from None
    sock = _bind(config.host, config.port)
    port = sock.getsockname()[1]
    host = f"[{config.host}]" if ":" in config.host else config.host
    server = _Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on",
                                    timeout_graceful_shutdown=5))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    ready = asyncio.create_task(server.ready.wait())
    await asyncio.wait({task, ready}, timeout=STARTUP_DEADLINE_S,
                       return_when=asyncio.FIRST_COMPLETED)
    ready.cancel()
    if not server.started:
        server.should_exit = True
        await task
        raise SystemExit("jdp-server: the service did not start")
    info = startup_info(app.state.ctx, f"http://{host}:{port}")
    log.log(*listening_notice(config.host, info["base_url"]))
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    while not task.done():
        if parent_pid is not None and not _parent_alive(parent_pid):
            server.should_exit = True
        await asyncio.wait({task}, timeout=1.0)
    await task


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(config_from(args), parent_pid=args.parent_pid))
    return 0
