"""Kernel stand-ins as real processes (`kernel_worker.py`), read line by line under a
deadline, killed with SIGKILL where a case needs a crash."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("kernel_worker.py")


class Kernel:
    def __init__(self, job: dict[str, Any], workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.stderr_path = workdir / "kernel.stderr"
        with self.stderr_path.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, str(WORKER), json.dumps(job)], cwd=workdir,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self._buffer = b""

    def line(self, deadline_s: float = 60) -> dict[str, Any]:
        """The next JSON line the kernel printed (fails the case past the deadline)."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        end = time.monotonic() + deadline_s
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = end - time.monotonic()
                assert left > 0, f"the kernel said nothing for {deadline_s} s: " + \
                    self.stderr_path.read_text()[-2000:]
                if selector.select(min(left, 0.5)):
                    chunk = os.read(fd, 65536)
                    assert chunk, "the kernel exited: " + self.stderr_path.read_text()[-2000:]
                    self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"go\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def close(self) -> None:
        if self.process.poll() is None:
            self.kill()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def wait_until(condition: Callable[[], Any], deadline_s: float = 30, what: str = "") -> Any:
    """Poll `condition` until it is truthy; fail the case past the deadline (no sleeps:
    each poll is a request or a file read, with a short pause between)."""
    end = time.monotonic() + deadline_s
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)
