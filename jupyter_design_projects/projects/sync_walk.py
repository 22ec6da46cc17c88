"""The folder side of a sync: walk a folder for the text files a Project can hold, each
read through the `--from` guard (`uploads.read_local_text`, with the folder as its root)
and hashed, one file at a time; hidden files, `.gitignore` and `.projectignore` matches
(gitignore syntax, through `pathspec`), binaries, files that break the write rules and
symlinks that leave the folder are listed as skipped, each with why. A pull writes its
files here too (`write_local`: atomic, only over what the plan saw)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.budgets import UPLOAD_MAX_BYTES
from ..core.containment import is_within
from ..core.project_paths import check_writable, normalize
from ..errors import PathRejected, SyncRefused, UploadRejected
from .uploads import read_local_text

IGNORE_FILES = (".gitignore", ".projectignore")
#: a file at least this large is first peeked at for a NUL byte (a binary is skipped
#: without reading all of it)
PEEK_FROM = 64 * 1024
PEEK_BYTES = 8192
#: the digest encodes this many characters at a time (a 25 MiB file is not copied twice)
DIGEST_SLICE = 1 << 20

#: why the `--from` guard refused a file, in a plan's words
GUARD_WORDS = {
    "outside_cwd": "a symlink that leaves the folder",
    "not_utf8": "binary or not UTF-8",
    "too_large": f"larger than {UPLOAD_MAX_BYTES // 2**20} MiB",
    "replaced": "changed while it was read",
    "not_regular": "not a regular file",
    "symlink_loop": "a symlink loop",
    "missing": "gone while it was read",
    "unreadable": "unreadable",
}


@dataclasses.dataclass(frozen=True)
class LocalFile:
    rel: str
    sha256: str
    n_bytes: int


@dataclasses.dataclass(frozen=True)
class Skipped:
    rel: str
    why: str


def check_folder(directory: str | os.PathLike[str]) -> Path:
    """The folder as an absolute path, or SyncRefused (missing, not a folder)."""
    path = Path(os.path.abspath(os.fspath(directory)))
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise SyncRefused(os.fspath(directory), "missing") from None
    except OSError:
        raise SyncRefused(os.fspath(directory), "unreadable") from None
    if not stat.S_ISDIR(mode):
        raise SyncRefused(os.fspath(directory), "not_a_directory")
    return path


def text_digest(text: str) -> tuple[int, str]:
    """(UTF-8 bytes, sha256) of a text, encoded a slice at a time."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data), hashlib.sha256(data).hexdigest()
    digest, size = hashlib.sha256(), 0
    for at in range(0, len(text), DIGEST_SLICE):
        data = text[at:at + DIGEST_SLICE].encode("utf-8")
        digest.update(data)
        size += len(data)
    return size, digest.hexdigest()


def read_text(root: Path, rel: str) -> str:
    """The file `rel` under `root` as strict UTF-8 text through the `--from` guard (its
    rules are UploadRejected's); a NUL byte makes it a binary (`not_utf8`)."""
    text = read_local_text(rel, root).text
    if "\x00" in text:
        raise UploadRejected(rel, "not_utf8")
    return text


def path_problem(target: str) -> str | None:
    """Why the Projects path rules refuse `target`, or None."""
    try:
        check_writable(normalize(target))
    except PathRejected as exc:
        return f"path {exc.rule}"
    return None


