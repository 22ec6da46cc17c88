"""The runtime file through which a Jupyter server shares its one reference service with
the kernels it starts.

With no service configured, the server extension names a file in `JDP_SERVICE_FILE` (in
the server's environment, before any kernel starts, so every kernel inherits it), starts
the embedded reference service in the background and then writes the file: the service's
description when it is ready, or why it did not start. A kernel's first call reads it,
waiting a bounded time while it is not there yet. The file holds no token (the credential
stays in the credential file it names) and is written atomically with mode 0600.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from .embedded import STARTUP_DEADLINE_S, EmbeddedService
from .errors import ServiceStartFailed

#: the environment variable naming the file
ENV = "JDP_SERVICE_FILE"
#: a kernel waits this long for the server's service (its start has its own deadline)
WAIT_DEADLINE_S = STARTUP_DEADLINE_S + 5.0
POLL_S = 0.02
MAX_BYTES = 64 * 1024


class Starting(Exception):
    """The file is not there yet: the service is still starting."""


def file_name(pid: int) -> str:
    return f"jdp-service-{pid}.json"


def write_ready(path: Path, service: EmbeddedService) -> None:
    _write(path, {"state": "ready", **service.describe()})


def write_failed(path: Path, failure: ServiceStartFailed) -> None:
    _write(path, {"state": "failed", "reason": failure.reason, "log_tail": failure.log_tail})


def remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def read(path: Path) -> EmbeddedService:
    """The service the file describes; `Starting` when there is no file yet,
    `ServiceStartFailed` when the server's service did not start or the file is bad."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES)
    except FileNotFoundError:
        raise Starting() from None
    except OSError as exc:
        raise ServiceStartFailed("unreadable", f"{path}: {exc.strerror}") from None
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        if data.get("state") == "failed":
            raise ServiceStartFailed(str(data.get("reason", "failed")),
                                     str(data.get("log_tail", "")))
        return EmbeddedService.described(data)
    except ValueError:
        raise ServiceStartFailed("bad_line", f"{path} does not describe a service") from None


def wait(path: Path, deadline_s: float = WAIT_DEADLINE_S) -> EmbeddedService:
    """`read`, polling while the service is still starting, for at most `deadline_s`."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return read(path)
        except Starting:
            if time.monotonic() >= deadline:
                raise ServiceStartFailed(
                    "timeout", f"the Jupyter server's reference service did not become ready "
                               f"within {deadline_s:g} s ({path} was not written)") from None
            time.sleep(POLL_S)


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".jdp-service-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            json.dump(data, handle)
        os.replace(tmp, path)
    except BaseException:
        remove(Path(tmp))
        raise
