"""A run leaves the checkout as it found it: `git status` before and after the session, on
the controller (not on xdist's workers), and what changed in between counted on pytest's
summary line (`N changed in the checkout`) and listed, with a failing exit code.
Outside a git checkout, or without git, nothing is checked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: the summary line's word for a path the run changed
STAT = "changed in the checkout"
_KEY = pytest.StashKey[set[str]]()


class Changed:
    """One path the run changed, as an entry of pytest's stats (plugins that read every
    entry, hypothesis's among them, expect objects)."""

    count_towards_summary = True

    def __init__(self, line: str) -> None:
        self.line = line


def status(root: Path) -> set[str] | None:
    """`git status --porcelain` lines of the checkout at `root` (untracked files
    included), or None where there is no checkout or no git."""
    git = shutil.which("git")
    if git is None:
        return None
    done = subprocess.run([git, "status", "--porcelain", "--untracked-files=all"], cwd=root,
                          capture_output=True, text=True, timeout=60, check=False)
    return set(done.stdout.splitlines()) if done.returncode == 0 else None


def on_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")


def session_start(session: pytest.Session) -> None:
    if on_controller(session.config):
        before = status(session.config.rootpath)
        if before is not None:
            session.config.stash[_KEY] = before


def session_finish(session: pytest.Session, allowed: tuple[str, ...] = ()) -> None:
    """Fail a run that changed the checkout, but for paths under `allowed` (a run asked to
    write there: `--retake-screenshots`)."""
    before = session.config.stash.get(_KEY, None)
    if before is None:
        return
    changed = sorted(line for line in (status(session.config.rootpath) or set()) - before
                     if not line[3:].startswith(allowed))
    if not changed:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", f"the run changed the checkout ({len(changed)})", red=True)
        for line in changed:
            reporter.write_line(line)
        reporter.stats.setdefault(STAT, []).extend(Changed(line) for line in changed)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
