"""What tasks.py decides about the machine and the extension build (stdlib only): which
Node.js the builder accepts, and whether the build output is older than its sources."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: what @rspack/core (the extension builder) accepts: ^20.19.0 || >=22.12.0
NODE_OK = ((20, 19), (22, 12))


def node_version(node: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
        major, minor = out.stdout.strip().lstrip("v").split(".")[:2]
        return int(major), int(minor)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def node_usable(version: tuple[int, int] | None) -> bool:
    if version is None:
        return False
    (low_major, low_minor), (high_major, high_minor) = NODE_OK
    if version[0] == low_major:
        return version[1] >= low_minor
    if version[0] == high_major:
        return version[1] >= high_minor
    return version[0] > high_major


def newest_mtime(paths: list[Path]) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def build_needed(sources: list[Path], output: Path) -> bool:
    """The build output is missing or older than one of its sources."""
    return not output.is_file() or output.stat().st_mtime < newest_mtime(sources)
