"""The local_path guard: containment, file kinds, size limit, strict UTF-8, and every
swap point of the check-then-open race made deterministic with the step hook."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import UPLOAD_MAX_BYTES
from jupyter_design_projects.errors import UploadRejected
from jupyter_design_projects.projects.uploads import read_local_text


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("outside secret")
    (work / "notes.md").write_text("# Notes\nhello é\n")
    (work / "other.md").write_text("other file")
    return work


def rejected(local_path: str, cwd: Path, **kwargs) -> str:
    with pytest.raises(UploadRejected) as caught:
        read_local_text(local_path, cwd, **kwargs)
    assert caught.value.local_path == local_path
    return caught.value.rule


def swap_at(step_name: str, action):
    """A hook that runs `action` once, at the named step."""
    done = []

    def hook(step: str) -> None:
        if step == step_name and not done:
            done.append(step)
            action()

    return hook


def test_a_regular_utf8_file_inside_cwd_is_read(cwd: Path) -> None:
    local = read_local_text("notes.md", cwd)
    assert local.text == "# Notes\nhello é\n"
    assert local.n_bytes == len("# Notes\nhello é\n".encode())
    assert local.real_path == os.path.realpath(cwd / "notes.md")


def test_a_symlink_to_a_file_inside_cwd_is_read(cwd: Path) -> None:
    (cwd / "link.md").symlink_to(cwd / "notes.md")
    assert read_local_text("link.md", cwd).real_path == os.path.realpath(cwd / "notes.md")


@pytest.mark.parametrize(
    ("local_path", "rule"),
    [
        ("missing.md", "missing"),
        ("sub/missing.md", "missing"),
        ("notes.md/x", "missing"),
        ("", "missing"),
        ("no\x00te.md", "missing"),
        ("../outside/secret.txt", "outside_cwd"),
        ("./../outside/secret.txt", "outside_cwd"),
        ("sub/../../outside/secret.txt", "outside_cwd"),
        ("/etc/hostname", "outside_cwd"),
        (".", "not_regular"),
    ],
)
def test_paths_that_are_refused(cwd: Path, local_path: str, rule: str) -> None:
    assert rejected(local_path, cwd) == rule


def test_cwd_named_with_a_common_prefix_is_not_inside(tmp_path: Path, cwd: Path) -> None:
    sibling = tmp_path / "work-evil"
    sibling.mkdir()
    (sibling / "x.md").write_text("x")
    assert rejected("../work-evil/x.md", cwd) == "outside_cwd"


def test_a_symlink_pointing_outside_is_refused(cwd: Path, tmp_path: Path) -> None:
    (cwd / "escape.md").symlink_to(tmp_path / "outside" / "secret.txt")
    assert rejected("escape.md", cwd) == "outside_cwd"


def test_a_symlinked_parent_pointing_outside_is_refused(cwd: Path, tmp_path: Path) -> None:
    (cwd / "docs").symlink_to(tmp_path / "outside")
    assert rejected("docs/secret.txt", cwd) == "outside_cwd"


def test_a_symlink_loop_is_refused(cwd: Path) -> None:
    (cwd / "a").symlink_to(cwd / "b")
    (cwd / "b").symlink_to(cwd / "a")
    assert rejected("a", cwd) == "symlink_loop"


def test_a_directory_is_refused(cwd: Path) -> None:
    (cwd / "folder").mkdir()
    assert rejected("folder", cwd) == "not_regular"


@pytest.mark.timeout(20)
def test_a_fifo_is_refused_without_blocking(cwd: Path) -> None:
    os.mkfifo(cwd / "pipe")
    assert rejected("pipe", cwd) == "not_regular"


def test_an_unreadable_file_is_reported_as_unreadable(cwd: Path) -> None:
    # CI runs as root, so chmod 000 would not stop the read: inject the error instead
    def opener(path: str, flags: int) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    assert rejected("notes.md", cwd, opener=opener) == "unreadable"


def test_bytes_that_are_not_utf8_are_refused(cwd: Path) -> None:
    (cwd / "binary.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert rejected("binary.bin", cwd) == "not_utf8"


def test_exactly_25_mib_is_read(cwd: Path) -> None:
    with open(cwd / "big.txt", "wb") as f:
        f.truncate(UPLOAD_MAX_BYTES)
    assert read_local_text("big.txt", cwd).n_bytes == UPLOAD_MAX_BYTES


def test_one_byte_more_than_25_mib_is_too_large(cwd: Path) -> None:
    with open(cwd / "big.txt", "wb") as f:
        f.truncate(UPLOAD_MAX_BYTES + 1)
    assert rejected("big.txt", cwd) == "too_large"


@pytest.mark.parametrize("step", ["verified", "read"])
def test_a_file_growing_past_the_limit_while_read_is_too_large(cwd: Path, step: str) -> None:
    path = cwd / "growing.txt"
    with open(path, "wb") as f:
        f.truncate(UPLOAD_MAX_BYTES)

    def grow() -> None:
        with open(path, "ab") as f:
            f.write(b"more")

    assert rejected("growing.txt", cwd, hook=swap_at(step, grow)) == "too_large"


def test_a_file_swapped_between_check_and_open_is_refused(cwd: Path) -> None:
    swap = swap_at("checked", lambda: os.replace(cwd / "other.md", cwd / "notes.md"))
    assert rejected("notes.md", cwd, hook=swap) == "replaced"


def test_a_file_swapped_after_open_is_refused(cwd: Path) -> None:
    swap = swap_at("opened", lambda: os.replace(cwd / "other.md", cwd / "notes.md"))
    assert rejected("notes.md", cwd, hook=swap) == "replaced"


def test_a_file_deleted_after_open_is_refused(cwd: Path) -> None:
    swap = swap_at("opened", lambda: os.unlink(cwd / "notes.md"))
    assert rejected("notes.md", cwd, hook=swap) == "replaced"


def test_a_symlink_swapped_in_before_open_is_refused(cwd: Path, tmp_path: Path) -> None:
    def to_symlink() -> None:
        os.unlink(cwd / "notes.md")
        (cwd / "notes.md").symlink_to(tmp_path / "outside" / "secret.txt")

    assert rejected("notes.md", cwd, hook=swap_at("checked", to_symlink)) == "replaced"


def test_a_symlink_swapped_in_before_open_is_never_opened(cwd: Path, tmp_path: Path) -> None:
    # O_NOFOLLOW: the open itself fails, so the link's target is not even opened
    opened: list[str] = []

    def spy(path: str, flags: int) -> int:
        fd = os.open(path, flags)
        opened.append(path)
        return fd

    def to_symlink() -> None:
        os.unlink(cwd / "notes.md")
        (cwd / "notes.md").symlink_to(tmp_path / "outside" / "secret.txt")

    hook = swap_at("checked", to_symlink)
    assert rejected("notes.md", cwd, hook=hook, opener=spy) == "replaced"
    assert opened == []


def test_the_file_is_opened_read_only_without_following_links_or_blocking(cwd: Path) -> None:
    seen: list[int] = []

    def spy(path: str, flags: int) -> int:
        seen.append(flags)
        return os.open(path, flags)

    read_local_text("notes.md", cwd, opener=spy)
    (flags,) = seen
    assert flags & os.O_ACCMODE == os.O_RDONLY
    assert flags & os.O_NOFOLLOW and flags & os.O_NONBLOCK


@pytest.mark.timeout(20)
def test_a_fifo_swapped_in_before_open_is_refused_without_blocking(cwd: Path) -> None:
    def to_fifo() -> None:
        os.unlink(cwd / "notes.md")
        os.mkfifo(cwd / "notes.md")

    assert rejected("notes.md", cwd, hook=swap_at("checked", to_fifo)) == "replaced"


@pytest.mark.parametrize("step", ["checked", "opened"])
def test_a_parent_swapped_for_a_symlink_is_refused(cwd: Path, tmp_path: Path, step: str) -> None:
    (cwd / "sub").mkdir()
    (cwd / "sub" / "secret.txt").write_text("inside")

    def to_symlink() -> None:
        os.rename(cwd / "sub", cwd / "sub-old")
        (cwd / "sub").symlink_to(tmp_path / "outside")

    assert rejected("sub/secret.txt", cwd, hook=swap_at(step, to_symlink)) == "replaced"


def test_no_descriptor_is_leaked_on_refusal(cwd: Path) -> None:
    (cwd / "bad.bin").write_bytes(b"\xff")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        assert rejected("bad.bin", cwd) == "not_utf8"
        swap = swap_at("opened", lambda: os.replace(cwd / "other.md", cwd / "notes.md"))
        assert rejected("notes.md", cwd, hook=swap) == "replaced"
        (cwd / "other.md").write_text("other file")
    assert len(os.listdir("/proc/self/fd")) == before
