"""docs/jupyterhub.md's recipe on a real hub (tests/browser/hub_harness.py): one shared
service set once in the hub's config (`c.Spawner.environment`), each person's own
attached Project from a per-user callable, and no embedded reference service started in
any person's server, since a service is configured. Each person's credential is a copy of
the service's first one, put where their `JDP_CREDENTIALS_FILE` (another per-user callable)
names it, as their own sign-in would leave it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from jupyter_design_projects.transport.http import loopback_tls
from tests.browser.hub_harness import Hub, HubUser, hub_users, processes_of, running_hub
from tests.browser.lab import RESTORED_MS
from tests.browser.panel_driver import PROJECT, open_panel, role

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(os.geteuid() != 0,
                                 reason="two system users for the hub are made as root")]

#: the recipe's per-user part, as a hub's config writes it (docs/jupyterhub.md)
PER_USER = """
import pwd

def attached_project(spawner):
    return PROJECTS[spawner.user.name]

def credentials_file(spawner):
    return pwd.getpwnam(spawner.user.name).pw_dir + "/.jdp/credentials.json"

PROJECTS = {projects!r}
c.Spawner.environment["CLAUDE_PROJECT_UUID"] = attached_project
c.Spawner.environment["JDP_CREDENTIALS_FILE"] = credentials_file
"""


def signed_in(user: HubUser, credential: Path) -> None:
    """`user`'s own copy of the credential, 0600 in a 0700 folder of theirs."""
    folder = user.home / ".jdp"
    folder.mkdir(mode=0o700)
    shutil.copyfile(credential, folder / "credentials.json")
    os.chmod(folder / "credentials.json", 0o600)
    for path in (folder, folder / "credentials.json"):
        os.chown(path, user.uid, user.uid)


def second_project(service, data_dir: Path) -> str:
    """A second Project in the service's org, made through its API (the credential's
    scopes expanded first, as a first Projects call does)."""
    from jupyter_design_projects.session import Session
    from jupyter_design_projects.settings import Settings

    with Session(Settings.resolve(service.client_env()), data_dir=data_dir) as session:
        session.run(session.credentials.ensure_project_scopes(), timeout=60)
    token = json.loads(service.credentials_file.read_text())["access_token"]
    answer = httpx.post(f"{service.base_url}/api/organizations/{service.org_uuid}/projects",
                        headers={"Authorization": f"Bearer {token}"}, timeout=30.0,
                        json={"name": "Bob's Field Notes"}, verify=loopback_tls())
    assert answer.status_code == 201, answer.text
    return answer.json()["uuid"]


@pytest.fixture(scope="module")
def hub(module_reference_service, tmp_path_factory) -> Iterator[Hub]:
    service = module_reference_service
    projects = {"jdphub-alice": service.project_uuid,
                "jdphub-bob": second_project(service, tmp_path_factory.mktemp("maker"))}
    with hub_users(["alice", "bob"]) as users:
        for user in users:
            signed_in(user, service.credentials_file)
        shared = {"JDP_API_BASE_URL": service.base_url, "JDP_ORG_UUID": service.org_uuid}
        with running_hub(tmp_path_factory.mktemp("hub"), users, shared,
                         PER_USER.format(projects=projects)) as running:
            running.start_servers()
            yield running


def test_one_shared_service_each_person_their_own_project_and_no_embedded_service(
        hub, chromium):
    expected = {"alice": "Team Handbook", "bob": "Bob's Field Notes"}
    for name, project in expected.items():
        context = hub.browser_context(chromium)
        try:
            page = hub.log_in(context, name)
            page.set_default_timeout(RESTORED_MS)
            page.goto(hub.user_url(name, "lab"))
            page.wait_for_function("() => window.jupyterapp !== undefined")
            panel = open_panel(page, PROJECT)
            expect(role(panel, "project-name")).to_have_text(project)
        finally:
            context.close()
    uids = {user.uid for user in hub.users.values()}
    running = []
    for pid in processes_of(uids):
        try:
            running.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except FileNotFoundError:  # ended meanwhile
            continue
    assert any(b"jupyterhub.singleuser" in line for line in running)
    assert not [line for line in running if b"jupyter_design_projects.server" in line]
    assert hub.blocked == []
