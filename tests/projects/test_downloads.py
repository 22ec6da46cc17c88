"""The session's download directory: 0700, 0600 files, safe names, nothing half-written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jupyter_design_projects.errors import DownloadFailed
from jupyter_design_projects.projects.downloads import DownloadDir


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_an_existing_loose_directory_is_tightened(tmp_path: Path) -> None:
    root = tmp_path / "dl"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    DownloadDir(root).ensure()
    assert mode(root) == 0o700


def test_a_planted_symlink_is_not_used_as_the_directory(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "dl").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(DownloadFailed):
        DownloadDir(tmp_path / "dl").save_text("x")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_text_and_bytes_are_saved_owner_only_with_fresh_names(tmp_path: Path) -> None:
    downloads = DownloadDir(tmp_path / "dl")
    first, second = downloads.save_text("é"), downloads.save_text("é")
    raw = downloads.save_bytes("../../x y.png", b"\x00\x01")
    assert first != second and first.read_text() == "é"
    assert first.name.startswith("project-doc-") and first.name.endswith(".txt")
    assert raw.name.startswith("project-file-") and raw.name.endswith("-xy.png")
    assert raw.read_bytes() == b"\x00\x01" and raw.parent == tmp_path / "dl"
    assert {mode(first), mode(second), mode(raw)} == {0o600}


def test_cleanup_removes_the_directory(tmp_path: Path) -> None:
    downloads = DownloadDir(tmp_path / "dl")
    downloads.save_text("x")
    downloads.cleanup()
    assert not (tmp_path / "dl").exists()


@pytest.mark.parametrize(("doc_path", "suffix"), [
    ("data/churn.csv", ".csv"), ("claude/Notes.MD", ".md"), ("README", ".txt"),
    (".bashrc", ".txt"), ("a.tar.gz", ".gz"), ("x.c$v", ".txt"), ("x.é", ".txt"),
    ("x." + "a" * 11, "." + "a" * 11), ("x." + "a" * 12, ".txt"), ("dir.d/file", ".txt"),
])
def test_a_spilled_doc_keeps_its_extension(tmp_path: Path, doc_path: str, suffix: str) -> None:
    saved = DownloadDir(tmp_path / "dl").save_text("a,b\n1,2\n", doc_path)
    assert saved.name.startswith("project-doc-") and saved.name.endswith(suffix)
    assert saved.read_text() == "a,b\n1,2\n" and mode(saved) == 0o600
