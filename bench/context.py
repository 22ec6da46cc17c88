"""What every figure is handed: `--quick`, a scratch directory under the run's temp dir,
and the interpreters (the project's venv, and the bench venv for jupysql and profiles)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclasses.dataclass
class Context:
    quick: bool
    temp: Path

    def scratch(self, name: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.temp))

    def n(self, full: int, quick: int) -> int:
        """How many repetitions: `full` normally, `quick` under --quick."""
        return quick if self.quick else full

    @property
    def python(self) -> str:
        return sys.executable


def run_python(code: str, *, env: dict[str, str] | None = None, timeout: float = 600,
               python: str | None = None) -> str:
    """Run `code` in a fresh interpreter (cwd = the project root); its stdout."""
    done = subprocess.run([python or sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"bench worker failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout
