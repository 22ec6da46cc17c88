"""The server extension's data dir is private (issue 22 item 10): a Jupyter server whose
per-user data dir (here the platform's, under XDG_DATA_HOME; `JDP_DATA_DIR` when set) was
left 0755 tightens it to 0700 as it loads, before the panel or the reference service
keeps anything in it."""

from __future__ import annotations

import os
import stat

from tests.labserver.server_harness import running_server


def test_the_server_extension_tightens_a_loose_data_dir(tmp_path) -> None:
    folder = tmp_path / "xdg" / "jupyter-design-projects"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    previous = os.umask(0o022)
    try:
        for server in running_server(tmp_path):
            assert server.status()["service"]["state"] == "ready"
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700
            assert stat.S_IMODE((folder / "reference-service").stat().st_mode) == 0o700
    finally:
        os.umask(previous)
