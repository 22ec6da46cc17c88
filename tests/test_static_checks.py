"""The package stays clean under ruff and the type checker (STYLE.md's habits)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing_in_the_package_tests_and_benchmarks() -> None:
    result = run("ruff", "check", "jupyter_design_projects", "tests", "bench", "tasks.py", "docs")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing_in_the_package() -> None:
    result = run("mypy", "jupyter_design_projects")
    assert result.returncode == 0, result.stdout + result.stderr
