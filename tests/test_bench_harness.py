"""The benchmark harness runs end to end on the real reference service (--quick, two
figures), prints its one table, writes the README it was pointed at, and leaves nothing
behind anywhere else. No timing is asserted: timings live in bench/README.md."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git_status() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--ignored"],
                          capture_output=True, text=True, check=True).stdout


def test_quick_run_prints_the_table_and_writes_only_the_readme_it_was_given(tmp_path):
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\nProse kept as it is.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JDP_", "CLAUDE_"))}
    # no bytecode caches either, so a fresh clone sees its tree unchanged too
    env.update(HOME=str(home), TMPDIR=str(temp), PYTHONDONTWRITEBYTECODE="1")
    before = _git_status()
    done = subprocess.run(
        [sys.executable, "-m", "bench", "handshake", "list", "--quick", "--readme", str(readme)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0].startswith("| figure | value | baseline")
    assert any("python3 tasks.py bench handshake" in line for line in table)
    assert any("python3 tasks.py bench list" in line for line in table)
    written = readme.read_text()
    assert written.startswith("# Benchmarks\n\nProse kept as it is.\n")
    assert "<!-- bench:table:begin -->" in written and table[0] in written
    assert _git_status() == before
    assert list(home.iterdir()) == [] and list(temp.iterdir()) == []


def test_an_unknown_figure_is_refused_with_the_known_ones(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bench", "nope", "--no-readme"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "unknown figure nope" in done.stderr and "session" in done.stderr
