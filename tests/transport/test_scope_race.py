"""Eight processes expanding the Projects scopes at once against the real reference
service: exactly one token request, seven adopt the stored expansion."""

import json

from jupyter_design_projects.core.scopes import PROJECT_SCOPES
from jupyter_design_projects.transport.credential_manager import SCOPE_UPGRADE_NOTICE
from tests.faults_client import faults
from tests.transport import scope_race_worker

PROCESSES = 8


def test_eight_processes_expanding_at_once_make_exactly_one_token_request(
        reference_service, shared_credentials, workers):
    service, shared = reference_service, shared_credentials
    assert not set(PROJECT_SCOPES) & set(json.loads(shared.read_text())["scopes"])
    detail = f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}/detail"

    race = workers(PROCESSES)
    race.start(scope_race_worker.run,
               [(race.barrier, service.base_url, str(shared), detail, race.results)] * PROCESSES)
    outcomes = race.outcomes()

    assert faults(service).counts().get("POST /v1/oauth/token") == 1
    assert sorted(o["token_requests"] for o in outcomes) == [0] * 7 + [1]
    assert all(o.get("notice") == SCOPE_UPGRADE_NOTICE for o in outcomes), outcomes
    assert all(o["detail_status"] == 200 for o in outcomes)
    assert set(PROJECT_SCOPES) <= set(json.loads(shared.read_text())["scopes"])
