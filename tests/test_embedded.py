"""The embedded default: the reference service started as a subprocess, its startup line
read within a deadline, a clear error with the log tail when it does not start."""

from __future__ import annotations

import httpx
import pytest

from jupyter_design_projects import embedded
from jupyter_design_projects.errors import ServiceStartFailed
from jupyter_design_projects.transport.http import loopback_tls


def test_start_reads_the_line_and_stop_ends_the_process(tmp_path) -> None:
    service = embedded.start_embedded(tmp_path)
    try:
        assert service.running
        assert httpx.get(service.base_url + "/api/organizations",
                         verify=loopback_tls()).status_code == 401
        assert service.credentials_file.parent == tmp_path.resolve()
    finally:
        service.stop()
    assert not service.running
    service.stop()  # twice is fine


def test_the_session_token_is_not_in_the_repr(tmp_path) -> None:
    service = embedded.start_embedded(tmp_path)
    try:
        assert service.session_jwt and service.session_jwt not in repr(service)
    finally:
        service.stop()


def test_a_service_that_exits_is_a_clear_error_with_its_log(tmp_path) -> None:
    with pytest.raises(ServiceStartFailed) as caught:
        embedded.start_embedded(tmp_path, extra_args=["--port", "70000"])
    assert caught.value.reason == "exited"
    assert "--port" in caught.value.log_tail


def test_a_service_that_stays_silent_is_stopped_at_the_deadline(tmp_path) -> None:
    with pytest.raises(ServiceStartFailed) as caught:
        embedded.start_embedded(tmp_path, deadline_s=0.0)
    assert caught.value.reason == "timeout"


def test_the_default_data_dir_is_under_the_user_data_dir() -> None:
    path = embedded.default_data_dir()
    assert path.name == "reference-service"
    assert "jupyter-design-projects" in str(path)


def test_a_bare_jdp_server_uses_the_embedded_default_data_dir() -> None:
    """The two halves may not import each other, so each names the directory; they agree."""
    from jupyter_design_projects.server import cli

    assert cli.default_data_dir() == embedded.default_data_dir()


def _gone(pid: int) -> bool:
    """No such process, or only a zombie left for init to reap."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.split()[1:2] == ["Z"] for line in status if line.startswith("State:"))
    except FileNotFoundError:
        return True


def test_the_service_exits_when_its_parent_is_killed(tmp_path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = ("import sys, time\n"
              "from jupyter_design_projects.embedded import start_embedded\n"
              f"s = start_embedded({str(tmp_path)!r})\n"
              "print(s.process.pid, flush=True)\n"
              "time.sleep(120)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env)
    try:
        server_pid = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 15
        while not _gone(server_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(server_pid)
    finally:
        parent.kill()
        parent.wait(10)
        parent.stdout.close()


def test_client_env_points_a_client_at_the_service(tmp_path) -> None:
    from jupyter_design_projects.settings import Settings

    service = embedded.EmbeddedService(
        base_url="http://127.0.0.1:41234", org_uuid="org", project_uuid=None,
        credentials_file=tmp_path / "c.json", session_jwt="jwt", data_dir=tmp_path,
        log_file=tmp_path / "log", process=None)

    env = service.client_env()
    settings = Settings.resolve(env)

    assert env == {"JDP_API_BASE_URL": "http://127.0.0.1:41234",
                   "JDP_CREDENTIALS_FILE": str(tmp_path / "c.json"), "JDP_ORG_UUID": "org"}
    assert settings.oauth_token_url == "http://127.0.0.1:41234/v1/oauth/token"
    assert "jwt" not in repr(env)


def test_a_described_service_round_trips_and_is_not_owned(tmp_path) -> None:
    service = embedded.EmbeddedService(
        base_url="http://127.0.0.1:41234", org_uuid="org", project_uuid="p",
        credentials_file=tmp_path / "c.json", session_jwt="jwt", data_dir=tmp_path,
        log_file=tmp_path / "log", process=None)

    again = embedded.EmbeddedService.described(service.describe())

    assert again.client_env() == service.client_env()
    assert "jwt" not in str(service.describe()) and not again.owned
