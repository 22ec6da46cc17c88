"""`python3 tasks.py lab`'s decisions (stdlib only): the demo's data directory and the
arguments `jupyter lab` gets."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def lab_data_dir(args: list[str]) -> tuple[Path, list[str]]:
    """The demo's data directory and the rest of the arguments: `--data-dir DIR` keeps one
    across runs; without it each run starts on a fresh one, so a demo never shows another
    run's writes, consent or grants."""
    rest, named = list(args), None
    if "--data-dir" in rest:
        at = rest.index("--data-dir")
        if at + 1 >= len(rest):
            sys.exit("[tasks] --data-dir needs a directory")
        named = rest[at + 1]
        del rest[at:at + 2]
    if named is not None:
        folder = Path(named).expanduser().resolve()
        if folder.exists() and (not folder.is_dir() or folder.stat().st_uid != os.geteuid()):
            # private data (credentials, every Project) is kept only in a directory of yours
            sys.exit(f"[tasks] --data-dir {folder} is not a directory you own: give one of "
                     "yours (or a new path)")
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.chmod(0o700)  # private data: a loose existing directory is tightened
        return folder, rest
    return Path(tempfile.mkdtemp(prefix="jdp-demo-")), rest


QUICKSTART = "notebooks/quickstart.ipynb"


def lab_arguments(args: list[str], *, root: bool, display: bool) -> list[str]:
    """`jupyter lab` opening the quickstart notebook (also the URL it prints, for a browser
    opened by hand); --allow-root as root, --no-browser headless."""
    out = [f"--LabApp.default_url=/lab/tree/{QUICKSTART}", *args]
    if root and "--allow-root" not in args:
        out.append("--allow-root")
    if not display and "--no-browser" not in args:
        out.append("--no-browser")
    return out
