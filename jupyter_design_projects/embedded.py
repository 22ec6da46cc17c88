"""The embedded default: start the reference service as a subprocess on a free loopback
port, read its one JSON startup line within a deadline, and stop it on request or at
interpreter exit. (Client side: it never imports the server package.)"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import platformdirs

from .errors import ServiceStartFailed

STARTUP_DEADLINE_S = 60.0
STOP_GRACE_S = 10.0
LOG_FILE = "reference-service.log"
_MAX_LINE = 64 * 1024
_TAIL_CHARS = 3000


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("jupyter-design-projects")) / "reference-service"


@dataclasses.dataclass
class EmbeddedService:
    """A running reference service; `session_jwt` is a plain str the caller wraps."""

    base_url: str
    org_uuid: str | None
    project_uuid: str | None
    credentials_file: Path
    session_jwt: str | None = dataclasses.field(repr=False)
    data_dir: Path
    log_file: Path
    process: subprocess.Popen = dataclasses.field(repr=False)

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a grace period; safe to call twice."""
        atexit.unregister(self.stop)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_GRACE_S)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _tail(path: Path, start: int) -> str:
    try:
        with path.open("rb") as log:
            log.seek(start)
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return text[-_TAIL_CHARS:]


def _read_line(process: subprocess.Popen, deadline: float) -> bytes | None:
    """The first stdout line, or None if the process exits or the deadline passes first."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in buffer and len(buffer) < _MAX_LINE:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=min(remaining, 0.5)):
                if remaining <= 0 or process.poll() is not None:
                    return None
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            buffer += chunk
    return buffer.split(b"\n", 1)[0]


def start_embedded(data_dir: Path | None = None, *, faults: bool = False,
                   extra_args: Sequence[str] = (),
                   deadline_s: float = STARTUP_DEADLINE_S) -> EmbeddedService:
    """Start `python -m jupyter_design_projects.server --seed demo` on a free loopback port."""
    data_dir = Path(data_dir or default_data_dir()).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    log_file = data_dir / LOG_FILE
    command = [sys.executable, "-m", "jupyter_design_projects.server", "--host", "127.0.0.1",
               "--port", "0", "--data-dir", str(data_dir), "--seed", "demo",
               "--parent-pid", str(os.getpid())]
    if faults:
        command.append("--faults")
    command += list(extra_args)
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    with log_file.open("ab") as log:
        start = log.tell()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=log, env=env, start_new_session=True)
    deadline = time.monotonic() + deadline_s
    line = _read_line(process, deadline)
    try:
        info = json.loads(line) if line else None
    except ValueError:
        info = None
    if not isinstance(info, dict) or not isinstance(info.get("base_url"), str):
        try:  # a closed stdout usually means the process is exiting: give it a moment
            process.wait(0.0 if line is None and time.monotonic() >= deadline else 2.0)
        except subprocess.TimeoutExpired:
            pass
        exited = process.poll() is not None
        if not exited:
            process.kill()
            process.wait(STOP_GRACE_S)
        if process.stdout is not None:
            process.stdout.close()
        reason = "exited" if exited else ("bad_line" if line else "timeout")
        raise ServiceStartFailed(reason, _tail(log_file, start))
    service = EmbeddedService(
        base_url=info["base_url"], org_uuid=info.get("org_uuid"),
        project_uuid=info.get("project_uuid"), credentials_file=Path(info["credentials_file"]),
        session_jwt=info.get("session_jwt"), data_dir=data_dir, log_file=log_file,
        process=process)
    atexit.register(service.stop)
    return service
