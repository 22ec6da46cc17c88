"""The local_path guard (spec §15): read a file inside the working directory as UTF-8 text
through a descriptor proven to be the file that was checked, whatever is swapped meanwhile.

The sequence: lexical containment in cwd; real containment (realpath of both); lstat
before opening (a regular file, not a symlink); open O_RDONLY|O_NOFOLLOW|O_NONBLOCK (a
FIFO swapped in cannot block); fstat the descriptor; re-resolve the path and stat it; the
real path, device, non-zero inode and file type of descriptor, path and pre-open stat must
agree (an inode number can be reused at once, so the type is compared too);
then read at most 26,214,400 + 1 bytes from the verified descriptor (a file that grows
past the limit while read is too large). Decoding is strict UTF-8 by default: bytes that
are not UTF-8 are refused (`not_utf8`) rather than silently replaced, so what is uploaded
is exactly what is on disk. `encoding` names another text encoding (`--encoding`), decoded
just as strictly (`undecodable`); the spec decodes lossily, which this never does.
`hook(step)` is called between the steps (`checked`, `opened`, `verified`, `read`) so
tests can swap files at each point deterministically.
"""

from __future__ import annotations

import codecs
import dataclasses
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from ..core.budgets import UPLOAD_MAX_BYTES
from ..core.containment import is_within, lexical_resolve
from ..errors import InvalidProjectsArgument, UploadRejected

DEFAULT_ENCODING = "utf-8"

OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
READ_CHUNK = 1024 * 1024

Hook = Callable[[str], None]
Opener = Callable[[str, int], int]


@dataclasses.dataclass(frozen=True)
class LocalText:
    real_path: str
    text: str
    n_bytes: int


def read_local_text(
    local_path: str,
    cwd: Path,
    *,
    hook: Hook | None = None,
    opener: Opener = os.open,
    limit: int = UPLOAD_MAX_BYTES,
    encoding: str = DEFAULT_ENCODING,
) -> LocalText:
    codec = text_codec(encoding)
    step = hook or (lambda _name: None)
    lexical, real, before = _checked(local_path, cwd)
    step("checked")
    fd = _open(local_path, real, opener)
    try:
        step("opened")
        _verify(fd, local_path, lexical, real, before, limit)
        step("verified")
        data = _read_capped(fd, limit, step, local_path)
        if len(data) > limit:
            raise UploadRejected(local_path, "too_large")
    finally:
        os.close(fd)
    try:
        text = data.decode(codec.name, errors="strict")
    except UnicodeDecodeError:
        rule = "not_utf8" if codec.name == "utf-8" else "undecodable"
        raise UploadRejected(local_path, rule) from None
    return LocalText(real_path=real, text=text, n_bytes=len(data))


def _checked(local_path: str, cwd: Path) -> tuple[str, str, os.stat_result]:
    """(the lexical path, the real path, its lstat) of a path inside `cwd` both lexically
    and really, that is a regular file and not a symlink; before anything is opened."""
    if not isinstance(local_path, str) or not local_path or "\x00" in local_path:
        raise UploadRejected(str(local_path), "missing")
    root = os.path.abspath(cwd)
    lexical = lexical_resolve(root, local_path)
    if not is_within(root, lexical):
        raise UploadRejected(local_path, "outside_cwd")
    real_root = os.path.realpath(root)
    real = _realpath(local_path, lexical)
    if not is_within(real_root, real):
        raise UploadRejected(local_path, "outside_cwd")
    before = _stat(local_path, real, os.lstat)
    if stat.S_ISLNK(before.st_mode):
        raise UploadRejected(local_path, "replaced")
    if not stat.S_ISREG(before.st_mode):
        raise UploadRejected(local_path, "not_regular")
    return lexical, real, before


def _verify(fd: int, local_path: str, lexical: str, real: str, before: os.stat_result,
            limit: int) -> None:
    """The opened descriptor is the file that was checked: the path resolved again to the
    same real path, and descriptor, path and pre-open stat agree on device, non-zero inode
    and type; a regular file within `limit` bytes as it stands."""
    opened = os.fstat(fd)
    try:
        again = _realpath(local_path, lexical)
        now = os.stat(again)
    except (UploadRejected, OSError):
        raise UploadRejected(local_path, "replaced") from None
    same = (
        again == real
        and opened.st_ino != 0
        and opened.st_dev == now.st_dev == before.st_dev
        and opened.st_ino == now.st_ino == before.st_ino
        # an inode number can be reused at once (unlink, then mkfifo): the type must agree
        and stat.S_IFMT(opened.st_mode) == stat.S_IFMT(before.st_mode)
    )
    if not same:
        raise UploadRejected(local_path, "replaced")
    if not stat.S_ISREG(opened.st_mode):
        raise UploadRejected(local_path, "not_regular")
    if opened.st_size > limit:
        raise UploadRejected(local_path, "too_large")


def text_codec(encoding: str) -> codecs.CodecInfo:
    """The codec of a text encoding's name (`latin-1`, `cp1252`, `utf-16` …); names that
    are unknown or not text encodings (`base64`, `rot13`) are refused before any I/O."""
    try:
        codec = codecs.lookup(encoding) if isinstance(encoding, str) else None
    except LookupError:
        codec = None
    if codec is None or not getattr(codec, "_is_text_encoding", True):
        raise InvalidProjectsArgument("write", "encoding", "must name a known text encoding")
    return codec


def _realpath(local_path: str, lexical: str) -> str:
    try:
        return os.path.realpath(lexical, strict=True)
    except OSError as exc:
        raise UploadRejected(local_path, _rule(exc)) from None


def _stat(local_path: str, path: str, how: Callable[[str], os.stat_result]) -> os.stat_result:
    try:
        return how(path)
    except OSError as exc:
        raise UploadRejected(local_path, _rule(exc)) from None


def _open(local_path: str, real: str, opener: Opener) -> int:
    try:
        return opener(real, OPEN_FLAGS)
    except OSError as exc:
        # the path was a checked regular file a moment ago: a symlink now means a swap
        rule = "replaced" if exc.errno == errno.ELOOP else _rule(exc)
        raise UploadRejected(local_path, rule) from None


def _rule(exc: OSError) -> str:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return "missing"
    if exc.errno == errno.ELOOP:
        return "symlink_loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "unreadable"
    if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EISDIR):
        return "not_regular"
    return "unreadable"


def _read_capped(fd: int, limit: int, step: Hook, local_path: str) -> bytes:
    """At most `limit + 1` bytes: one byte past the limit is enough to say too large."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        try:
            chunk = os.read(fd, min(READ_CHUNK, limit + 1 - total))
        except OSError as exc:
            raise UploadRejected(local_path, _rule(exc)) from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        step("read")
    return b"".join(chunks)
