"""The embedded default: start the reference service as a subprocess on a free loopback
port, read its one JSON startup line within a deadline, and stop it on request or at
interpreter exit. (Client side: it never imports the server package.)

A service another process started (the Jupyter server's, see `service_file`) is an
`EmbeddedService` without a process: this process uses it and never stops it."""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from .core import owner_proof
from .core.redaction import Secret
from .data_dir import private_data_dir
from .errors import ConfigError, ServiceStartFailed

STARTUP_DEADLINE_S = 60.0
STOP_GRACE_S = 10.0
LOG_FILE = "reference-service.log"
_MAX_LINE = 64 * 1024
_TAIL_CHARS = 3000


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("jupyter-design-projects")) / "reference-service"


#: what `describe()` writes and `described()` reads back (never a token)
DESCRIBED = ("base_url", "org_uuid", "project_uuid", "credentials_file", "data_dir", "log_file")


@dataclasses.dataclass
class EmbeddedService:
    """A running reference service; `session_jwt` is a plain str the caller wraps.
    `process` is None for a service another process started and will stop."""

    base_url: str
    org_uuid: str | None
    project_uuid: str | None
    credentials_file: Path
    session_jwt: str | None = dataclasses.field(repr=False)
    data_dir: Path
    log_file: Path
    process: subprocess.Popen | None = dataclasses.field(repr=False)

    @property
    def running(self) -> bool:
        return self.process is None or self.process.poll() is None

    @property
    def owned(self) -> bool:
        """Whether this process started it (and so stops it)."""
        return self.process is not None

    def client_env(self) -> dict[str, str]:
        """The environment that points a client at this service (what `Settings.resolve`
        reads): its URL, its credential file, its org and attached project."""
        env = {"JDP_API_BASE_URL": self.base_url,
               "JDP_CREDENTIALS_FILE": str(self.credentials_file)}
        if self.org_uuid:
            env["JDP_ORG_UUID"] = self.org_uuid
        if self.project_uuid:
            env["CLAUDE_PROJECT_UUID"] = self.project_uuid
        return env

    def describe(self) -> dict[str, str | None]:
        """What another process needs to use this service (no token: not the session JWT)."""
        return {name: None if getattr(self, name) is None else str(getattr(self, name))
                for name in DESCRIBED}

    @classmethod
    def described(cls, description: dict[str, object]) -> EmbeddedService:
        """A service another process started, from its `describe()`; ValueError when a
        field is missing or not a string."""
        values = {name: description.get(name) for name in DESCRIBED}
        for name in ("base_url", "credentials_file", "data_dir", "log_file"):
            if not isinstance(values[name], str) or not values[name]:
                raise ValueError(f"the service description has no {name}")
        for name in ("org_uuid", "project_uuid"):
            if values[name] is not None and not isinstance(values[name], str):
                raise ValueError(f"the service description has a malformed {name}")
        return cls(base_url=str(values["base_url"]), org_uuid=values["org_uuid"],  # type: ignore[arg-type]
                   project_uuid=values["project_uuid"],  # type: ignore[arg-type]
                   credentials_file=Path(str(values["credentials_file"])), session_jwt=None,
                   data_dir=Path(str(values["data_dir"])), log_file=Path(str(values["log_file"])),
                   process=None)

    def owner_secret(self) -> Secret | None:
        """This run's owner secret (`core.owner_proof`), read from the 0700 data dir; None
        when it cannot be read (a service of another user, or one not yet started)."""
        return read_owner_secret(self.data_dir / owner_proof.OWNER_FILE)

    def settings_link(self, now_s: float | None = None) -> str | None:
        """A link to the service's Design settings page that only its owner could make,
        good for `owner_proof.LINK_TTL_S`; None without the owner secret."""
        secret = self.owner_secret()
        if secret is None:
            return None
        expires = int((time.time() if now_s is None else now_s) + owner_proof.LINK_TTL_S)
        return (f"{self.base_url}/design/settings?{owner_proof.LINK_FIELD}="
                f"{owner_proof.link_proof(secret.reveal(), expires)}")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a grace period; safe to call twice. A service this
        process did not start is left running."""
        atexit.unregister(self.stop)
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_GRACE_S)
        if self.process.stdout is not None:
            self.process.stdout.close()


def read_owner_secret(path: Path) -> Secret | None:
    """The owner secret in the file at `path`, or None when there is none to read."""
    try:
        with Path(path).open("r", encoding="ascii") as handle:
            text = handle.read(256).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Secret(text) if text else None


def owner_secret_for(embedded: EmbeddedService | None, credentials_file: str | None,
                     authorize_url: str) -> Secret | None:
    """The owner secret this process proves itself with on the sign-in page: its embedded
    service's, or, for a reference service on loopback that it did not start (`jdp-server`
    run by hand, JDP_CREDENTIALS_FILE naming its credential file), the one beside that
    credential file. None for any other service: its sign-in page is its own affair."""
    if embedded is not None:
        return embedded.owner_secret()
    host = urlsplit(authorize_url).hostname or ""
    if not credentials_file or host not in ("127.0.0.1", "::1", "localhost"):
        return None
    return read_owner_secret(Path(credentials_file).parent / owner_proof.OWNER_FILE)


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


def _owner_only_dir(path: Path) -> Path:
    """The data dir 0700 (and each parent it has to make; `data_dir.private_data_dir`),
    before the log is opened in it. The service itself tightens the dir and everything in
    it as it starts (`server/private_files.py`, which client code may not import: it stays
    off the `%load_ext` path and out of the client's import graph). One that is not a
    directory of this user's is a ServiceStartFailed (`cannot_start`) saying why."""
    try:
        return private_data_dir(path)
    except ConfigError as error:
        raise ServiceStartFailed("cannot_start", error.reason) from None


def _owner_only_file(path: Path) -> Path:
    """`path` 0600 whatever the umask (created if missing, never through a symlink)."""
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def start_embedded(data_dir: Path | None = None, *, faults: bool = False,
                   extra_args: Sequence[str] = (), warm_browser: bool | None = None,
                   deadline_s: float = STARTUP_DEADLINE_S,
                   popen: Callable[..., subprocess.Popen] = subprocess.Popen) -> EmbeddedService:
    """Start `python -m jupyter_design_projects.server --seed demo` on a free loopback port.
    Its preview browser is launched on the first preview unless `warm_browser` (None: the
    `warm_preview_browser` setting, `JDP_WARM_PREVIEW_BROWSER`) asks for it at start.
    `popen` starts the command, with `subprocess.Popen`'s arguments (the tests pass a fork
    server's)."""
    if warm_browser is None:
        from .settings import Settings

        try:
            warm_browser = Settings.resolve(os.environ).warm_preview_browser
        except ConfigError as error:
            raise ServiceStartFailed("cannot_start", str(error)) from None
    data_dir = _owner_only_dir(Path(data_dir or default_data_dir()).resolve())
    log_file = _owner_only_file(data_dir / LOG_FILE)
    command = [sys.executable, "-m", "jupyter_design_projects.server", "--host", "127.0.0.1",
               "--port", "0", "--data-dir", str(data_dir), "--seed", "demo",
               "--parent-pid", str(os.getpid())]
    if faults:
        command.append("--faults")
    if not warm_browser:
        command.append("--no-warm-browser")
    command += list(extra_args)
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    with log_file.open("ab") as log:
        start = log.tell()
        process = popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
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
