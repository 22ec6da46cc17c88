"""What a fresh interpreter imports: run a probe with `python -c` and read the JSON its
last line prints (the load-path tests of `%load_ext`, the first call and the service's
start share it), and pick the modules under some packages."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from typing import Any


def probe_answer(code: str, env: Mapping[str, str]) -> Any:
    """The JSON the probe `code` prints last, run in a fresh interpreter with `env`."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False, env=dict(env))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def among(names: Iterable[str], prefixes: Iterable[str]) -> set[str]:
    """The modules of `names` that are one of `prefixes` or inside one."""
    wanted = tuple(prefixes)
    return {m for m in names if any(m == p or m.startswith(p + ".") for p in wanted)}
