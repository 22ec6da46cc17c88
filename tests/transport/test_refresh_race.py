"""Four processes whose access token the service expired read at once against the real
reference service: each gets a 401, exactly one refreshes (one token request, so no
process spends a rotated refresh token: no invalid_grant), the others adopt the token it
stored, and every read is answered on its one retry."""

import json
import multiprocessing
import os
import shutil

import refresh_race_worker
from faults_client import faults

from jupyter_design_projects.server import paths

PROCESSES = 4
TOKEN = "POST /v1/oauth/token"


def test_four_processes_refreshing_after_a_401_at_once_make_exactly_one_token_request(
        reference_service, tmp_path):
    service = reference_service
    shared = tmp_path / "credentials.json"
    shutil.copyfile(service.credentials_file, shared)
    os.chmod(shared, 0o600)
    stored = json.loads(shared.read_text())
    grants = f"GET {paths.DESIGN_GRANTS}"
    control = faults(service)
    assert control.expire_tokens() >= 1  # the stored access token now answers 401
    before = control.counts()

    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    workers = [ctx.Process(target=refresh_race_worker.run,
                           args=(barrier, service.base_url, str(shared), paths.DESIGN_GRANTS,
                                 results))
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

    after = control.counts()
    assert not [o for o in outcomes if "failed" in o], outcomes  # no invalid_grant anywhere
    assert after.get(TOKEN, 0) - before.get(TOKEN, 0) == 1
    # each process: the rejected read, then its one retry with the new token
    assert all(o["answers"] == [401, 200] for o in outcomes), outcomes
    assert after.get(grants, 0) - before.get(grants, 0) == 2 * PROCESSES
    assert sorted(o["sent"].count("/v1/oauth/token") for o in outcomes) == \
        [0] * (PROCESSES - 1) + [1]
    assert all(o["token_changed"] for o in outcomes)
    # the one refresh rotated the stored credential, and the file holds it whole
    now = json.loads(shared.read_text())
    assert now["refresh_token"] != stored["refresh_token"]
    assert now["access_token"] != stored["access_token"]
