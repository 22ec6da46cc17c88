"""One credential stack for kernels and the Jupyter server extension: built by the same
factory, they lock the same file, so two processes that find the token expired at once
make exactly one refresh request between them."""

from __future__ import annotations

import hashlib
import json

from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.credential_manager import open_credentials
from jupyter_design_projects.transport.credentials import FileCredentialStore
from jupyter_design_projects.transport.http import make_client
from tests.faults_client import faults
from tests.transport import one_stack_worker


def test_a_kernel_and_the_server_extension_refresh_an_expired_token_once(
        reference_service, shared_credentials, workers, tmp_path):
    service, shared = reference_service, shared_credentials
    env = {**service.client_env(), "JDP_CREDENTIALS_FILE": str(shared)}
    race = workers(3)
    # each side has its own data directory: the lock follows the credential file
    race.start(one_stack_worker.run, [(side, env, str(tmp_path / side), race.barrier,
                                       race.results) for side in ("kernel", "server")])
    race.barrier.wait(120)
    assert faults(service).expire_tokens() >= 1
    race.barrier.wait(60)
    outcomes = sorted(race.outcomes(), key=lambda o: o["side"])

    assert faults(service).counts().get("POST /v1/oauth/token") == 1
    assert [o["side"] for o in outcomes] == ["kernel", "server"]
    assert all(o["status"] == 200 and o["changed"] for o in outcomes), outcomes
    stored = json.loads(shared.read_text())
    digest = hashlib.sha256(stored["access_token"].encode()).hexdigest()
    assert {o["token"] for o in outcomes} == {digest}
    assert stored["refresh_token"] and stored["client_id"] == "jdp-notebook-client"


def test_the_factory_puts_a_file_stores_lock_beside_the_file(tmp_path):
    settings = Settings.resolve({"JDP_API_BASE_URL": "http://127.0.0.1:9",
                                 "JDP_CREDENTIALS_FILE": str(tmp_path / "c" / "cred.json")})
    manager = open_credentials(settings, tmp_path / "data", make_client())
    assert isinstance(manager._store, FileCredentialStore)
    assert manager._lock_path == tmp_path / "c" / "cred.json.lock"


def test_the_factory_puts_the_keyring_lock_in_the_data_dir(tmp_path):
    from jupyter_design_projects.transport.credentials import KeyringCredentialStore
    from tests.transport.transport_doubles import MemoryKeyring

    settings = Settings.resolve({"JDP_API_BASE_URL": "http://127.0.0.1:9"})
    store = KeyringCredentialStore(backend=MemoryKeyring())
    manager = open_credentials(settings, tmp_path / "data", make_client(), store=store)
    assert manager._lock_path == tmp_path / "data" / "credentials.lock"
