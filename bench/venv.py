"""The bench venv (`.venv/bench`): the project's venv seen through a .pth file, plus the
comparison and profiling tools the project does not depend on (jupysql, pyinstrument),
installed from PyPI into it alone so the project's own venv stays as pyproject says."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

from .context import ROOT
from .report import say

BENCH_VENV = ROOT / ".venv" / "bench"
EXTRAS = ("jupysql", "pyinstrument")


def python() -> Path:
    return BENCH_VENV / "bin" / "python"


def ensure() -> Path | None:
    """The bench venv's python with EXTRAS installed, or None if they cannot be had."""
    stamp = BENCH_VENV / ".jdp-bench-extras"
    if stamp.exists() and stamp.read_text() == " ".join(EXTRAS):
        return python()
    say(f"creating {BENCH_VENV} (the project's venv + {', '.join(EXTRAS)} from PyPI)")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--clear", str(BENCH_VENV)],
                   check=True)
    purelib = subprocess.run(
        [str(python()), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "jdp-project-venv.pth").write_text(
        "\n".join([*site.getsitepackages(), str(ROOT)]) + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python()), "install",
                           "--quiet", "--disable-pip-version-check", *EXTRAS],
                          capture_output=True, text=True)
    if done.returncode != 0:
        say(f"could not install {', '.join(EXTRAS)}: {done.stderr.strip()[-400:]}")
        return None
    stamp.write_text(" ".join(EXTRAS))
    return python()
