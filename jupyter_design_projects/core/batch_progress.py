"""How far a batch of writes has got, as it tells a person: items and bytes done of those
still to send, the rate since the batch began, and the time left at that rate — counted
when a write is done (its answer came back), never when it is only queued."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

MIB = 1_048_576
#: the units a byte count is shown in, smallest first: a count is shown in the largest
#: unit it reaches (below 1 KiB: bytes)
UNITS = (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30))


def _unit(n_bytes: int) -> tuple[str, int]:
    """The unit `n_bytes` is shown in, and its size in bytes."""
    chosen = ("bytes", 1)
    for unit in UNITS:
        if n_bytes >= unit[1]:
            chosen = unit
    return chosen


def _number(n_bytes: int, scale: int) -> str:
    """`n_bytes` in a unit of `scale` bytes: whole bytes, else one decimal below 10 and
    whole numbers from 10 (4.2 KiB, 42 KiB, 1,023 KiB)."""
    if scale == 1:
        return f"{n_bytes:,}"
    value = n_bytes / scale
    return f"{value:.1f}" if value < 9.95 else f"{value:,.0f}"


def human_bytes(n_bytes: int) -> str:
    """A byte count as a person reads it: `1 byte`, `512 bytes`, `4.2 KiB`, `3.0 MiB`."""
    unit, scale = _unit(n_bytes)
    if scale == 1:
        return f"{n_bytes:,} byte{'s' * (n_bytes != 1)}"
    return f"{_number(n_bytes, scale)} {unit}"


def bytes_of(done: int, total: int) -> str:
    """How many bytes of how many, both in the total's unit: `300 of 600 bytes`,
    `0.8 of 2.0 MiB` (never `0.0 of 0.0 MiB` for a small file)."""
    unit, scale = _unit(max(done, total))
    if scale == 1:
        return f"{done:,} of {total:,} byte{'s' * (total != 1)}"
    return f"{_number(done, scale)} of {_number(total, scale)} {unit}"


@dataclasses.dataclass(frozen=True)
class BatchProgress:
    """One moment of a batch. `items_total`/`bytes_total` are what the batch set out to
    send; `items_skipped`/`bytes_skipped` were dropped from it on the way (a path
    changed since the plan: re-planned, not sent); `current` is the last item done."""

    items_done: int
    items_total: int
    bytes_done: int
    bytes_total: int
    elapsed_s: float
    items_skipped: int = 0
    bytes_skipped: int = 0
    current: str = ""

    @property
    def items_left(self) -> int:
        return max(0, self.items_total - self.items_done - self.items_skipped)

    @property
    def bytes_left(self) -> int:
        return max(0, self.bytes_total - self.bytes_done - self.bytes_skipped)

    @property
    def fraction(self) -> float:
        """Done of what is still to be done plus what is done (skipped items drop out)."""
        todo = self.items_done + self.items_left
        return 1.0 if todo == 0 else self.items_done / todo

    @property
    def items_per_s(self) -> float | None:
        return self.items_done / self.elapsed_s if self.items_done and self.elapsed_s > 0 \
            else None

    @property
    def bytes_per_s(self) -> float | None:
        return self.bytes_done / self.elapsed_s if self.bytes_done and self.elapsed_s > 0 \
            else None

    @property
    def seconds_left(self) -> float | None:
        """At the rate so far, the longer of two readings: by items left (each write's
        fixed cost) and by bytes left (a big doc's); None before the first item is done."""
        if self.items_left == 0:
            return 0.0
        if self.items_per_s is None:
            return None
        by_items = self.items_left / self.items_per_s
        if self.bytes_per_s:
            return max(by_items, self.bytes_left / self.bytes_per_s)
        return by_items

    def text(self) -> str:
        """`412 of 1,000 writes · 0.8 of 2.0 MiB · 96 writes/s · about 6 s left`."""
        todo = self.items_done + self.items_left
        parts = [f"{self.items_done:,} of {todo:,} writes"]
        if self.bytes_total:
            parts.append(bytes_of(self.bytes_done, self.bytes_done + self.bytes_left))
        if self.items_per_s is not None:
            parts.append(f"{self.items_per_s:,.0f} writes/s" if self.items_per_s >= 10
                         else f"{self.items_per_s:.1f} writes/s")
        left = self.seconds_left
        if left is not None and self.items_left:
            parts.append(f"about {_duration(left)} left")
        if self.items_skipped:
            parts.append(f"{self.items_skipped:,} re-planned, not sent")
        return " · ".join(parts)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02} s"
    return f"{minutes // 60} h {minutes % 60:02} min"


class Tracker:
    """Counts a batch's items as they are done or skipped; `clock` is the time source
    (monotonic seconds), read at the start and at each count."""

    def __init__(self, items_total: int, bytes_total: int, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._start = clock()
        self.now = BatchProgress(0, items_total, 0, bytes_total, 0.0)

    def done(self, n_bytes: int, current: str) -> BatchProgress:
        self.now = dataclasses.replace(
            self.now, items_done=self.now.items_done + 1,
            bytes_done=self.now.bytes_done + n_bytes, current=current,
            elapsed_s=self._clock() - self._start)
        return self.now

    def skipped(self, n_bytes: int) -> BatchProgress:
        self.now = dataclasses.replace(
            self.now, items_skipped=self.now.items_skipped + 1,
            bytes_skipped=self.now.bytes_skipped + n_bytes,
            elapsed_s=self._clock() - self._start)
        return self.now
