"""Session temporary folders: in the person's private data dir, 0700 with 0600 files,
unreadable by another uid, and swept at the next start once their process is gone —
however it ended (SIGKILL, `os._exit`), and even when its pid now runs another process."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from jupyter_design_projects import temp_folders
from jupyter_design_projects.temp_folders import Mark, make_temp_folder, parse, stale, sweep

#: a real process with a real Session (its folder made as a kernel's is) and a download
#: saved in it; then it ends as asked: os._exit, or waiting to be killed
WORKER = """
import os, sys
from pathlib import Path
from jupyter_design_projects.projects.downloads import DownloadDir
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
session = Session(Settings.resolve({"JDP_API_BASE_URL": "http://127.0.0.1:9"}),
                  data_dir=Path(sys.argv[1]))
saved = DownloadDir(session.temp_dir).save_text("private,rows\\n1,2\\n", "rows.csv")
print(session.temp_dir, saved, flush=True)
if sys.argv[2] == "exit":
    os._exit(0)
sys.stdin.read()
"""
DEADLINE_S = 60.0
HERE = Mark(pid=100, start=5000, boot="b" * 8, host="a" * 8)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def start_worker(data_dir: Path, ending: str) -> tuple[subprocess.Popen, Path, Path]:
    process = subprocess.Popen([sys.executable, "-c", WORKER, str(data_dir), ending],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().split()
    assert len(line) == 2, "the worker did not report its folder"
    return process, Path(line[0]), Path(line[1])


def end(process: subprocess.Popen, kill: bool = True) -> int:
    """Kill the worker (unless it ended itself), wait for it and close its pipes."""
    if kill:
        process.kill()
    try:
        return process.wait(DEADLINE_S)
    finally:
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


def test_a_folder_is_private_in_the_data_dir_and_its_download_owner_only(tmp_path):
    process, folder, saved = start_worker(tmp_path / "data", "wait")
    try:
        assert folder.parent == tmp_path / "data" / "temp"
        assert mode(folder.parent) == 0o700 and mode(folder) == 0o700
        assert mode(saved) == 0o600 and saved.parent == folder
        assert parse(folder.name).pid == process.pid
    finally:
        end(process)


@pytest.mark.parametrize("ending", ["kill", "exit"])
def test_no_folder_outlives_its_process_past_the_next_start(tmp_path, ending):
    data = tmp_path / "data"
    process, folder, saved = start_worker(data, ending)
    if ending == "kill":
        process.send_signal(signal.SIGKILL)
    assert end(process, kill=False) == (-signal.SIGKILL if ending == "kill" else 0)
    assert saved.exists()  # nobody cleaned up: the process could not
    mine = make_temp_folder(data)  # the next start
    assert not folder.exists()
    assert sorted(p.name for p in (data / "temp").iterdir()) == [mine.name]


def test_the_folder_of_a_running_process_is_kept(tmp_path):
    data = tmp_path / "data"
    process, folder, saved = start_worker(data, "wait")
    try:
        make_temp_folder(data)
        assert saved.exists()
    finally:
        end(process)
    make_temp_folder(data)
    assert not folder.exists()


def test_a_reused_pid_does_not_keep_a_dead_process_folder(tmp_path):
    """The same pid now running another process (a different start time): swept."""
    root = temp_folders.temp_root(tmp_path / "data")
    here = temp_folders.this_process()
    alive = f"jdp-session-{os.getpid()}-{here.start}-{here.boot}{here.host}-{'1' * 12}"
    reused = f"jdp-session-{os.getpid()}-{here.start + 1}-{here.boot}{here.host}-{'2' * 12}"
    for name in (alive, reused):
        (root / name).mkdir()
    assert sweep(root, here) == [root / reused]
    assert (root / alive).is_dir()


def test_other_names_and_other_hosts_are_left_alone_and_links_not_followed(tmp_path):
    root = temp_folders.temp_root(tmp_path / "data")
    here = temp_folders.this_process()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept")
    dead = 2 ** 22 + 7  # above Linux's pid_max: never a running process
    other_host = f"jdp-session-{dead}-5-{here.boot}{'0' * 8}-{'3' * 12}"
    other_boot = f"jdp-session-{dead}-5-{'0' * 8}{here.host}-{'4' * 12}"
    link = f"jdp-session-{dead}-5-{here.boot}{here.host}-{'5' * 12}"
    for name in ("notes", other_host, other_boot):
        (root / name).mkdir()
    (root / link).symlink_to(outside)
    removed = sweep(root, here)
    assert sorted(removed) == sorted([root / other_boot, root / link])
    assert sorted(p.name for p in root.iterdir()) == sorted(["notes", other_host])
    assert (outside / "keep.txt").read_text() == "kept"


@pytest.mark.parametrize(("mark", "start_now", "is_stale"), [
    (HERE, 5000, False),                                  # the same process
    (HERE, None, True),                                   # gone
    (HERE, 5001, True),                                   # its pid reused
    (Mark(100, 0, "b" * 8, "a" * 8), 77, False),          # start unknown: pid runs
    (Mark(100, 5000, "b" * 8, "a" * 8), 0, False),        # start unknown now
    (Mark(100, 5000, "c" * 8, "a" * 8), 5000, True),      # an earlier boot
    (Mark(100, 5000, "b" * 8, "d" * 8), None, False),     # another host's
])
def test_which_folder_is_stale(mark, start_now, is_stale):
    assert stale(mark, HERE, start_now) is is_stale


@pytest.mark.parametrize("name", [
    "jdp-session-1-2-0123456789abcdef-0123456789ab",
    "jdp-projects-99-0-ffffffffffffffff-000000000000",
])
def test_a_name_it_makes_is_read_back(name):
    assert parse(name) is not None


@pytest.mark.parametrize("name", [
    "jdp-session-1-2-0123456789abcdef-0123456789a",       # short random part
    "jdp-session-x-2-0123456789abcdef-0123456789ab",      # pid not a number
    "jdp-Session-1-2-0123456789abcdef-0123456789ab",      # kind not lowercase
    "jdp-session-1-2-0123456789ABCDEF-0123456789ab",
    "jdp-session-1-2-0123456789abcdef-0123456789ab/",
    "tmp-session-1-2-0123456789abcdef-0123456789ab",
])
def test_a_name_not_of_ours_is_not_read(name):
    assert parse(name) is None


@pytest.mark.parametrize("kind", ["", "Session", "a" * 17, "x/y"])
def test_a_bad_kind_is_refused(tmp_path, kind):
    with pytest.raises(ValueError):
        make_temp_folder(tmp_path, kind)
    assert not (tmp_path / "temp").exists()


def test_a_kind_of_sixteen_letters_is_made(tmp_path):
    assert make_temp_folder(tmp_path, "a" * 16).name.startswith("jdp-" + "a" * 16 + "-")


PROBE = ("import os, sys\np = sys.argv[1]\n"
         "try:\n    os.listdir(p) if os.path.isdir(p) else open(p).read()\n"
         "    print('read')\nexcept PermissionError:\n    print('denied')\n")


def read_as_nobody(path: Path) -> str:
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           sys._base_executable, "-I", "-c", PROBE, str(path)],
                          capture_output=True, text=True, timeout=DEADLINE_S)
    return done.stdout.strip() or done.stderr


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="reading as another uid needs root and setpriv")
def test_another_uid_cannot_list_or_read_them():
    # a place another uid can walk to, so that only the folders' own modes stop it
    base = Path(tempfile.mkdtemp(prefix="jdp-uid-test-"))
    try:
        os.chmod(base, 0o755)
        control = base / "open.txt"
        control.write_text("anyone")
        control.chmod(0o644)
        assert read_as_nobody(control) == "read"  # the probe can read what is open
        data = base / "data"
        process, folder, saved = start_worker(data, "wait")
        try:
            os.chmod(data, 0o755)  # even a loose data dir: temp/ stays closed
            for path in (data / "temp", folder, saved):
                assert read_as_nobody(path) == "denied", path
        finally:
            end(process)
    finally:
        shutil.rmtree(base)


def test_the_session_folder_goes_on_close(tmp_path):
    from jupyter_design_projects.session import Session
    from jupyter_design_projects.settings import Settings

    session = Session(Settings.resolve({"JDP_API_BASE_URL": "http://127.0.0.1:9"}),
                      data_dir=tmp_path)
    folder = session.temp_dir
    assert folder.parent == tmp_path / "temp"
    session.close()
    assert not folder.exists()