class _Ignores:
    """The ignore rules in force in one directory: its own files' and its parents'."""

    def __init__(self, specs: tuple[tuple[str, Any, str], ...] = ()) -> None:
        self.specs = specs  # (the directory's rel path, its spec, the file it came from)

    def within(self, directory: Path, rel_dir: str) -> _Ignores:
        import pathspec

        specs = list(self.specs)
        for name in IGNORE_FILES:
            try:
                with open(directory / name, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read(1 << 20).splitlines()
            except OSError:
                continue
            specs.append((rel_dir, pathspec.GitIgnoreSpec.from_lines(lines), name))
        return _Ignores(tuple(specs))

    def match(self, rel: str, is_dir: bool) -> str | None:
        """The ignore file whose rules match `rel`, or None."""
        for base, spec, name in self.specs:
            inner = rel[len(base) + 1:] if base else rel
            if spec.match_file(inner + "/" if is_dir else inner):
                return name
        return None


def walk(root: Path, prefix: str = "") -> Iterator[LocalFile | Skipped]:
    """Every file under `root` in path order, read and hashed one at a time (a pruned
    directory is one Skipped row, its path ending in `/`)."""
    from ..core.sync_plan import doc_path

    real_root = os.path.realpath(root)
    stack: list[tuple[Path, str, _Ignores]] = [(root, "", _Ignores().within(root, ""))]
    while stack:
        directory, rel_dir, ignores = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            yield Skipped(rel_dir + "/", "unreadable")
            continue
        subdirs = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                yield Skipped(rel, "unreadable")
                continue
            if entry.name.startswith("."):
                if entry.name not in IGNORE_FILES:
                    yield Skipped(rel + "/" if is_dir else rel, "hidden")
                continue
            matched = ignores.match(rel, is_dir)
            if matched:
                yield Skipped(rel + "/" if is_dir else rel, f"ignored by {matched}")
                continue
            if is_link:
                target = os.path.realpath(entry.path)
                if not is_within(real_root, target):
                    yield Skipped(rel, GUARD_WORDS["outside_cwd"])
                    continue
                if os.path.isdir(target):
                    yield Skipped(rel + "/", "a symlinked folder (not followed)")
                    continue
            if is_dir:
                subdirs.append((Path(entry.path), rel))
                continue
            yield _file(root, rel, entry, doc_path(rel, prefix), peek=not is_link)
        for path, rel in reversed(subdirs):
            stack.append((path, rel, ignores.within(path, rel)))


def _file(root: Path, rel: str, entry: os.DirEntry, target: str, *,
          peek: bool) -> LocalFile | Skipped:
    problem = path_problem(target)
    if problem:
        return Skipped(rel, problem)
    try:
        size = entry.stat().st_size
        if peek and PEEK_FROM <= size <= UPLOAD_MAX_BYTES and _has_nul(entry.path):
            return Skipped(rel, GUARD_WORDS["not_utf8"])
        text = read_text(root, rel)
    except UploadRejected as exc:
        return Skipped(rel, GUARD_WORDS.get(exc.rule, exc.rule))
    except OSError:
        return Skipped(rel, "unreadable")
    n_bytes, sha = text_digest(text)
    return LocalFile(rel, sha, n_bytes)


def _has_nul(path: str) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return b"\x00" in os.read(fd, PEEK_BYTES)
    finally:
        os.close(fd)


class Moved(Exception):
    """A path changed between the plan and its write (internal: re-planned, not written)."""


def write_local(root: Path, rel: str, content: str, expect_sha: str | None) -> None:
    """Write `content` to the folder's file `rel`, atomically (a temp file renamed over
    it), only if the file is still what the plan saw (`expect_sha`; None: no file), and
    only through real folders inside `root`."""
    real_root = os.path.realpath(root)
    parent = Path(real_root)
    *dirs, name = rel.split("/")
    for part in dirs:
        parent = parent / part
        try:
            mode = os.lstat(parent).st_mode
        except FileNotFoundError:
            os.mkdir(parent, 0o755)
            continue
        if not stat.S_ISDIR(mode):
            raise Moved(f"{parent.relative_to(real_root)} is not a folder inside the folder")
    if not is_within(real_root, os.path.realpath(parent)):
        raise Moved("its folder leaves the folder")
    target = parent / name
    try:
        current: str | None = text_digest(read_text(Path(real_root), rel))[1]
    except UploadRejected as exc:
        if exc.rule != "missing":
            raise Moved(f"the local file cannot be replaced safely ({exc.rule})") from None
        current = None
    if current != expect_sha:
        raise Moved("changed in the folder since the plan")
    temp = parent / f".{name}.jdp-sync-{secrets.token_hex(4)}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
