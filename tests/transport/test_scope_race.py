"""Eight processes expanding the Projects scopes at once against the real reference
service: exactly one token request, seven adopt the stored expansion."""

import json
import multiprocessing
import os
import shutil

import scope_race_worker
from faults_client import faults

from jupyter_design_projects.core.scopes import PROJECT_SCOPES
from jupyter_design_projects.transport.credential_manager import SCOPE_UPGRADE_NOTICE

PROCESSES = 8


def test_eight_processes_expanding_at_once_make_exactly_one_token_request(
        reference_service, tmp_path):
    service = reference_service
    shared = tmp_path / "credentials.json"
    shutil.copyfile(service.credentials_file, shared)
    os.chmod(shared, 0o600)
    assert not set(PROJECT_SCOPES) & set(json.loads(shared.read_text())["scopes"])
    detail = f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}/detail"

    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    workers = [ctx.Process(target=scope_race_worker.run,
                           args=(barrier, service.base_url, str(shared), detail, results))
               for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    try:
        outcomes = [results.get(timeout=120) for _ in workers]
    finally:
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()
                worker.join()
        results.close()
        results.join_thread()

    assert faults(service).counts().get("POST /v1/oauth/token") == 1
    assert sorted(o["token_requests"] for o in outcomes) == [0] * 7 + [1]
    assert all(o.get("notice") == SCOPE_UPGRADE_NOTICE for o in outcomes), outcomes
    assert all(o["detail_status"] == 200 for o in outcomes)
    assert set(PROJECT_SCOPES) <= set(json.loads(shared.read_text())["scopes"])
