"""The fork server the run starts its services and Jupyter servers from (tests/zygote.py):
each child is a fresh `python -m MODULE` with the caller's arguments, environment, folder,
streams and session, and its exit is reported as a Popen's would be."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.zygote import Zygote

CHILD = "tests.zygote_child"


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    server = Zygote(["colorsys"])
    yield server
    server.close()


def run(zygote: Zygote, *args: str, env: dict[str, str] | None = None, cwd=None,
        stderr=None, new_session: bool = False):
    return zygote.popen([sys.executable, "-m", CHILD, *args], stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, stderr=stderr, env=env or {"HOME": "/nowhere"},
                        cwd=cwd, start_new_session=new_session)


def report(zygote: Zygote, tmp_path, **kwargs) -> dict:
    child = run(zygote, "report", "x y", cwd=tmp_path, **kwargs)
    with child.stdout:
        line = child.stdout.readline()
    assert child.wait(30) == 0
    return json.loads(line)


def test_a_child_runs_the_module_as_main_with_its_own_arguments_folder_and_environment(
        zygote, tmp_path):
    seen = report(zygote, tmp_path, env={"ZYGOTE_PASSED": "yes"})
    assert seen["argv"] == ["report", "x y"]
    assert seen["name"] == "__main__"
    assert seen["cwd"] == str(tmp_path)
    assert seen["env"] == {"ZYGOTE_PASSED": "yes", "HOME": None}  # only what was passed
    assert seen["preloaded"] is True  # imported once, in the server
    assert seen["stdin"] == ""  # /dev/null
    assert seen["pid"] != os.getpid()


def test_each_child_is_fresh_and_gets_its_own_session_when_asked(zygote, tmp_path):
    first = report(zygote, tmp_path)
    second = report(zygote, tmp_path, new_session=True)
    assert first["pid"] != second["pid"]
    assert first["random"] != second["random"]  # the random module reseeds in a child
    assert first["sid"] != first["pid"]
    assert second["sid"] == second["pid"]


def test_exit_codes_and_signals_are_reported_as_popen_reports_them(zygote):
    exiting = run(zygote, "exit", "3")
    assert exiting.wait(30) == 3
    assert exiting.stdout.read() == b""
    exiting.stdout.close()
    sleeping = run(zygote, "sleep")
    assert sleeping.stdout.readline() == b"sleeping\n"
    assert sleeping.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        sleeping.wait(0.2)
    sleeping.terminate()
    assert sleeping.wait(30) == -signal.SIGTERM
    sleeping.stdout.close()
    killed = run(zygote, "sleep")
    assert killed.stdout.readline() == b"sleeping\n"
    killed.kill()
    assert killed.wait(30) == -signal.SIGKILL
    killed.stdout.close()
    killed.kill()  # reaped: a signal now goes nowhere, and raises nothing


def test_stderr_can_follow_stdout_and_atexit_handlers_run(zygote, tmp_path):
    log = tmp_path / "child.log"
    with log.open("wb") as out:
        child = zygote.popen([sys.executable, "-m", CHILD, "atexit"], stdout=out,
                             stderr=subprocess.STDOUT, env={}, cwd=tmp_path)
    assert child.wait(30) == 0
    assert log.read_text() == "hello\nbye\n"


def test_only_a_python_module_command_with_no_input_is_taken(zygote):
    with pytest.raises(ValueError, match="not a `python -m` command"):
        zygote.popen(["/bin/true"])
    with pytest.raises(ValueError, match="stdin"):
        zygote.popen([sys.executable, "-m", CHILD, "report"], stdin=subprocess.PIPE)


def test_a_stopped_server_is_an_error_not_a_hang(tmp_path):
    server = Zygote([])
    first = run(server, "exit", "0")
    assert first.wait(30) == 0
    first.stdout.close()
    server._server.kill()  # the fork server dies under its client
    server._server.wait(30)
    with pytest.raises(OSError):
        run(server, "exit", "0")
    server.close()
