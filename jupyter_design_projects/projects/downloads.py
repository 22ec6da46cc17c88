"""The session's download directory: owner-only (0700), holding owner-only (0600) files
with fresh unpredictable names (`private_files.new_private`: created with `O_EXCL |
O_NOFOLLOW`, whatever the umask), each written completely or not at all (a download being
received is removed unless it is kept). The directory is the session's temporary folder,
in the person's private data dir (`temp_folders.make_temp_folder`), never the shared /tmp:
a kernel ended by `os._exit` or SIGKILL leaves it behind, and the next session of the same
person removes it."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..core.project_paths import safe_file_name
from ..errors import DownloadFailed
from ..private_files import new_private

#: the longest extension a spilled doc keeps (with its dot); longer ones become .txt
EXTENSION_MAX = 12
TEXT_EXTENSION = ".txt"

DIR_MODE = 0o700


class Incoming:
    """A download being received: its file (open for writing) and its path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: BinaryIO | None = None
        self.kept = False

    def write(self, data: bytes) -> None:
        assert self.file is not None
        self.file.write(data)

    def keep(self) -> Path:
        self.kept = True
        return self.path


class DownloadDir:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def ensure(self) -> Path:
        """Create the directory 0700, or check an existing one is a real directory of ours
        (not a symlink someone planted) and tighten it to 0700."""
        try:
            self.root.mkdir(mode=DIR_MODE, parents=True)
        except FileExistsError:
            pass
        info = os.lstat(self.root)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            raise DownloadFailed("-", f"the download directory {self.root} is not a directory "
                                      "owned by this user")
        if stat.S_IMODE(info.st_mode) != DIR_MODE:
            os.chmod(self.root, DIR_MODE)
        return self.root

    def save_text(self, content: str, doc_path: str = "") -> Path:
        """`project-doc-*<ext>`, mode 0600: the doc's own extension (`.csv` stays `.csv`,
        so JupyterLab opens it with the right viewer), `.txt` when it has no usable one."""
        return self._save(content.encode("utf-8"), "project-doc-", doc_extension(doc_path))

    def save_bytes(self, file_name: str, data: bytes) -> Path:
        """`project-file-*-<safe name>`: safe characters only, their last 64, mode 0600."""
        return self._save(data, "project-file-", "-" + safe_file_name(file_name))

    @contextlib.contextmanager
    def receiving(self, file_name: str) -> Iterator[Incoming]:
        """A new `project-file-*` file (0600) to write a download into as it arrives; it
        is removed on leaving the block unless `keep()` was called."""
        fd, name = new_private(self.ensure(), "project-file-", "-" + safe_file_name(file_name))
        incoming = Incoming(name)
        try:
            with os.fdopen(fd, "wb") as out:
                incoming.file = out
                yield incoming
        finally:
            if not incoming.kept:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name)

    def _save(self, data: bytes, prefix: str, suffix: str) -> Path:
        fd, name = new_private(self.ensure(), prefix, suffix)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except BaseException as exc:
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
            if isinstance(exc, OSError):  # e.g. the disk is full: an error, not a traceback
                raise DownloadFailed("-", f"could not save it in {self.root}: "
                                          f"{exc.strerror or type(exc).__name__}") from None
            raise
        os.close(fd)
        return name

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def doc_extension(doc_path: str) -> str:
    """The extension a spilled doc's file keeps: the path's last suffix when it is a dot
    and 1-11 ASCII letters or digits, else `.txt`."""
    name = doc_path.rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if (dot and stem and 0 < len(ext) < EXTENSION_MAX and ext.isascii()
            and ext.isalnum()):
        return "." + ext.lower()
    return TEXT_EXTENSION
