"""The helpers that let a module's browser tests share one JupyterLab (tests/browser/lab.py,
tests/jupyter_process.py): a page opens in the test's own workspace, the settings a test
changed are put back, a Jupyter a test has left is stopped by the end of the run, and a
page keeps its last picture only when a test failed while it was open."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.browser.lab import Failures, Lab, lab_page_on, settings_kept
from tests.jupyter_process import _stopping, _stopping_lock, stop, wait_for_stops


def a_lab(tmp_path: Path) -> Lab:
    (tmp_path / "notebooks").mkdir()
    return Lab(url="http://127.0.0.1:8888/user/a", token="t", root_dir=tmp_path / "notebooks",
               log_file=tmp_path / "jupyter-lab.log")


def test_a_workspace_is_in_every_lab_address_and_in_no_other(tmp_path):
    lab = a_lab(tmp_path)
    assert lab.lab_url() == "http://127.0.0.1:8888/user/a/lab?token=t"
    mine = lab.in_workspace("test-7")
    assert mine.lab_url() == "http://127.0.0.1:8888/user/a/lab/workspaces/test-7?token=t"
    assert (mine.lab_url("lab/tree/x.ipynb")
            == "http://127.0.0.1:8888/user/a/lab/workspaces/test-7/tree/x.ipynb?token=t")
    assert mine.lab_url("api/status") == "http://127.0.0.1:8888/user/a/api/status?token=t"
    assert mine.lab_url("labextensions") == lab.lab_url("labextensions")
    assert lab.workspace is None and mine.root_dir == lab.root_dir


def test_the_settings_a_test_changed_or_added_are_put_back(tmp_path):
    lab = a_lab(tmp_path)
    theme = lab.settings_dir / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings"
    theme.parent.mkdir(parents=True)
    theme.write_text('{"theme": "JupyterLab Light"}')
    added = (lab.settings_dir / "@jupyter-widgets" / "jupyterlab-manager"
             / "plugin.jupyterlab-settings")
    with settings_kept(lab):
        theme.write_text('{"theme": "JupyterLab Dark"}')
        added.parent.mkdir(parents=True)
        added.write_text('{"saveState": true}')
    assert theme.read_text() == '{"theme": "JupyterLab Light"}'
    assert not added.exists()


def test_a_jupyter_that_ignores_sigterm_is_killed_and_waited_for(monkeypatch):
    monkeypatch.setattr("tests.jupyter_process.STOP_GRACE_S", 0.5)
    stubborn = subprocess.Popen([sys.executable, "-c",
                                 "import signal, time; signal.signal(signal.SIGTERM,"
                                 " signal.SIG_IGN); print('up', flush=True); time.sleep(60)"],
                                stdout=subprocess.PIPE)
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"up\n"
    stubborn.stdout.close()
    stopper = threading.Thread(target=stop, args=(stubborn,))
    stopper.start()
    with _stopping_lock:
        _stopping.append(stopper)
    started = time.monotonic()
    assert wait_for_stops() >= 1
    assert stubborn.returncode == -9 and time.monotonic() - started < 30
    assert wait_for_stops() == 0


class _Closing:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    def close(self) -> None:
        self.log.append(self.name)

    def __exit__(self, *_: object) -> None:
        self.log.append(self.name)


def test_a_held_browser_stays_for_its_module_and_closes_for_any_other():
    from tests.browser.held_browser import HeldBrowser

    log: list[str] = []
    held = HeldBrowser()
    held.browser, held._playwright = _Closing(log, "browser"), _Closing(log, "driver")
    held.holder = "module a"
    held.close_unless_held_by("module a")  # a test of its module that does not ask for it
    assert log == []
    held.release()  # module a ended: the next browser module may take it over
    held.close_unless_held_by("module b")  # a test that does not ask for it
    assert log == ["browser", "driver"]
    assert held.browser is None and held.holder is None
    held.close_unless_held_by("module c")  # nothing held: nothing to close
    assert log == ["browser", "driver"]


class FakePage:
    """The part of a Playwright page `lab_page_on` drives, recording its pictures."""

    def __init__(self, shots: list[str]) -> None:
        self.shots = shots

    def set_default_timeout(self, ms: float) -> None:
        pass

    def goto(self, url: str) -> None:
        pass

    def wait_for_function(self, expression: str, timeout: float | None = None) -> None:
        pass

    def evaluate(self, expression: str) -> None:
        pass

    def screenshot(self, path: str) -> None:
        self.shots.append(Path(path).name)


class FakeBrowser:
    def __init__(self) -> None:
        self.shots: list[str] = []
        self.closed = 0

    def new_context(self, viewport: dict) -> FakeBrowser:
        return self

    def new_page(self) -> FakePage:
        return FakePage(self.shots)

    def close(self) -> None:
        self.closed += 1


def test_a_lab_page_keeps_its_last_picture_only_when_a_test_failed_while_it_was_open(
        tmp_path):
    browser, lab = FakeBrowser(), a_lab(tmp_path)
    before = Failures.count
    try:
        with lab_page_on(browser, lab, tmp_path):  # its test passed
            pass
        assert browser.shots == [] and browser.closed == 1
        with lab_page_on(browser, lab, tmp_path):  # its test's call failed before teardown
            Failures.count += 1
        assert browser.shots == ["last-page.png"] and browser.closed == 2
        with lab_page_on(browser, lab, tmp_path):  # a module's page: an early test of the
            Failures.count += 1  # module failed, the later ones passed
        assert browser.shots == ["last-page.png"] * 2 and browser.closed == 3
        with pytest.raises(AssertionError), lab_page_on(browser, lab, tmp_path):
            raise AssertionError("the card never came")  # a test's own block raised
        assert browser.shots == ["last-page.png"] * 3 and browser.closed == 4
        Failures.count += 1  # a failure before the page opened is not its
        with lab_page_on(browser, lab, tmp_path):
            pass
        assert browser.shots == ["last-page.png"] * 3 and browser.closed == 5
    finally:
        Failures.count = before
