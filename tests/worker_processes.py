"""Worker processes for the tests that race several processes against one reference
service: started with the spawn method, meeting at one barrier, reporting on one queue,
and always reaped (joined, killed when stuck) however the test ends; and the copy of the
service's first credential that such processes share."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: how long a test waits for each worker's outcome, and then for each worker to end
OUTCOME_TIMEOUT_S = 120
JOIN_TIMEOUT_S = 30


class Workers:
    """Processes of one race: `barrier` (for `parties`) and `results` are what each
    worker's target receives among its arguments."""

    def __init__(self, parties: int) -> None:
        self._spawn = multiprocessing.get_context("spawn")
        self.barrier = self._spawn.Barrier(parties)
        self.results = self._spawn.Queue()
        self._processes: list[Any] = []

    def start(self, target: Callable[..., Any], each: Iterable[tuple[Any, ...]]) -> None:
        """One process per argument tuple in `each`, running `target(*arguments)`."""
        for arguments in each:
            process = self._spawn.Process(target=target, args=arguments)
            process.start()
            self._processes.append(process)

    def outcomes(self) -> list[Any]:
        """What each started process put on `results`, in the order they put it."""
        return [self.results.get(timeout=OUTCOME_TIMEOUT_S) for _ in self._processes]

    def reap(self) -> None:
        """Join every process (killing one still running after JOIN_TIMEOUT_S) and close
        the queue."""
        for process in self._processes:
            process.join(JOIN_TIMEOUT_S)
            if process.is_alive():
                process.kill()
                process.join()
        self.results.close()
        self.results.join_thread()


def copied_credentials(service: Any, folder: Path) -> Path:
    """A private copy (0600) of the service's first credential (no project scopes yet) at
    `folder`/credentials.json, for the processes of a test to share."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "credentials.json"
    shutil.copyfile(service.credentials_file, path)
    os.chmod(path, 0o600)
    as_owner(service, path)
    return path


def as_owner(service: Any, credentials_file: Path) -> Path:
    """Make the processes using `credentials_file` the service's owner, as a person who
    runs `jdp-server` and names its credential file is: a copy (0600) of the service's
    owner secret beside that file, where the client looks for it (embedded.owner_secret_for).
    Returns `credentials_file`."""
    from jupyter_design_projects.core.owner_proof import OWNER_FILE

    target = Path(credentials_file).parent / OWNER_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(service.data_dir) / OWNER_FILE, target)
    os.chmod(target, 0o600)
    return Path(credentials_file)
