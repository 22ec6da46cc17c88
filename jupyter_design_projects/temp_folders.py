"""The temporary folders of one process — a session's, and the downloads and spilled
results kept in it — made in the person's private data directory, and those of processes
that are gone swept away when the next one starts.

A folder lives in `<data dir>/temp/` (0700, like the data dir: no other local user lists
or reads it, unlike the shared /tmp) and is named after the process that made it:

    jdp-<kind>-<pid>-<start>-<machine>-<random>

`start` is the process's start time (clock ticks since boot, `/proc/<pid>/stat`), so a pid
the system has since given to another process does not keep a dead one's folder;
`machine` is 8 hex digits of the boot id and 8 of the host name. A kernel ended by a hub
stop or an idle cull (`os._exit`, SIGKILL) never removes its folder itself: the next
session of the same person, on the same host, removes it as it makes its own.

Which folder is stale, as a table (`stale`):

| host     | boot     | pid and its start time now       | the folder |
|----------|----------|-----------------------------------|------------|
| other    | any      | (not ours to judge)               | kept       |
| this     | other    | (every process of that boot ended)| removed    |
| this     | this     | same pid, same start time         | kept       |
| this     | this     | no such pid, or another start     | removed    |
| this     | this     | the pid runs, a start time unknown| kept       |

A name that does not follow the pattern is never touched, nor is a symlink followed: one
is removed as a name, the folder it points at left alone. Where the start time cannot be
read (no `/proc`), it is written as 0 and a folder is kept while its pid exists.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import secrets
import shutil
import socket
import stat
from pathlib import Path

from .data_dir import DIR_MODE, private_data_dir

#: the folder of the data dir that holds them
TEMP_DIR_NAME = "temp"
_NAME = re.compile(r"^jdp-(?P<kind>[a-z]{1,16})-(?P<pid>[0-9]{1,10})-(?P<start>[0-9]{1,20})-"
                   r"(?P<boot>[0-9a-f]{8})(?P<host>[0-9a-f]{8})-[0-9a-f]{12}$")
_KIND = re.compile(r"^[a-z]{1,16}$")


@dataclasses.dataclass(frozen=True)
class Mark:
    """What a folder's name says of the process that made it."""

    pid: int
    #: the process's start time in clock ticks since boot; 0 where it cannot be read
    start: int
    boot: str
    host: str


def parse(name: str) -> Mark | None:
    """The mark in a folder's name, or None when the name is not one of ours."""
    found = _NAME.match(name)
    if found is None:
        return None
    return Mark(int(found["pid"]), int(found["start"]), found["boot"], found["host"])


def stale(mark: Mark, here: Mark, start_now: int | None) -> bool:
    """Whether the folder of `mark` belongs to a process that is gone: `here` is this
    process's own mark (its boot and host), `start_now` the start time of the process
    that has `mark.pid` now (None: no such process)."""
    if mark.host != here.host:
        return False
    if mark.boot != here.boot:
        return True
    if start_now is None:
        return True
    return 0 not in (mark.start, start_now) and start_now != mark.start


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:8]


def start_time(pid: int) -> int | None:
    """The start time of process `pid` (ticks since boot), 0 when it runs but the time
    cannot be read here, or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
        return int(fields[19])  # field 22 of stat(5); fields here start at field 3
    except FileNotFoundError:
        return None
    except (OSError, ValueError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return 0
    return 0


def this_process() -> Mark:
    """The mark of this process: its pid, start time, boot and host."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = ""
    pid = os.getpid()
    return Mark(pid, start_time(pid) or 0, _digest(boot), _digest(socket.gethostname()))


def temp_root(data_dir: Path) -> Path:
    """`<data_dir>/temp`, created 0700 (and the data dir, if missing) or tightened."""
    return private_data_dir(Path(data_dir) / TEMP_DIR_NAME)


def make_temp_folder(data_dir: Path, kind: str = "session") -> Path:
    """A new 0700 folder for this process in `data_dir`'s temp folder, after sweeping the
    folders of processes that are gone. The caller removes it when it closes."""
    if not _KIND.match(kind):
        raise ValueError(f"a temporary folder's kind is 1-16 of a-z, got {kind!r}")
    root = temp_root(data_dir)
    here = this_process()
    sweep(root, here)
    name = (f"jdp-{kind}-{here.pid}-{here.start}-{here.boot}{here.host}-"
            f"{secrets.token_hex(6)}")
    folder = root / name
    os.mkdir(folder, DIR_MODE)
    os.chmod(folder, DIR_MODE)  # a umask such as 0o277 would take the owner's bits
    return folder


def sweep(root: Path, here: Mark | None = None) -> list[Path]:
    """Remove the folders in `root` whose process is gone (the module's table); the
    paths removed."""
    here = here or this_process()
    removed = []
    with os.scandir(root) as entries:
        for entry in entries:
            mark = parse(entry.name)
            if mark is None or not stale(mark, here, start_time(mark.pid)):
                continue
            _remove(Path(entry.path))
            removed.append(Path(entry.path))
    return removed


def _remove(path: Path) -> None:
    """A stale folder and everything in it; a symlink (or file) in its place only as a
    name. Another process sweeping at the same moment may have removed it first."""
    with contextlib.suppress(FileNotFoundError):
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            shutil.rmtree(path, ignore_errors=True)
        elif not stat.S_ISDIR(info.st_mode):
            os.unlink(path)
