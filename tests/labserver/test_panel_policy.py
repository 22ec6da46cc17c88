"""The side panel under the gates (spec §1): a policy gate set in the environment or in the
Jupyter server's config closes the tool for the panel as for the kernels. A closed tool's
part of the status, and each of its actions, answers "off by policy" naming the setting,
and nothing is sent to the service for it; an open tool is read as before."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from traitlets.config import Config, LoggingConfigurable
from traitlets.config.loader import DeferredConfigString

from jupyter_design_projects.errors import ConfigError
from jupyter_design_projects.labserver import failures, policy
from jupyter_design_projects.labserver.panel import Panel
from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.settings import GATES, Settings, trait_overrides
from tests.faults_client import faults
from tests.labserver.server_harness import (
    PREFIX,
    JupyterServer,
    Kernel,
    running_server,
    xsrf_headers,
)

OFF = failures.OFF_BY_POLICY


@pytest.fixture
def open_panel(tmp_path) -> Iterator:
    made: list[Panel] = []

    def make(env: dict[str, str]) -> Panel:
        panel = Panel(env, tmp_path / "data")
        made.append(panel)
        return panel

    yield make
    for panel in made:
        panel.close()


def requests(service) -> tuple[Counter, Counter]:
    """(Design requests, Projects requests) the service has answered, by route."""
    design: Counter = Counter()
    projects: Counter = Counter()
    for key, count in faults(service).counts().items():
        if "/_faults" in key or "/oauth" in key:
            continue
        (design if ("/v1/design" in key or key.startswith(("mcp:", "design:")))
         else projects)[key] = count
    return design, projects


# ---------------------------------------------------------------- Design closed


@pytest.mark.asyncio
@pytest.mark.parametrize(("variable", "value", "gate"), [
    ("JDP_ALLOW_DESIGN_SYNC", "0", "allow_design_sync"),
    ("JDP_DESIGN_FEATURE_FLAG", "off", "design_feature_flag"),
    ("JDP_ESSENTIAL_TRAFFIC_ONLY", "1", "essential_traffic_only"),
])
async def test_a_closed_design_gate_is_off_by_policy_and_nothing_is_sent(
        module_reference_service, open_panel, variable, value, gate):
    service = module_reference_service
    panel = open_panel({**service.client_env(), variable: value})
    design_before, _ = requests(service)
    report = await panel.status()
    answers = [await panel.consent(give=True), await panel.consent(give=False),
               await panel.revoke_grant(DECK_ID)]
    design_after, _ = requests(service)

    assert report["design"]["error"] == OFF and report["design"]["setting"] == gate
    assert "off by policy" in report["design"]["message"] and variable in \
        report["design"]["message"]
    assert [a["error"] for a in answers] == [OFF] * 3
    assert design_after == design_before  # no consent, grants or get_project request
    assert failures.http_status(answers[0]) == 403


@pytest.mark.asyncio
async def test_an_open_design_gate_reads_consent_and_grants(module_reference_service,
                                                           open_panel):
    service = module_reference_service
    panel = open_panel({**service.client_env(), "JDP_ALLOW_DESIGN_SYNC": "1"})
    before, _ = requests(service)
    design = (await panel.status())["design"]
    after, _ = requests(service)

    assert not failures.is_failure(design) and isinstance(design["consent"], bool)
    assert after["GET /v1/design/consent"] == before["GET /v1/design/consent"] + 1


# ---------------------------------------------------------------- Projects closed


@pytest.mark.asyncio
@pytest.mark.parametrize(("variable", "value", "gate"), [
    ("JDP_ALLOW_PROJECTS_TOOL", "false", "allow_projects_tool"),
    ("JDP_ESSENTIAL_TRAFFIC_ONLY", "yes", "essential_traffic_only"),
])
async def test_a_closed_projects_gate_is_off_by_policy_and_nothing_is_sent(
        module_reference_service, open_panel, variable, value, gate):
    service = module_reference_service
    panel = open_panel({**service.client_env(), variable: value})
    _, before = requests(service)
    report = await panel.status()
    answers = [await panel.files(), await panel.search("incident", 5),
               await panel.doc("glossary.md"), await panel.restore(1)]
    _, after = requests(service)

    assert report["project"]["error"] == OFF and report["project"]["setting"] == gate
    assert report["service"]["state"] == "ready"
    assert [a["error"] for a in answers] == [OFF] * 4
    assert after == before


@pytest.mark.asyncio
async def test_only_the_closed_tool_is_off(module_reference_service, open_panel):
    service = module_reference_service
    report = await open_panel({**service.client_env(),
                               "JDP_ALLOW_PROJECTS_TOOL": "0"}).status()
    assert report["project"]["error"] == OFF
    assert isinstance(report["design"]["consent"], bool)


@pytest.mark.asyncio
async def test_a_malformed_gate_is_reported_and_nothing_is_sent(module_reference_service,
                                                              open_panel):
    service = module_reference_service
    before = requests(service)
    report = await open_panel({**service.client_env(),
                               "JDP_ALLOW_DESIGN_SYNC": "maybe"}).status()
    assert report["design"]["error"] == "config_error"
    assert "JDP_ALLOW_DESIGN_SYNC" in report["design"]["message"]
    assert requests(service) == before


# ---------------------------------------------------------------- the settings


@pytest.mark.parametrize(("raw", "value"), [
    ("1", True), ("true", True), ("Yes", True), (" on ", True),
    ("0", False), ("false", False), ("NO", False), ("off", False),
])
def test_a_gate_variable_reads_as_a_boolean(raw, value):
    assert Settings.resolve({"JDP_ALLOW_DESIGN_SYNC": raw}).allow_design_sync is value


@pytest.mark.parametrize("raw", ["2", "enabled", "tru", "-"])
def test_a_gate_variable_that_is_not_a_boolean_is_refused(raw):
    with pytest.raises(ConfigError) as caught:
        Settings.resolve({"JDP_ALLOW_PROJECTS_TOOL": raw})
    assert caught.value.setting == "JDP_ALLOW_PROJECTS_TOOL"


def test_every_gate_has_a_variable_and_closes_its_tool():
    for gate, variable in GATES.items():
        closed = "1" if gate == "essential_traffic_only" else "0"
        settings = Settings.resolve({variable: closed})
        assert not settings.gate_open(gate)
        assert gate in (settings.closed_by_policy("Design"),
                        settings.closed_by_policy("Projects"))
    assert Settings().closed_by_policy("Design") is None
    assert Settings().closed_by_policy("Projects") is None


def test_a_kernels_default_trait_does_not_reopen_a_gate_closed_by_policy():
    env = {"JDP_ALLOW_DESIGN_SYNC": "0"}
    defaults = {"allow_design_sync": True, "essential_traffic_only": False}
    assert Settings.resolve(env, trait_overrides(defaults)).allow_design_sync is False
    # a trait set away from its default wins over the environment, as any setting does
    closing = {"allow_design_sync": False}
    assert Settings.resolve({}, trait_overrides(closing)).allow_design_sync is False
    assert Settings.resolve({"JDP_ESSENTIAL_TRAFFIC_ONLY": "0"}, trait_overrides(
        {"essential_traffic_only": True})).essential_traffic_only is True


# ---------------------------------------------------------------- the Jupyter config


def server_like(config: Config) -> LoggingConfigurable:
    return LoggingConfigurable(config=config)


def test_the_jupyter_config_sets_gates_and_the_environment_carries_them():
    config = Config({"DesignProjects": {"allow_design_sync": False,
                                        "essential_traffic_only": True}})
    gates = policy.configured(server_like(config))
    environ: dict[str, str] = {"JDP_ALLOW_DESIGN_SYNC": "1"}
    policy.export(gates, environ)

    assert gates == {"allow_design_sync": False, "essential_traffic_only": True}
    assert environ == {"JDP_ALLOW_DESIGN_SYNC": "0", "JDP_ESSENTIAL_TRAFFIC_ONLY": "1"}
    settings = Settings.resolve(environ)
    assert settings.closed_by_policy("Design") == "allow_design_sync"
    assert settings.closed_by_policy("Projects") == "essential_traffic_only"


def test_a_command_line_gate_is_read_as_a_boolean():
    config = Config({"DesignProjects": {"allow_projects_tool": DeferredConfigString("False")}})
    assert policy.configured(server_like(config)) == {"allow_projects_tool": False}


def test_no_gate_in_the_config_leaves_the_environment_alone():
    environ = {"JDP_ALLOW_DESIGN_SYNC": "0"}
    policy.export(policy.configured(server_like(Config())), environ)
    assert environ == {"JDP_ALLOW_DESIGN_SYNC": "0"}


# ---------------------------------------------------------------- a real Jupyter server


@pytest.fixture(scope="module")
def closed_server(tmp_path_factory) -> Iterator[JupyterServer]:
    yield from running_server(tmp_path_factory.mktemp("jupyter-policy"),
                              {"DesignProjects": {"allow_design_sync": False}})


def test_a_gate_in_the_servers_config_holds_for_the_panel_and_its_kernels(closed_server):
    server = closed_server
    status = server.status()
    with server.browser() as browser:
        given = browser.post(PREFIX + "design/consent", headers=xsrf_headers(browser))
    kernel = Kernel(server)
    try:
        kernel.run("%load_ext jupyter_design_projects")
        seen = kernel.run(
            "r = get_ipython().run_line_magic('design', '--outcome list_projects')\n"
            "print(type(r.error).__name__, r.error.gate)").split()
    finally:
        kernel.close()

    assert status["design"]["error"] == OFF
    assert status["design"]["setting"] == "allow_design_sync"
    assert not failures.is_failure(status["project"])  # Projects stays open
    assert given.status_code == 403 and given.json()["error"] == OFF
    assert seen[-2:] == ["GateClosed", "allow_design_sync"]
