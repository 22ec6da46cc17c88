"""A real Jupyter server on a loopback port with the server extension enabled and no service
configured, its kernels reached through their connection files, and an HTTP client that
signs in and sends the XSRF header as JupyterLab in a browser does. Waits are bounded."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from jupyter_design_projects.transport.http import loopback_tls
from tests.jupyter_process import jupyter_process

KERNEL_DEADLINE_S = 120.0
PREFIX = "/jupyter-design-projects/"


@dataclasses.dataclass
class JupyterServer:
    url: str
    token: str
    root: Path
    runtime_dir: Path
    env: dict[str, str]
    log_file: Path

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """A token-authenticated request (as a script or jupyter_client would send it)."""
        with httpx.Client(timeout=60.0, verify=loopback_tls()) as client:
            return client.request(method, self.url + path,
                                  headers={"Authorization": f"token {self.token}"}, **kwargs)

    @contextlib.contextmanager
    def browser(self) -> Iterator[httpx.Client]:
        """A client signed in with the login form, holding the `_xsrf` cookie as a browser
        does; send `xsrf_headers(client)` with each change, as JupyterLab does."""
        with httpx.Client(base_url=self.url, timeout=60.0, verify=loopback_tls()) as client:
            client.get("/login")
            answer = client.post("/login", data={"password": self.token,
                                                 "_xsrf": client.cookies.get("_xsrf", "")})
            assert answer.status_code in (200, 302), answer.text[:500]
            yield client

    def status(self) -> dict[str, Any]:
        answer = self.api("GET", PREFIX + "status")
        assert answer.status_code == 200, answer.text[:500]
        return answer.json()


def xsrf_headers(client: httpx.Client) -> dict[str, str]:
    return {"X-XSRFToken": client.cookies.get("_xsrf", "")}


def running_server(tmp: Path, config_extra: dict[str, Any] | None = None
                   ) -> Iterator[JupyterServer]:
    """`jupyter server` with isolated Jupyter and data dirs; no JDP_* variable set, so the
    extension starts the reference service that its kernels share. `config_extra` adds
    sections to its Jupyter config (e.g. `{"DesignProjects": {...}}`)."""
    root = tmp / "root"
    root.mkdir()
    config = tmp / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"jupyter_design_projects": True}},
         **(config_extra or {})}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JDP_", "CLAUDE_"))}
    env.update({
        "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_DATA_DIR": str(tmp / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "XDG_DATA_HOME": str(tmp / "xdg"),
        "IPYTHONDIR": str(tmp / "ipython"), "JUPYTER_PLATFORM_DIRS": "1",
    })
    log_file = tmp / "jupyter-server.log"

    def server_at(url: str, token: str) -> JupyterServer:
        return JupyterServer(url, token, root, tmp / "runtime", env, log_file)

    def service_ready(url: str, token: str) -> bool:  # and its reference service too
        return server_at(url, token).status()["service"]["state"] == "ready"

    with jupyter_process("server", [], env=env, root=root, log_file=log_file,
                         ready=service_ready) as (url, token):
        yield server_at(url, token)


class Kernel:
    """A kernel the server started, driven through its connection file (as nbclient does)."""

    def __init__(self, server: JupyterServer) -> None:
        from jupyter_client import BlockingKernelClient

        answer = server.api("POST", "/api/kernels", json={"name": "python3"})
        assert answer.status_code == 201, answer.text[:500]
        self.id = answer.json()["id"]
        self.server = server
        connection = server.runtime_dir / f"kernel-{self.id}.json"
        deadline = time.monotonic() + KERNEL_DEADLINE_S
        while not connection.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.client = BlockingKernelClient(connection_file=str(connection))
        self.client.load_connection_file()
        self.client.start_channels(hb=False)  # a missed 1 s heartbeat on a busy machine is no death
        self.client.wait_for_ready(timeout=KERNEL_DEADLINE_S)

    def run(self, code: str) -> str:
        """Run a cell; its stdout, or an AssertionError with the traceback."""
        out: list[str] = []
        errors: list[str] = []

        def collect(message: dict) -> None:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream" and content.get("name") == "stdout":
                out.append(content["text"])
            elif kind == "error":
                errors.append("\n".join(content.get("traceback", [])))

        reply = self.client.execute_interactive(code, timeout=KERNEL_DEADLINE_S,
                                                output_hook=collect, allow_stdin=False)
        assert reply["content"]["status"] == "ok" and not errors, "\n".join(errors)
        return "".join(out)

    def close(self) -> None:
        self.client.stop_channels()
        self.server.api("DELETE", f"/api/kernels/{self.id}")
