"""The server's one reference service: named in the environment before any kernel starts,
started in the background, described in the runtime file when ready, stopped with the
server; nothing is started when a service is configured or already shared."""

from __future__ import annotations

import json

from jupyter_design_projects import service_file
from jupyter_design_projects.labserver.launcher import launch


def test_launch_names_the_file_at_once_and_writes_it_when_ready(tmp_path):
    environ: dict[str, str] = {}
    launcher = launch(environ, tmp_path / "runtime", tmp_path / "service")
    assert launcher is not None
    try:
        named = environ[service_file.ENV]  # set before the start, for every later kernel
        service = service_file.wait(launcher.path, deadline_s=90)
        assert named == str(launcher.path) and launcher.path.parent == tmp_path / "runtime"
        assert launcher.service is not None and launcher.service.base_url == service.base_url
        assert json.loads(launcher.path.read_text())["state"] == "ready"
    finally:
        launcher.stop()
    assert not launcher.path.exists()
    assert launcher.service is not None and not launcher.service.running


def test_a_service_that_cannot_start_is_written_as_failed(tmp_path):
    environ: dict[str, str] = {}
    (tmp_path / "service").write_text("a file where the data directory should be")
    launcher = launch(environ, tmp_path / "runtime", tmp_path / "service")
    assert launcher is not None
    try:
        launcher._thread.join(90)
        assert json.loads(launcher.path.read_text())["state"] == "failed"
        assert launcher.failure is not None
    finally:
        launcher.stop()


def test_nothing_is_started_when_a_service_is_configured(tmp_path):
    environ = {"JDP_API_BASE_URL": "https://api.example.com"}
    assert launch(environ, tmp_path, tmp_path / "service") is None
    assert service_file.ENV not in environ


def test_nothing_is_started_when_a_parent_server_already_shares_one(tmp_path):
    environ = {service_file.ENV: str(tmp_path / "jdp-service-1.json")}
    assert launch(environ, tmp_path, tmp_path / "service") is None
    assert environ[service_file.ENV] == str(tmp_path / "jdp-service-1.json")


def test_the_extension_registers_every_route_under_the_base_url():
    from jupyter_design_projects.labserver import handlers

    class WebApp:
        settings = {"base_url": "/user/ada/"}
        added: list = []

        def add_handlers(self, host, specs):
            self.added.append((host, specs))

    app = WebApp()
    handlers.register(app, panel=object())

    [(host, specs)] = app.added
    assert host == ".*$"
    assert [route for route, _handler, _kw in specs] == [
        "/user/ada/jupyter-design-projects/" + route for route, _ in handlers.ROUTES] + [
        "/user/ada/jupyter-design-projects/" + route for route in (
            "oauth/authorize", "oauth/code/callback", "design/settings",
            "design/settings/grants", "oauth/callback")]
