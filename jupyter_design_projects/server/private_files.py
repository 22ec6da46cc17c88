"""Owner-only storage of the reference service: its data dir is 0700 (a loose existing one
is tightened) and every file in it 0600 — the database and SQLite's -wal/-shm side files,
the log, the credential file and its lock — whatever the umask, so on a shared host
(JupyterHub, a team server) no other local user reads a Project."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
#: the side files SQLite keeps beside a database (it creates them with the database's mode)
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> Path:
    """Create `path` 0700, with each missing parent 0700 too (an existing parent is left
    as it is), or check an existing one is a directory of this user and tighten it and
    what an earlier run left in it (directories 0700, files 0600; symlinks and other
    users' files are not followed or touched)."""
    path = Path(path)
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, DIR_MODE)
    info = os.stat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise PermissionError(f"{path} is not a directory owned by this user")
    for folder in [path, *missing]:
        if stat.S_IMODE(os.stat(folder).st_mode) != DIR_MODE:
            os.chmod(folder, DIR_MODE)
    for top, folders, files in os.walk(path):
        for name in folders + files:
            _tighten(Path(top, name))
    return path


def _tighten(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        info = os.lstat(path)
        if info.st_uid != os.geteuid():
            return
        if stat.S_ISDIR(info.st_mode):
            wanted = DIR_MODE
        elif stat.S_ISREG(info.st_mode):
            wanted = FILE_MODE
        else:  # a symlink, socket, fifo: left as it is
            return
        if stat.S_IMODE(info.st_mode) != wanted:
            os.chmod(path, wanted)


def private_file(path: Path) -> Path:
    """Create `path` 0600 if it is missing (never through a symlink), else tighten it to
    0600; the mode is set explicitly, so the umask does not matter."""
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return path


def private_database(path: Path) -> Path:
    """The database file 0600 before SQLite opens it (SQLite then creates its -wal and -shm
    files with the same mode), and side files an earlier run left behind tightened."""
    private_file(path)
    for suffix in SQLITE_SIDE_FILES:
        side = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(os.lstat(side).st_mode) != FILE_MODE and not side.is_symlink():
                os.chmod(side, FILE_MODE)
    return path
