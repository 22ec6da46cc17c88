"""How `python3 tasks.py test` shares the suite between its pytest-xdist workers.

xdist's own `--dist loadgroup` does not group with pytest 9.2: it tags a test's node id
by setting `item._nodeid`, which pytest 9 no longer reads (`nodeid` comes from `_id`), so
tests of one `xdist_group` land on both workers. This scheduler groups by place instead,
which the controller can read from a node id alone (it never sees markers):

- each group of `tests/conftest.py` SERIAL_GROUPS (tests that must not run at the same
  time as each other) is one unit of work: one worker runs it whole, one test after
  another;
- every other test file is one unit of work (as `--dist loadfile`), so a module's
  JupyterLab, browser or reference service starts once, on one worker;
- the units start heaviest first (longest-processing-time first), by the slow kinds
  of their places (SLOW_KINDS): the long browser and notebook files are not left to the
  end, where one worker would run them while the other idles;
- the units of no slow place keep the order the workers collected them in, which
  (`slow_files_first`) puts first the files with the most tests that take a slow fixture
  (a fresh reference service: SLOW_FIXTURES), which the controller cannot see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xdist.scheduler import LoadScopeScheduling

#: a test's estimated cost by its slowest kind (seconds on this machine, roughly: a browser
#: test drives a page on a running JupyterLab, a notebook test executes a notebook, a
#: packaging test builds a wheel or runs jlpm); a test of no slow place costs FAST_COST,
#: nothing, so such units keep their collected order (`slow_files_first`)
KIND_COST = {"packaging": 40.0, "notebook": 20.0, "browser": 12.0, "kernel": 4.0,
             "service": 1.0}
FAST_COST = 0.0


def at(relative: str, places: tuple[str, ...]) -> bool:
    """Whether `relative` (a POSIX path under tests/) is one of `places` (a folder ends
    with "/")."""
    return any(relative.startswith(p) if p.endswith("/") else relative == p for p in places)


def relative_path(nodeid: str) -> str:
    """The test file of a node id, relative to tests/."""
    path = nodeid.split("::", 1)[0]
    return path[len("tests/"):] if path.startswith("tests/") else path


def unit_of(nodeid: str, groups: Mapping[str, tuple[str, ...]]) -> str:
    """The unit of work a test belongs to: its serial group, or its file."""
    relative = relative_path(nodeid)
    for name, places in groups.items():
        if at(relative, places):
            return f"group:{name}"
    return nodeid.split("::", 1)[0]


def cost_of(nodeid: str, kinds: Mapping[str, tuple[str, ...]]) -> float:
    relative = relative_path(nodeid)
    return max((KIND_COST[k] for k, places in kinds.items()
                if k in KIND_COST and at(relative, places)), default=FAST_COST)


def slow_files_first(items: list[Any], slow: Callable[[Any], bool]) -> list[Any]:
    """`items` with each file's tests kept together and in order, the files with the most
    `slow` tests first (the others in their order)."""
    files: dict[Any, list[Any]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    ordered = sorted(files.values(), key=lambda tests: -sum(1 for t in tests if slow(t)))
    return [item for tests in ordered for item in tests]


def scheduler(groups: Mapping[str, tuple[str, ...]],
              kinds: Mapping[str, tuple[str, ...]]) -> Callable[..., Any]:
    """The scheduler class over these groups and slow kinds (for pytest_xdist_make_scheduler)."""

    class SplitScheduling(LoadScopeScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid, groups)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:  # once, before the first unit goes out: heaviest first
                units = sorted(self.workqueue.items(), key=lambda unit: -sum(
                    cost_of(nodeid, kinds) for nodeid in unit[1]))
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return SplitScheduling


class BusyTime:
    """The controller's record of each worker's busy time (setup, call and teardown of
    every test it ran) and of when it ran its last test, printed at the end of a run on
    several workers: a worker that finishes long before the other shows the split is
    uneven."""

    def __init__(self) -> None:
        self.busy: dict[str, float] = {}
        self.first: float | None = None
        self.last: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        node = getattr(report, "node", None)
        if node is None:
            return
        worker = node.gateway.id
        self.busy[worker] = self.busy.get(worker, 0.0) + report.duration
        self.first = report.start if self.first is None else min(self.first, report.start)
        self.last[worker] = max(self.last.get(worker, 0.0), report.stop)

    def lines(self) -> list[str]:
        """One line per worker: its busy seconds and when (after the first test began)
        its last test ended."""
        if self.first is None:
            return []
        return [f"{worker}: busy {self.busy[worker]:.0f} s, last test ended at "
                f"{self.last[worker] - self.first:.0f} s" for worker in sorted(self.busy)]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        found = self.lines()
        if found:
            terminalreporter.write_sep("=", "time per worker")
            for line in found:
                terminalreporter.write_line(line)
