"""Four processes whose access token the service expired read at once against the real
reference service: each gets a 401, exactly one refreshes (one token request, so no
process spends a rotated refresh token: no invalid_grant), the others adopt the token it
stored, and every read is answered on its one retry."""

import json

from jupyter_design_projects.server import paths
from tests.faults_client import faults
from tests.transport import refresh_race_worker

PROCESSES = 4
TOKEN = "POST /v1/oauth/token"


def test_four_processes_refreshing_after_a_401_at_once_make_exactly_one_token_request(
        reference_service, shared_credentials, workers):
    service, shared = reference_service, shared_credentials
    stored = json.loads(shared.read_text())
    grants = f"GET {paths.DESIGN_GRANTS}"
    control = faults(service)
    assert control.expire_tokens() >= 1  # the stored access token now answers 401
    before = control.counts()

    race = workers(PROCESSES)
    race.start(refresh_race_worker.run, [(race.barrier, service.base_url, str(shared),
                                          paths.DESIGN_GRANTS, race.results)] * PROCESSES)
    outcomes = race.outcomes()

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
