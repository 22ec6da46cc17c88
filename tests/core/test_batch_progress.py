"""A batch's progress as a person reads it: items and bytes done of what is left to send,
the rate so far, the time left at that rate (none before the first write is done, zero
when nothing is left), and re-planned items dropped from what is left."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.batch_progress import (
    BatchProgress,
    Tracker,
    bytes_of,
    human_bytes,
)
from jupyter_design_projects.notebook.widgets.progress import batch_step


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_done_has_no_rate_and_no_time_left() -> None:
    start = Tracker(4, 4000, Clock()).now
    assert (start.items_per_s, start.bytes_per_s, start.seconds_left) == (None, None, None)
    assert start.fraction == 0.0
    assert start.text() == "0 of 4 writes · 0.0 of 3.9 KiB"


def test_time_left_is_the_longer_of_the_items_and_the_bytes_reading() -> None:
    clock = Clock()
    tracker = Tracker(4, 4 * 1_048_576, clock)
    clock.now += 2.0
    one = tracker.done(1_048_576, "a.md")
    assert (one.items_done, one.bytes_done, one.current) == (1, 1_048_576, "a.md")
    assert one.items_per_s == 0.5 and one.bytes_per_s == 524_288
    assert one.seconds_left == 6.0  # 3 MiB left at 0.5 MiB/s
    assert one.text() == "1 of 4 writes · 1.0 of 4.0 MiB · 0.5 writes/s · about 6 s left"
    clock.now += 1.0
    two = tracker.done(3 * 1_048_576, "big.md")  # every byte sent, two empty writes left:
    assert two.seconds_left == 3.0  # the items' reading, 2 left at 2/3 a second, is longer


def test_items_alone_give_the_time_left_when_the_batch_has_no_bytes() -> None:
    clock = Clock()
    tracker = Tracker(3, 0, clock)
    clock.now += 1.0
    one = tracker.done(0, "gone.md")  # deletes carry no bytes
    assert one.seconds_left == 2.0
    assert one.text() == "1 of 3 writes · 1.0 writes/s · about 2 s left"


def test_a_replanned_item_leaves_what_is_left_and_the_last_write_ends_at_zero() -> None:
    clock = Clock()
    tracker = Tracker(2, 200, clock)
    clock.now += 1.0
    tracker.done(100, "a.md")
    last = tracker.skipped(100)
    assert (last.items_left, last.bytes_left, last.fraction) == (0, 0, 1.0)
    assert last.seconds_left == 0.0
    assert "1 re-planned, not sent" in last.text() and "left" not in last.text()


def test_long_waits_read_in_minutes_and_hours() -> None:
    def at(items_done: int, elapsed: float) -> str:
        return BatchProgress(items_done, 10_000, 0, 0, elapsed).text()

    assert at(1, 1.0).endswith("about 2 h 46 min left")
    assert at(100, 1.0).endswith("about 1 min 39 s left")
    assert at(5_000, 1.0).endswith("about 1 s left")


def test_the_notebook_bar_shows_the_fraction_and_the_counts() -> None:
    clock = Clock()
    tracker = Tracker(4, 0, clock)
    clock.now += 1.0
    step = batch_step(tracker.done(0, "a.md"))
    assert step.fraction == 0.25
    assert step.caption == "sync: 1 of 4 writes · 1.0 writes/s · about 3 s left"


@pytest.mark.parametrize(("n_bytes", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (2, "2 bytes"), (1023, "1,023 bytes"),
    (1024, "1.0 KiB"), (4300, "4.2 KiB"), (10_188, "9.9 KiB"), (10_189, "10 KiB"),
    (1_048_575, "1,024 KiB"), (1_048_576, "1.0 MiB"), (3 * 1_048_576, "3.0 MiB"),
    (512 * 1_048_576, "512 MiB"), (2**30 - 1, "1,024 MiB"), (2**30, "1.0 GiB"),
    (5 * 2**40, "5,120 GiB"),
])
def test_a_byte_count_reads_in_the_largest_unit_it_reaches(n_bytes, text) -> None:
    assert human_bytes(n_bytes) == text


@pytest.mark.parametrize(("done", "total", "text"), [
    (0, 0, "0 of 0 bytes"), (0, 1, "0 of 1 byte"), (300, 600, "300 of 600 bytes"),
    (0, 1023, "0 of 1,023 bytes"), (0, 1024, "0.0 of 1.0 KiB"),
    (512, 40_960, "0.5 of 40 KiB"), (838_861, 2 * 1_048_576, "0.8 of 2.0 MiB"),
    (0, 20 * 1_048_576, "0.0 of 20 MiB"), (1_048_576, 1_048_576, "1.0 of 1.0 MiB"),
])
def test_done_and_total_share_the_totals_unit(done, total, text) -> None:
    assert bytes_of(done, total) == text


def test_a_small_batch_never_reads_as_zero_mib() -> None:
    small = Tracker(2, 900, Clock()).now
    assert "MiB" not in small.text() and small.text() == "0 of 2 writes · 0 of 900 bytes"
