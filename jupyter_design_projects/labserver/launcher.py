"""The Jupyter server's one reference service: with no service configured, it is started
once, in the background, when the server extension loads, and every kernel this server
launches uses it.

Before anything else (and so before any kernel starts), `launch` names the runtime file in
`os.environ["JDP_SERVICE_FILE"]`; kernels inherit the variable and wait a bounded time for
the file (`service_file`). The start runs on a daemon thread so the server answers at
once; the file says `ready` with the service's description, or `failed` with the reason.
The service stops with the server (at exit, and by its own parent-pid watch).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import MutableMapping
from pathlib import Path

from .. import service_file
from ..embedded import STOP_GRACE_S, EmbeddedService, start_embedded
from ..errors import ServiceStartFailed
from ..settings import Settings

log = logging.getLogger(__name__)


class ServiceLauncher:
    """Starts the embedded reference service on a daemon thread and writes the runtime file."""

    def __init__(self, path: Path, data_dir: Path, *, faults: bool = False,
                 logger: logging.Logger | logging.LoggerAdapter | None = None) -> None:
        self.log = logger or log
        self.path = Path(path)
        self.data_dir = Path(data_dir)
        self.faults = faults
        self.service: EmbeddedService | None = None
        self.failure: ServiceStartFailed | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jdp-service-launcher",
                                        daemon=True)

    def start(self) -> None:
        service_file.remove(self.path)  # a file left by an earlier server of this pid
        atexit.register(self.stop)
        self._thread.start()

    def _run(self) -> None:
        try:
            try:
                service = start_embedded(self.data_dir, faults=self.faults)
            except OSError as exc:  # e.g. the data directory cannot be made
                raise ServiceStartFailed("cannot_start", f"{self.data_dir}: {exc.strerror}"
                                         ) from None
        except ServiceStartFailed as exc:
            self.log.error("jupyter-design-projects: the reference service did not start (%s);"
                           " see %s", exc.reason, self.data_dir)
            self.failure = exc
            service_file.write_failed(self.path, exc)
            return
        if self._stopping.is_set():  # the server stopped while the service was starting
            service.stop()
            return
        self.service = service
        service_file.write_ready(self.path, service)
        self.log.info("jupyter-design-projects: reference service at %s (shared by this "
                      "server's kernels and the side panel)", service.base_url)

    def stop(self) -> None:
        """Stop the service and remove the file; safe to call twice."""
        atexit.unregister(self.stop)
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(STOP_GRACE_S)
        if self.service is not None:
            self.service.stop()
        service_file.remove(self.path)


def launch(environ: MutableMapping[str, str], runtime_dir: Path, data_dir: Path,
           logger: logging.Logger | logging.LoggerAdapter | None = None,
           ) -> ServiceLauncher | None:
    """With no service configured and none named by a runtime file yet: name this server's
    runtime file in `environ` and start the service. None when there is nothing to start
    (a service is configured, or a parent server already shares one)."""
    try:
        settings = Settings.resolve(environ)
    except Exception:  # a bad setting is reported by the panel and by every kernel
        return None
    if not settings.embedded or settings.service_file:
        return None
    path = Path(runtime_dir) / service_file.file_name(os.getpid())
    environ[service_file.ENV] = str(path)
    launcher = ServiceLauncher(path, data_dir, logger=logger,
                               faults=environ.get("JDP_REFERENCE_FAULTS") == "1")
    launcher.start()
    return launcher
