"""The one writer of files made for a person, and each writer that uses it (the HAR, a deck
export, a spilled result, a download): 0600 whatever the umask, never through a symlink,
an existing file replaced atomically (its old inode never written), a taken temporary
name skipped."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jupyter_design_projects import private_files
from jupyter_design_projects.design.deck.export import write_export
from jupyter_design_projects.notebook.views.trace import write_har
from jupyter_design_projects.private_files import (
    create_private,
    new_private,
    replace_private,
    replacing,
)
from jupyter_design_projects.projects.downloads import DownloadDir

#: permissive (everything the call asks for) and tight (the owner's own bits taken away)
UMASKS = [0o000, 0o277]


@pytest.fixture(params=UMASKS, ids=["umask-000", "umask-277"])
def umask(request):
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


class OneRecordTrace:
    """What `write_har` reads of the session's trace."""

    enabled, dropped = True, 0

    def records(self):
        return [{"n": 1, "action": "a", "method": "GET", "url": "http://127.0.0.1/x",
                 "status": 200, "request_headers": {}, "response_headers": {}}]


def via_replace(path: Path) -> None:
    replace_private(path, b"new content")


def via_har(path: Path) -> None:
    write_har(OneRecordTrace(), str(path))


def via_export(path: Path) -> None:
    write_export(path, b"%PDF-1.7 new")


#: every writer of a file at a name the person chose
WRITERS = {"replace_private": via_replace, "HAR": via_har, "deck export": via_export}


# ---------------------------------------------------------------- the mode


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
def test_a_new_file_is_0600_whatever_the_umask(writer, umask, tmp_path):
    target = tmp_path / "out.file"
    writer(target)
    assert mode(target) == 0o600
    assert os.listdir(tmp_path) == ["out.file"]  # no temporary file left behind


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
def test_a_loose_existing_file_is_replaced_by_a_0600_one(writer, umask, tmp_path):
    target = tmp_path / "out.file"
    target.write_bytes(b"old")
    os.chmod(target, 0o644)
    writer(target)
    assert mode(target) == 0o600 and target.read_bytes() != b"old"


def test_new_private_and_create_private_make_0600_files(umask, tmp_path):
    fd, path = new_private(tmp_path, "project-doc-", ".txt")
    os.close(fd)
    assert path.parent == tmp_path and path.name.startswith("project-doc-")
    assert path.name.endswith(".txt") and mode(path) == 0o600
    os.close(create_private(tmp_path / "named"))
    assert mode(tmp_path / "named") == 0o600


@pytest.mark.parametrize("save", [lambda d: d.save_text("x" * 10, "doc.md"),
                                  lambda d: d.save_bytes("a.bin", b"\x00\x01")],
                         ids=["spilled result", "download"])
def test_spilled_results_and_downloads_are_0600(save, umask, tmp_path):
    saved = save(DownloadDir(tmp_path / "downloads"))
    assert mode(saved) == 0o600


def test_a_download_received_as_it_arrives_is_0600(umask, tmp_path):
    with DownloadDir(tmp_path / "downloads").receiving("big.bin") as incoming:
        incoming.write(b"chunk")
        kept = incoming.keep()
    assert mode(kept) == 0o600 and kept.read_bytes() == b"chunk"


# ---------------------------------------------------------------- symlinks


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
def test_a_symlink_at_the_target_is_replaced_and_what_it_points_at_is_untouched(
        writer, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"someone else's")
    os.chmod(victim, 0o644)
    target = tmp_path / "out.file"
    target.symlink_to(victim)
    writer(target)
    assert not target.is_symlink() and mode(target) == 0o600
    assert victim.read_bytes() == b"someone else's" and mode(victim) == 0o644


def test_a_dangling_symlink_at_the_target_creates_nothing_where_it_points(tmp_path):
    target = tmp_path / "out.file"
    target.symlink_to(tmp_path / "would-be-created")
    replace_private(target, b"new")
    assert not (tmp_path / "would-be-created").exists()
    assert target.read_bytes() == b"new" and not target.is_symlink()


def test_create_private_never_opens_what_is_there(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"kept")
    (tmp_path / "link").symlink_to(victim)
    for taken in (tmp_path / "link", victim):
        with pytest.raises(FileExistsError):
            create_private(taken)
    assert victim.read_bytes() == b"kept"


# ---------------------------------------------------------------- atomic replace


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
def test_an_existing_file_is_replaced_never_written_in_place(writer, tmp_path):
    target = tmp_path / "out.file"
    target.write_bytes(b"the old content")
    hard_link = tmp_path / "hard-link"
    os.link(target, hard_link)
    old_inode = os.stat(target).st_ino
    writer(target)
    assert os.stat(target).st_ino != old_inode
    assert hard_link.read_bytes() == b"the old content"  # the old inode was not written


def test_a_failure_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.file"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(target) as file:
        file.write(b"half of the new")
        raise RuntimeError("disk gone")
    assert target.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["out.file"]


def test_a_folder_at_the_target_is_an_error_and_leaves_no_temporary(tmp_path):
    (tmp_path / "out.file").mkdir()
    with pytest.raises(OSError):
        replace_private(tmp_path / "out.file", b"x")
    assert sorted(os.listdir(tmp_path)) == ["out.file"]


# ---------------------------------------------------------------- taken temporary names


@pytest.fixture
def names(monkeypatch):
    """The writer's fresh names, chosen by the test: "taken" first, then "free"."""
    given = iter(["taken", "free"])
    monkeypatch.setattr(private_files, "_fresh_name", lambda: next(given))


@pytest.mark.parametrize("planted", ["file", "symlink"])
def test_a_temporary_name_already_taken_is_skipped(names, planted, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"untouched")
    taken = tmp_path / ".out.file.taken.part"
    if planted == "file":
        taken.write_bytes(b"a leftover")
    else:
        taken.symlink_to(victim)
    replace_private(tmp_path / "out.file", b"new")
    assert (tmp_path / "out.file").read_bytes() == b"new"
    assert victim.read_bytes() == b"untouched"
    assert taken.is_symlink() if planted == "symlink" else taken.read_bytes() == b"a leftover"
    assert not (tmp_path / ".out.file.free.part").exists()


def test_when_every_fresh_name_is_taken_nothing_is_written(monkeypatch, tmp_path):
    monkeypatch.setattr(private_files, "_fresh_name", lambda: "same")
    (tmp_path / ".out.file.same.part").write_bytes(b"planted")
    with pytest.raises(FileExistsError):
        replace_private(tmp_path / "out.file", b"new")
    assert not (tmp_path / "out.file").exists()
