"""The full run's split (tests/worker_split.py): a serial group runs whole on one
worker, other files are units of their own, and the heaviest units go out first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.worker_split import FAST_COST, KIND_COST, BusyTime, cost_of, unit_of

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def declared(request: pytest.FixtureRequest):
    """tests/conftest.py as pytest loaded it (by its path: several conftest modules share
    the name `conftest`)."""
    module = request.config.pluginmanager.get_plugin(str(TESTS / "conftest.py"))
    assert module is not None
    return module


def test_a_test_of_a_serial_group_belongs_to_the_group_and_others_to_their_file():
    groups = {"checkout": ("test_packaging.py",), "lab": ("browser/",)}
    assert unit_of("tests/test_packaging.py::test_wheel", groups) == "group:checkout"
    assert unit_of("tests/browser/test_new.py::test_x[1]", groups) == "group:lab"
    assert unit_of("tests/browsers/test_x.py::test_y", groups) == "tests/browsers/test_x.py"
    assert unit_of("tests/core/test_a.py::T::test_b", groups) == "tests/core/test_a.py"


def test_the_checkout_group_holds_the_tests_that_work_in_the_checkout(declared):
    groups = declared.SERIAL_GROUPS
    assert unit_of("tests/test_labextension.py::test_lint", groups) == (
        unit_of("tests/test_packaging.py::test_wheel", groups)) == "group:checkout"


def test_the_tests_that_read_the_docs_site_share_one_unit(declared):
    """Those using the session's docs build (conftest `docs_build`) run on one worker, so
    the site is built once a run."""
    groups = {**declared.SERIAL_GROUPS, **declared.SHARING_GROUPS}
    assert unit_of("tests/test_docs.py::test_every_page_of_the_toc_is_built", groups) == (
        unit_of("tests/browser/test_accessibility_docs.py::test_x[dark]", groups)) == (
        "group:docs-site")


def test_a_test_costs_what_its_slowest_kind_costs(declared):
    kinds = declared.SLOW_KINDS
    assert cost_of("tests/browser/test_deck.py::test_push", kinds) == KIND_COST["browser"]
    assert cost_of("tests/test_packaging.py::test_wheel", kinds) == KIND_COST["packaging"]
    assert cost_of("tests/core/test_letters.py::test_a", kinds) == FAST_COST


CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS.parent)!r})
import pytest
from tests.worker_split import scheduler

@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return scheduler({{"together": ("sub/",)}}, {{"browser": ("sub/",)}})(config, log)
"""

TEST_FILE = """
import os, time, pytest

@pytest.mark.parametrize("i", range(4))
def test_it(i):
    time.sleep(0.1)
    with open({out!r}, "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + " {name}\\n")
"""


def test_a_serial_group_runs_whole_on_one_worker_while_the_other_works(tmp_path):
    """A real two-worker run: the group's two files on one worker, the other files beside."""
    out = tmp_path / "ran.txt"
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "sub").mkdir()
    for name in ("sub/test_a.py", "sub/test_b.py", "test_c.py", "test_d.py", "test_e.py"):
        (tmp_path / name).write_text(TEST_FILE.format(out=str(out), name=name))
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider",
                           "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    workers: dict[str, set[str]] = {}
    for line in out.read_text().splitlines():
        worker, name = line.split()
        workers.setdefault(name, set()).add(worker)
    assert all(len(seen) == 1 for seen in workers.values()), json.dumps(
        {k: sorted(v) for k, v in workers.items()})
    assert workers["sub/test_a.py"] == workers["sub/test_b.py"]
    assert set().union(*workers.values()) == {"gw0", "gw1"}  # both worked


def report(worker: str | None, start: float, stop: float) -> SimpleNamespace:
    """A test report as the controller gets it (`node` is the worker that ran it)."""
    node = None if worker is None else SimpleNamespace(gateway=SimpleNamespace(id=worker))
    return SimpleNamespace(node=node, start=start, stop=stop, duration=stop - start)


def test_each_worker_s_busy_time_and_last_end_are_reported():
    busy = BusyTime()
    assert busy.lines() == []  # no test ran on a worker
    for worker, start, stop in (("gw1", 100.0, 104.0), ("gw0", 101.0, 111.0),
                                ("gw1", 104.0, 105.5), (None, 90.0, 200.0)):
        busy.pytest_runtest_logreport(report(worker, start, stop))
    assert busy.lines() == ["gw0: busy 10 s, last test ended at 11 s",
                            "gw1: busy 6 s, last test ended at 6 s"]


def test_the_files_with_the_most_slow_tests_are_collected_first_each_kept_whole():
    from types import SimpleNamespace

    from tests.worker_split import slow_files_first

    def test(path: str, slow: bool) -> SimpleNamespace:
        return SimpleNamespace(path=path, slow=slow, name=f"{path}:{slow}")

    items = [test("a", False), test("a", False), test("b", True), test("b", False),
             test("c", True), test("c", True), test("d", False)]
    order = [(t.path, t.slow) for t in slow_files_first(items, lambda t: t.slow)]
    assert order == [("c", True), ("c", True), ("b", True), ("b", False),
                     ("a", False), ("a", False), ("d", False)]
