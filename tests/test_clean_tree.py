"""A run that changes the checkout fails and says what it changed (tests/clean_tree.py);
a run that changes nothing, or runs outside a checkout, passes as before."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS.parent)!r})
from tests import clean_tree

def pytest_sessionstart(session):
    clean_tree.session_start(session)

def pytest_sessionfinish(session):
    clean_tree.session_finish(session, ("pictures/",))
"""

WRITES = """
from pathlib import Path

def test_writes_a_tracked_file():
    Path(__file__).with_name("picture.png").write_text("retaken")

def test_leaves_a_file_behind():
    Path(__file__).with_name("left.txt").write_text("x")
"""

READS = """
from pathlib import Path

def test_reads_only():
    assert Path(__file__).with_name("picture.png").read_text() == "tracked"
"""


def checkout(tmp_path: Path, test: str, tracked: str = "picture.png") -> Path:
    if shutil.which("git") is None:
        pytest.fail("git is needed for this test (tasks.py's CI has it)")
    root = tmp_path / "clone"
    root.mkdir()
    (root / "conftest.py").write_text(CONFTEST)
    # as every checkout ignores them: bytecode caches are written where a run allows them
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / tracked).parent.mkdir(parents=True, exist_ok=True)
    (root / tracked).write_text("tracked")
    (root / "test_it.py").write_text(test)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "tracked"]):
        subprocess.run([*git, *command], cwd=root, check=True, capture_output=True)
    return root


def pytest_in(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra],
                          cwd=root, capture_output=True, text=True, timeout=120)


def test_a_run_that_rewrites_a_tracked_file_or_leaves_one_fails_naming_them(tmp_path):
    done = pytest_in(checkout(tmp_path, WRITES))
    assert done.returncode == 1, done.stdout
    last = done.stdout.strip().splitlines()[-1]
    assert "2 passed" in last and "2 changed in the checkout" in last
    assert " M picture.png" in done.stdout and "?? left.txt" in done.stdout


def test_a_run_that_changes_nothing_passes(tmp_path):
    done = pytest_in(checkout(tmp_path, READS))
    assert done.returncode == 0, done.stdout
    assert "changed in the checkout" not in done.stdout


def test_what_was_already_changed_before_the_run_is_not_the_runs(tmp_path):
    root = checkout(tmp_path, READS.replace('"tracked"', '"edited"'))
    (root / "picture.png").write_text("edited")
    assert pytest_in(root).returncode == 0


def test_on_two_workers_the_controller_checks_once(tmp_path):
    done = pytest_in(checkout(tmp_path, WRITES), "-n", "2")
    assert done.returncode == 1, done.stdout
    assert done.stdout.count("the run changed the checkout (2)") == 1


def test_what_the_run_was_asked_to_write_is_allowed_and_nothing_else(tmp_path):
    root = checkout(tmp_path, WRITES.replace('with_name("picture.png")',
                                             'parent / "pictures" / "shot.png"'),
                    tracked="pictures/shot.png")
    done = pytest_in(root)
    assert done.returncode == 1, done.stdout  # left.txt, outside pictures/
    assert "1 changed in the checkout" in done.stdout.strip().splitlines()[-1]
    assert "pictures/shot.png" not in done.stdout and "?? left.txt" in done.stdout
