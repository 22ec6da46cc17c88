"""The per-user data directory, kept private: where it is (`JDP_DATA_DIR` when set, else
the platform's per-user data directory) and making it owner-only before anything is kept
in it (the journal, deck and sync records, the fallback credential file, the embedded
reference service's data).

A missing one is created 0700, with each parent it has to make 0700 too. An existing one
is tightened to 0700 when this user owns it (as the downloads directory is,
`projects/downloads.py`), and so are the files directly in it (0600: the journal, the
records and SQLite's side files, should an earlier run have left one loose): a
`JDP_DATA_DIR` or `tasks.py lab --data-dir` that an earlier run or a shell left 0755
would otherwise let every local user list it. One owned by
another user is refused, not tightened and not used (written choice, docs/choices.md):
private data must not live where someone else controls the directory. A symlink is
followed (a data dir may live on another disk); it is the directory it names that must be
this user's. Client code only: the reference service keeps its own rule for its own dir
(`server/private_files.py`), as `server/` never imports client code.

The client's SQLite stores (the Projects and Design journals, the sync state, the deck's
push records) are opened through `private_database`, the one place that makes a store's
folder 0700 and its file 0600 before SQLite opens it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    import sqlite3

#: names another per-user data directory (`tasks.py lab` gives each demo a fresh one)
DATA_DIR_ENV = "JDP_DATA_DIR"
DIR_MODE = 0o700
FILE_MODE = 0o600


def user_data_dir() -> Path:
    """The journal, the fallback credential file and the embedded service's data live
    here: `JDP_DATA_DIR` when set, else the platform's per-user data directory."""
    named = os.environ.get(DATA_DIR_ENV)
    if named:
        return Path(named)
    import platformdirs

    return Path(platformdirs.user_data_dir("jupyter-design-projects"))


def private_data_dir(path: Path, setting: str = DATA_DIR_ENV) -> Path:
    """`path`, created 0700 or an existing directory of this user's tightened to 0700;
    a ConfigError naming `setting` when it is not a directory or another user owns it."""
    path = Path(path)
    missing = _make_private_folders(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConfigError(setting, f"{path} cannot be used as the data directory "
                                   f"({exc.strerror or type(exc).__name__})") from None
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(setting, f"{path} is not a directory")
    if info.st_uid != os.geteuid():
        raise ConfigError(setting, f"{path} belongs to another user (uid {info.st_uid}); "
                                   "private data is kept only in a directory of your own. "
                                   f"Set {DATA_DIR_ENV} to one")
    for folder in (path, *missing):
        if stat.S_IMODE(os.stat(folder).st_mode) != DIR_MODE:
            os.chmod(folder, DIR_MODE)
    with os.scandir(path) as entries:
        for entry in entries:
            _tighten_file(entry)
    return path


def _make_private_folders(path: Path) -> list[Path]:
    """Make `path` and each parent it lacks, asking for 0700; the folders it made (the
    caller chmods them 0700, as a umask such as 0o277 can take owner bits away)."""
    missing = [p for p in (path, *path.parents) if not os.path.lexists(p)]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, DIR_MODE)
    return missing


def _tighten_file(entry: os.DirEntry) -> None:
    """A regular file of this user's 0600 (a symlink, a directory or another user's file
    is left as it is; the service's own directory tightens itself)."""
    with contextlib.suppress(FileNotFoundError):
        info = entry.stat(follow_symlinks=False)
        if (stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()
                and stat.S_IMODE(info.st_mode) != FILE_MODE):
            os.chmod(entry.path, FILE_MODE)


@contextlib.contextmanager
def private_database(path: Path, *, schema: str | None = None, timeout_s: float = 5.0,
                     rows: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection to the SQLite store at `path`, committed when the block ends without
    an error (rolled back otherwise) and closed. The store is private before SQLite opens
    it: a folder it makes (and each parent it needs) is made 0700 and the file created 0600
    (chmodded, whatever the umask), modes SQLite gives its -wal and -shm side files too.
    `schema` (CREATE ... IF NOT EXISTS) is applied first; `rows`: rows come as
    `sqlite3.Row`; `timeout_s`: how long to wait for another process's write."""
    import sqlite3

    path = Path(path)
    if not os.path.lexists(path):  # one stat on each later connect (a sync makes thousands)
        for folder in _make_private_folders(path.parent):
            os.chmod(folder, DIR_MODE)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, FILE_MODE)
        try:  # a tight umask (0o277) would leave it 0400: SQLite could not write it
            os.fchmod(fd, FILE_MODE)
        finally:
            os.close(fd)
    db = sqlite3.connect(path, timeout=timeout_s)
    if rows:
        db.row_factory = sqlite3.Row
    try:
        with db:
            if schema is not None:
                db.executescript(schema)
            yield db
    finally:
        db.close()
