"""Start-up as a person meets it, each in fresh processes: `load-ext` (`%load_ext
jupyter_design_projects` against `%load_ext sql` and a bare IPython) and `first-call` (the
first `%project search` in a fresh IPython 3 s after `%load_ext`, and in a fresh ipykernel
as JupyterLab starts it, against a later call). Both use the embedded default: nothing is
configured, so the first call starts the reference service as a new user's does."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

from . import venv
from .context import ROOT, Context, run_python
from .report import Row, ms, say

QUERY = "%project search retention -n 5"
TARGET_MS = 300.0


#: a fresh interpreter: the bare shell's start-up, then one `%load_ext` (ms, as JSON)
LOAD_EXT = """
import time
start = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
bare = time.perf_counter()
{cell}
done = time.perf_counter()
print(json.dumps([(bare - start) * 1000, (done - bare) * 1000]))
"""


def _load_ms(python: Path, cell: str) -> tuple[float, float]:
    """(bare shell start-up, the cell) in ms, in a fresh interpreter."""
    code = "import json\n" + LOAD_EXT.format(cell=cell)
    bare, took = json.loads(run_python(code, python=str(python)).splitlines()[-1])
    return bare, took


def load_ext(ctx: Context) -> list[Row]:
    runs = ctx.n(9, 2)
    python = venv.ensure()
    contenders = {"ours": 'shell.run_line_magic("load_ext", "jupyter_design_projects")'}
    if python is not None:
        contenders["sql"] = 'shell.run_line_magic("load_ext", "sql")'
    else:
        python = Path(ctx.python)
        say("jupysql is not available: only the bare shell is measured")
    samples: dict[str, list[float]] = {name: [] for name in ("bare", *contenders)}
    for _ in range(runs):  # interleaved, so load on the box weighs on all alike
        for name, cell in contenders.items():
            bare, took = _load_ms(python, cell)
            samples["bare"].append(bare)
            samples[name].append(took)
    med = {name: statistics.median(values) for name, values in samples.items()}
    over = med["ours"]
    rows = [Row(f"`%load_ext jupyter_design_projects`, fresh IPython, median of {runs}",
                f"{over:+.0f} ms over bare", f"bare IPython start-up {med['bare']:.0f} ms", "–",
                "≤ 60 ms over the bare shell", over <= 60, "load-ext")]
    if "sql" in med:
        rows.append(Row("… against `%load_ext sql` (jupysql, bench venv)",
                        f"{over:+.0f} ms over bare",
                        f"jupysql {med['sql']:+.0f} ms over bare", "–",
                        "–", None, "load-ext"))
    return rows


#: run in a fresh IPython: load, wait 3 s as a person reading the notebook does, first
#: call, then later calls; prints the times in ms as JSON
IPYTHON_FIRST_CALL = """
import json, time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "jupyter_design_projects")
time.sleep(3.0)
def once():
    t = time.perf_counter()
    shell.run_cell({query!r}, silent=True).raise_error()
    return (time.perf_counter() - t) * 1000
first = once()
later = sorted(once() for _ in range({later}))
shell.run_line_magic("unload_ext", "jupyter_design_projects")
print(json.dumps({{"first": first, "later": later[len(later) // 2]}}))
"""

KERNEL_CELL = """
import time as _t, json as _j
_s = _t.perf_counter()
get_ipython().run_cell({query!r}, silent=True).raise_error()
print("BENCH" + _j.dumps((_t.perf_counter() - _s) * 1000))
"""


def _kernel_first_call(later: int) -> dict[str, float]:
    """A fresh ipykernel started by jupyter_client, as JupyterLab's server starts one:
    `%load_ext` in one cell, the timed call in the next, then later calls."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        def execute(code: str) -> float | None:
            found: list[float] = []

            def output(msg: dict) -> None:
                text = msg.get("content", {}).get("text", "")
                found.extend(float(line[5:]) for line in text.splitlines()
                             if line.startswith("BENCH"))
            reply = client.execute_interactive(code, timeout=300, output_hook=output)
            if reply["content"]["status"] != "ok":
                raise RuntimeError(f"kernel cell failed: {reply['content'].get('ename')}")
            return found[0] if found else None

        execute("%load_ext jupyter_design_projects")
        first = execute(KERNEL_CELL.format(query=QUERY))
        times = sorted(t for t in (execute(KERNEL_CELL.format(query=QUERY))
                                   for _ in range(later)) if t is not None)
        execute("%unload_ext jupyter_design_projects")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    assert first is not None
    return {"first": first, "later": times[len(times) // 2]}


def first_call(ctx: Context) -> list[Row]:
    later = ctx.n(20, 3)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JDP_", "CLAUDE_"))}  # nothing configured: embedded
    out = run_python(IPYTHON_FIRST_CALL.format(query=QUERY, later=later), env=env)
    ipython = json.loads(out.splitlines()[-1])
    # under JupyterLab the server extension has started the server's one service and
    # named its runtime file in the kernel's environment before the kernel starts: the
    # same here (service_file is what the extension writes)
    from jupyter_design_projects import service_file
    from jupyter_design_projects.embedded import start_embedded

    service = start_embedded(ctx.temp / "lab-service")
    runtime = ctx.temp / "runtime" / service_file.file_name(os.getpid())
    runtime.parent.mkdir(parents=True, exist_ok=True)
    service_file.write_ready(runtime, service)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env, **{service_file.ENV: str(runtime)})
    try:
        kernel = _kernel_first_call(later)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        service.stop()
    rows = []
    for label, got in (("fresh ipykernel as under JupyterLab", kernel),
                       ("fresh IPython, 3 s after `%load_ext`", ipython)):
        rows.append(Row(f"first `{QUERY}` in a {label}", ms(got["first"]),
                        f"a later call {ms(got['later'])}", "–", f"≤ {TARGET_MS:.0f} ms",
                        got["first"] <= TARGET_MS, "first-call"))
    return rows


FIGURES = {"load-ext": load_ext, "first-call": first_call}
