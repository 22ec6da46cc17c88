"""Timing and memory arithmetic for the figures: medians and percentiles of repeated
calls, and a process's resident-set growth (read from /proc, Linux)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

WARMUP = 20


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank, of an unsorted list."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def timed(call: Callable[[], object], calls: int, warmup: int = WARMUP,
          clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Seconds per call of `calls` calls, after `warmup` untimed ones (`clock`:
    `time.thread_time` counts only this thread's CPU, which other processes barely move)."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(calls):
        start = clock()
        call()
        samples.append(clock() - start)
    return samples


async def atimed(call: Callable[[], Awaitable[object]], calls: int,
                 warmup: int = WARMUP) -> list[float]:
    for _ in range(warmup):
        await call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def interleaved_medians(calls: dict[str, Callable[[], object]], n: int,
                        rounds: int = 5,
                        clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median ms of each call, timed in `rounds` alternating blocks so a noisy neighbour
    (two shared cores) weighs on every contender alike."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    per_round = max(1, n // rounds)
    for call in calls.values():  # every contender warms up before the first block
        timed(call, 0)
    for _ in range(rounds):
        for name, call in calls.items():
            samples[name] += timed(call, per_round, warmup=0, clock=clock)
    return {name: median_ms(values) for name, values in samples.items()}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process so far (/proc/PID/stat, Linux): what a
    block cost a service, with the waits for a core on a shared box left out."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- memory


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


class PeakGrowth:
    """Peak RSS growth over a block: the high-water mark is reset at entry (clear_refs 5),
    so `bytes` is the block's peak resident set minus the resident set at entry."""

    def __enter__(self) -> PeakGrowth:
        self.start_kib = _status_kib("VmRSS")
        Path("/proc/self/clear_refs").write_text("5")
        self.bytes = 0
        return self

    def __exit__(self, *exc: object) -> None:
        self.bytes = (_status_kib("VmHWM") - self.start_kib) * 1024
