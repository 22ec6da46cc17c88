"""A real kernel ended as a hub stop or an idle cull ends it — SIGKILL, or `os._exit` —
never removes its session's temporary folder (with a download in it); the next kernel's
session does, as it starts. The folder is in the data dir, never in /tmp."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

DEADLINE_S = 120.0
#: the first call opens the session; a raw download lands in its temporary folder
OPEN_AND_DOWNLOAD = """
%load_ext jupyter_design_projects
raw = %project read churn-features-sample.parquet
magics = get_ipython().magics_manager.registry['DesignProjects']
print("TEMP", magics.session.temp_dir)
print("FILE", raw.local_file)
"""


def run(client, code: str) -> str:
    out: list[str] = []

    def keep(msg: dict) -> None:
        if msg["header"]["msg_type"] == "stream":
            out.append(msg["content"]["text"])

    reply = client.execute_interactive(code, timeout=DEADLINE_S, output_hook=keep,
                                       allow_stdin=False)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out)


def opened_kernel(env: dict[str, str]):
    from jupyter_client.manager import start_new_kernel

    return start_new_kernel(kernel_name="python3", startup_timeout=DEADLINE_S, env=env)


def said(out: str, key: str) -> Path:
    return Path(next(line.split(" ", 1)[1] for line in out.splitlines()
                     if line.startswith(key + " ")))


@pytest.mark.parametrize("ending", ["SIGKILL", "os._exit"])
def test_a_killed_kernels_folder_goes_when_the_next_kernel_starts(pointed_at_service, tmp_path,
                                                                 ending):
    data = tmp_path / "data"
    env = {**os.environ, "JDP_DATA_DIR": str(data)}
    manager, client = opened_kernel(env)
    try:
        out = run(client, OPEN_AND_DOWNLOAD)
        folder, download = said(out, "TEMP"), said(out, "FILE")
        assert folder.parent == data / "temp" and download.parent == folder
        if ending == "SIGKILL":
            manager.signal_kernel(signal.SIGKILL)
        else:
            client.execute("import os; os._exit(0)")
        deadline = time.monotonic() + DEADLINE_S
        while manager.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not manager.is_alive()
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert download.exists()  # the kernel could not clean up after itself
    manager, client = opened_kernel(env)
    try:
        out = run(client, OPEN_AND_DOWNLOAD)
        assert not folder.exists()
        assert [p.name for p in (data / "temp").iterdir()] == [said(out, "TEMP").name]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
