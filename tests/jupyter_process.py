"""A real `jupyter lab` or `jupyter server` on a free loopback port with a random token,
its output in a log file, started and stopped with bounded waits: the one way the browser
tests and the server-extension tests start Jupyter. It runs as `python -m jupyterlab`
(`python -m jupyter_server`), what the `jupyter-lab` command runs, forked from the run's
fork server (tests/zygote.py), which has imported it once.

A test does not wait for its Jupyter to stop: stopping (the server shuts its kernels down,
up to five seconds for a kernel busy on a card) goes on in a thread while the next test
starts, and `wait_for_stops()` (the run's end, tests/conftest.py) waits for them all."""

from __future__ import annotations

import contextlib
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import httpx

from tests.zygote import ZYGOTE

#: the module each app runs as (`jupyter lab` is `jupyter-lab`, which runs this one)
APP_MODULES = {"lab": "jupyterlab", "server": "jupyter_server"}

START_DEADLINE_S = 90.0
STOP_GRACE_S = 10.0

#: the threads stopping a Jupyter whose test has ended
_stopping: list[threading.Thread] = []
_stopping_lock = threading.Lock()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tail(path: Path, chars: int = 4000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else ""


@contextlib.contextmanager
def jupyter_process(app: str, args: Sequence[str], *, env: dict[str, str], root: Path,
                    log_file: Path, ready: Callable[[str, str], bool]) -> Iterator[tuple[str, str]]:
    """Run `jupyter APP` on loopback with `args`; yield (url, token) once `ready(url,
    token)` is true (a transport error counts as not yet), and stop it on exit."""
    port, token = free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", APP_MODULES[app], "--no-browser", "--allow-root",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root}", *args]
    with log_file.open("wb") as log:
        process = ZYGOTE.popen(command, env=env, cwd=root, stdin=subprocess.DEVNULL,
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until(process, lambda: ready(url, token), app, log_file)
        yield url, token
    finally:
        stopper = threading.Thread(target=stop, args=(process,), name=f"stop jupyter {app}")
        stopper.start()
        with _stopping_lock:
            _stopping[:] = [t for t in _stopping if t.is_alive()] + [stopper]


def stop(process: subprocess.Popen, grace_s: float | None = None) -> None:
    """SIGTERM (a Jupyter server or hub then stops its kernels or servers), SIGKILL after
    `grace_s` (STOP_GRACE_S); waited for either way."""
    grace = STOP_GRACE_S if grace_s is None else grace_s
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(grace)


def wait_for_stops() -> int:
    """Wait until every Jupyter started here has stopped; how many stops it waited for."""
    with _stopping_lock:
        pending, _stopping[:] = list(_stopping), []
    for stopper in pending:
        stopper.join()
    return len(pending)


def _wait_until(process: subprocess.Popen, ready: Callable[[], bool], app: str,
                log_file: Path) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"jupyter {app} exited ({process.returncode}):\n"
                                 f"{tail(log_file)}")
        try:
            if ready():
                return
        except (httpx.TransportError, AssertionError):
            pass
        try:
            process.wait(0.2)
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError(f"jupyter {app} was not ready within {START_DEADLINE_S:g} s:\n"
                         f"{tail(log_file)}")
