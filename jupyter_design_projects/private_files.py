"""Files written for a person — a HAR, a deck export, a spilled result, a download —
each owner-only and never written through a link: the one writer every such file goes
through.

- A new file is created 0600 (whatever the umask) with `O_CREAT | O_EXCL | O_NOFOLLOW`:
  an existing name, or a symlink planted there, is never opened.
- A file at a chosen name (`replace_private`, `replacing`) is written whole into a fresh
  0600 temporary file in the same folder, flushed to disk, then moved over the name with
  `os.replace`: a reader sees the old file or the new one, never half of one, and the old
  file's inode is never written to (a hard link to it keeps the old content).
- A symlink at the chosen name is replaced by the file, as `mv` would replace it; the
  file or folder it pointed at is never opened, written or removed (written choice: the
  link is the name being replaced, and refusing would leave a stale export in place).
- A temporary name that is taken (a leftover, or one planted) is skipped for another
  fresh one; a failure removes the temporary file and leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
#: a new file: created here or not at all, never through a symlink, kept from children
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
#: fresh names tried before giving up (each is 48 random bits: a clash means a plant)
NAME_ATTEMPTS = 16


def create_private(path: str | os.PathLike[str]) -> int:
    """A new file at `path`, 0600, open for writing (its descriptor); FileExistsError if
    anything — a file, a folder, a symlink — is there already."""
    fd = os.open(path, CREATE_FLAGS, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # a tight umask (0o277) would take the owner's bits
    except BaseException:
        os.close(fd)
        raise
    return fd


def _fresh_name() -> str:
    return secrets.token_hex(6)


def new_private(folder: str | os.PathLike[str], prefix: str = "",
                suffix: str = "") -> tuple[int, Path]:
    """A new 0600 file with an unpredictable name `prefix<random>suffix` in `folder`, open
    for writing: its descriptor and path (as `tempfile.mkstemp`, with the mode whatever
    the umask)."""
    for _ in range(NAME_ATTEMPTS):
        path = Path(folder, f"{prefix}{_fresh_name()}{suffix}")
        try:
            return create_private(path), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free file name in {folder} after {NAME_ATTEMPTS} tries")


@contextlib.contextmanager
def replacing(target: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file to write `target`'s new content into; when the block ends without an
    error the content replaces `target` atomically (see the module's rules), else nothing
    changes."""
    target = Path(target)
    fd, temporary = new_private(target.parent, f".{target.name[:200]}.", ".part")
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_folder(target.parent)


def replace_private(target: str | os.PathLike[str], data: bytes | str) -> Path:
    """Write `data` (str as UTF-8) as the whole of `target`, 0600, atomically."""
    with replacing(target) as file:
        file.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(target)


def _sync_folder(folder: Path) -> None:
    """The rename made durable (best effort: some file systems refuse a folder's fsync)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
