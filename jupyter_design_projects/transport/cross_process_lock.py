"""The lock every process using one stored credential takes before it changes it: a
`filelock` beside the credential file (or in the data dir, for the keyring), polled without
blocking so a cancelled waiter never takes it late and keeps it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import filelock

#: how often a waiter tries the lock again
LOCK_POLL_S = 0.02


class LockBusy(Exception):
    """Another process held the lock for the whole wait."""


class CrossProcessLock:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file_lock: filelock.FileLock | None = None

    @contextlib.asynccontextmanager
    async def held(self, timeout_s: float) -> AsyncIterator[None]:
        """Hold the lock for the block; LockBusy when it stays taken for `timeout_s`. Polls
        a non-blocking filelock (a blocking acquire in a thread could still take the lock
        after its waiter was cancelled, and then never release it)."""
        import filelock  # here, not at import: a call that refreshes nothing never needs it

        if self._file_lock is None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # 0600 whatever the umask: it sits beside the credential, often in a data dir
            self._file_lock = filelock.FileLock(str(self.path), mode=0o600,
                                                thread_local=False)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            try:
                self._file_lock.acquire(blocking=False)
                break
            except filelock.Timeout:
                if loop.time() >= deadline:
                    raise LockBusy() from None
                await asyncio.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            self._file_lock.release()
