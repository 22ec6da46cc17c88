"""The runtime file through which a Jupyter server shares its reference service: written
atomically and privately, read at once or waited for within a deadline, never a token."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from jupyter_design_projects import service_file
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import ServiceStartFailed


def described(tmp_path: Path) -> EmbeddedService:
    return EmbeddedService(
        base_url="http://127.0.0.1:41234", org_uuid="o", project_uuid="p",
        credentials_file=tmp_path / "client-credentials.json", session_jwt="jwt-secret-value",
        data_dir=tmp_path, log_file=tmp_path / "reference-service.log", process=None)


def test_a_ready_file_is_private_and_describes_the_service_without_a_token(tmp_path):
    path = tmp_path / "runtime" / "jdp-service-7.json"
    service_file.write_ready(path, described(tmp_path))

    read = service_file.read(path)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "jwt-secret-value" not in path.read_text()
    assert (read.base_url, read.org_uuid, read.project_uuid) == ("http://127.0.0.1:41234",
                                                                 "o", "p")
    assert read.credentials_file == tmp_path / "client-credentials.json"
    assert read.session_jwt is None and not read.owned and read.running
    read.stop()  # not ours: nothing happens


def test_no_file_yet_means_starting(tmp_path):
    with pytest.raises(service_file.Starting):
        service_file.read(tmp_path / "jdp-service-1.json")


def test_a_failed_start_is_the_error_the_server_met(tmp_path):
    path = tmp_path / "jdp-service-1.json"
    service_file.write_failed(path, ServiceStartFailed("exited", "port in use"))

    with pytest.raises(ServiceStartFailed) as caught:
        service_file.read(path)
    assert (caught.value.reason, caught.value.log_tail) == ("exited", "port in use")


@pytest.mark.parametrize("text", ["not json", "[]", json.dumps({"state": "ready"}),
                                  json.dumps({"state": "ready", "base_url": 5})])
def test_a_file_that_describes_no_service_is_refused(tmp_path, text):
    path = tmp_path / "jdp-service-1.json"
    path.write_text(text)

    with pytest.raises(ServiceStartFailed) as caught:
        service_file.read(path)
    assert caught.value.reason == "bad_line"


def test_wait_returns_once_the_file_is_written(tmp_path):
    path = tmp_path / "jdp-service-1.json"
    written = threading.Event()

    def write_later():
        written.wait(10)
        service_file.write_ready(path, described(tmp_path))

    writer = threading.Thread(target=write_later)
    writer.start()
    try:
        with pytest.raises(ServiceStartFailed):
            service_file.wait(path, deadline_s=0.0)  # at the deadline: not there yet
        written.set()
        assert service_file.wait(path, deadline_s=30).base_url == "http://127.0.0.1:41234"
    finally:
        writer.join(10)


def test_wait_gives_up_at_its_deadline_and_says_which_file(tmp_path):
    path = tmp_path / "jdp-service-1.json"
    with pytest.raises(ServiceStartFailed) as caught:
        service_file.wait(path, deadline_s=0.05)
    assert caught.value.reason == "timeout" and str(path) in caught.value.log_tail
