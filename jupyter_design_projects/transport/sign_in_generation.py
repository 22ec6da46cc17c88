"""The sign-in generation marker: a small file beside the credential lock that a sign-in or
sign-out in any process replaces, so every other process using the same store notices the
change with one `stat` before its next use of the token (and reads the store again)."""

from __future__ import annotations

import os
import secrets as random
from pathlib import Path

#: what identifies one marker: its inode, its mtime and its size
Seen = tuple[int, int, int]


class GenerationMarker:
    def __init__(self, lock_path: Path) -> None:
        self.path = lock_path.with_name(lock_path.name + ".generation")
        self._seen: Seen | None = None

    def _now(self) -> Seen | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return info.st_ino, info.st_mtime_ns, info.st_size

    def changed(self) -> bool:
        """Whether the marker changed since this process last looked (it looks now)."""
        seen = self._now()
        if seen == self._seen:
            return False
        self._seen = seen
        return True

    def bump(self) -> None:
        """Tell every other process using this store that the sign-in changed (call it
        under the cross-process lock): the marker is replaced, so its inode changes."""
        partial = self.path.with_name(self.path.name + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(random.token_hex(8))
        os.replace(partial, self.path)
        self._seen = self._now()
