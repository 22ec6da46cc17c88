"""`memory`: what an idle user server costs, as each person of a JupyterHub has one. The
resident memory of `jupyter lab` and every process below it (the reference service the
extension starts, and its Playwright driver and chromium once launched), measured with
this extension on against JupyterLab alone in the same run: with the preview browser
left for the first preview (the default) and with it warm (`JDP_WARM_PREVIEW_BROWSER=1`).

RSS counts a page shared by two processes twice (chromium's processes share much), so
each row names the proportional set size (PSS: a shared page split among its sharers)
beside it: the figure a host's memory really pays. Nothing is used: no kernel, no panel
call, no preview; each server is measured once it is ready and has settled."""

from __future__ import annotations

import json
import os
import secrets
import socket
import statistics
import subprocess
import time
from pathlib import Path

import httpx

from .context import Context
from .report import Row, ratio, say

READY_DEADLINE_S = 120.0
#: after ready: imports finished, the service's first sweep done, the browser launched
SETTLE_S = 8.0
SAMPLES = 5
USERS = 50
#: the extension on or off, and the browser warm or not
SHAPES = {"lab": (False, False), "lazy": (True, False), "warm": (True, True)}


def tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    found, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, its in parents.items() if its == parent]
        found += children
        frontier += children
    return found


def _kib(path: Path, field: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_of(pid: int) -> tuple[int, int, list[str]]:
    """(RSS, PSS) in bytes of `pid`'s tree, and the names of its processes."""
    pids = tree(pid)
    rss = sum(_kib(Path(f"/proc/{p}/status"), "VmRSS") for p in pids) * 1024
    pss = sum(_kib(Path(f"/proc/{p}/smaps_rollup"), "Pss") for p in pids) * 1024
    names = []
    for p in pids:
        try:
            names.append(Path(f"/proc/{p}/comm").read_text().strip())
        except OSError:
            continue
    return rss, pss, names


class IdleLab:
    """`jupyter lab` on a loopback port in fresh Jupyter and data dirs, with this
    package's server extension on or off; nothing is configured, so with it on the
    server starts its reference service as a user server of a hub does."""

    def __init__(self, ctx: Context, extension: bool, warm: bool) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        home = ctx.scratch("memory")
        config = home / "config"
        config.mkdir()
        (config / "jupyter_server_config.json").write_text(json.dumps(
            {"ServerApp": {"jpserver_extensions": {"jupyter_design_projects": extension}}}))
        self.runtime = home / "runtime"
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JDP_", "CLAUDE_"))}
        env.update({"JUPYTER_CONFIG_DIR": str(config), "JUPYTER_RUNTIME_DIR": str(self.runtime),
                    "JDP_DATA_DIR": str(home / "data"),
                    "JDP_WARM_PREVIEW_BROWSER": "1" if warm else "0"})
        self.extension, self.warm = extension, warm
        self.log = home / "lab.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [ctx.python, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
                 "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
                 "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                 f"--ServerApp.root_dir={home}", f"--LabApp.workspaces_dir={home}"],
                env=env, cwd=home, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT)

    def ready(self) -> bool:
        """The server answers; with the extension, its service is ready (and the warm
        browser running)."""
        try:
            answer = httpx.get(f"{self.url}/api/status", timeout=5.0,
                               headers={"Authorization": f"token {self.token}"})
        except httpx.TransportError:
            return False
        if answer.status_code != 200:
            return False
        if not self.extension:
            return True
        files = list(self.runtime.glob("jdp-service-*.json"))
        if not files or json.loads(files[0].read_text() or "{}").get("state") != "ready":
            return False
        names = memory_of(self.process.pid)[2]
        return not self.warm or any("chrom" in name for name in names)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_DEADLINE_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited:\n{self.log.read_text()[-3000:]}")
            try:
                if self.ready():
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"jupyter lab not ready in {READY_DEADLINE_S:g} s:\n"
                           f"{self.log.read_text()[-3000:]}")

    def measure(self) -> tuple[float, float, list[str]]:
        """Median RSS and PSS of the tree over SAMPLES samples a second apart."""
        time.sleep(SETTLE_S)
        samples = []
        for _ in range(SAMPLES):
            samples.append(memory_of(self.process.pid))
            time.sleep(1.0)
        return (statistics.median(s[0] for s in samples),
                statistics.median(s[1] for s in samples), samples[-1][2])

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(20)


def idle(ctx: Context, shape: str) -> tuple[float, float, list[str]]:
    extension, warm = SHAPES[shape]
    lab = IdleLab(ctx, extension, warm)
    try:
        lab.wait_ready()
        return lab.measure()
    finally:
        lab.close()


def _mib(n: float) -> str:
    return f"{n / 2 ** 20:.0f} MiB"


def memory(ctx: Context) -> list[Row]:
    runs = ctx.n(3, 1)
    found: dict[str, list[tuple[float, float, list[str]]]] = {s: [] for s in SHAPES}
    for _ in range(runs):  # interleaved, so load on the box weighs on all alike
        for shape in SHAPES:
            found[shape].append(idle(ctx, shape))
    rss = {s: statistics.median(m[0] for m in found[s]) for s in SHAPES}
    pss = {s: statistics.median(m[1] for m in found[s]) for s in SHAPES}
    for shape in SHAPES:
        say(f"memory {shape}: processes {sorted(set(found[shape][-1][2]))}")
    base = f"JupyterLab alone {_mib(rss['lab'])} (PSS {_mib(pss['lab'])})"
    rows = [Row(f"idle user server: `jupyter lab` and every process below it, RSS (PSS), "
                f"median of {runs}; preview browser on the first preview (the default)",
                f"{_mib(rss['lazy'])} ({_mib(pss['lazy'])})", base,
                f"{ratio(rss['lazy'], rss['lab'])}, +{_mib(rss['lazy'] - rss['lab'])}",
                "–", None, "memory"),
            Row("… with the preview browser warm (`JDP_WARM_PREVIEW_BROWSER=1`)",
                f"{_mib(rss['warm'])} ({_mib(pss['warm'])})", base,
                f"{ratio(rss['warm'], rss['lab'])}, +{_mib(rss['warm'] - rss['lab'])}",
                "–", None, "memory")]
    extra = {s: (pss[s] - pss["lab"]) * USERS / 2 ** 30 for s in ("lazy", "warm")}
    rows.append(Row(f"… what the extension adds for {USERS} idle users (PSS)",
                    f"{extra['lazy']:.1f} GiB", f"warm browser {extra['warm']:.1f} GiB",
                    ratio(extra["lazy"], extra["warm"]), "–", None, "memory"))
    return rows


FIGURES = {"memory": memory}
