"""In-process fixtures for the reference service: its config, the app and context, a
TestClient with the lifespan running, bearer tokens and the demo ids; and the Design
harness (tests/server/design/harness.py) with an MCP session, as most Design tests start."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from jupyter_design_projects.core import owner_proof
from jupyter_design_projects.server import oauth
from jupyter_design_projects.server.app import DB_FILE, create_app
from jupyter_design_projects.server.context import DEMO_USER_ID, ServiceConfig, ServiceContext
from tests.design_headers import DESIGN_HEADERS
from tests.server.design.harness import Harness, McpClient, build_harness

ALL_SCOPES = tuple(sorted(oauth.KNOWN_SCOPES))


@dataclasses.dataclass(frozen=True)
class Demo:
    org_uuid: str
    project_uuid: str

    @property
    def base(self) -> str:
        """The org API base path of the demo project."""
        return f"/api/organizations/{self.org_uuid}/projects/{self.project_uuid}"


@pytest.fixture
def service_config(tmp_path: Path, seeded_database: Path) -> ServiceConfig:
    """A data dir of its own, starting on a copy of the session's seeded database
    (tests/conftest.py)."""
    shutil.copyfile(seeded_database, tmp_path / DB_FILE)
    return ServiceConfig(data_dir=tmp_path, seed="demo", faults=True, session_idle_timeout=60.0)


@pytest.fixture
def service_app(service_config: ServiceConfig) -> tuple[Starlette, ServiceContext]:
    app = create_app(service_config)
    return app, app.state.ctx


def owner_header(config: ServiceConfig) -> dict[str, str]:
    """The header by which the service's owner (the Jupyter server's proxy, a kernel)
    reaches its owner-only pages: the secret read from the 0700 data dir."""
    secret = (config.data_dir / owner_proof.OWNER_FILE).read_text(encoding="ascii")
    return {owner_proof.OWNER_HEADER: secret}


@pytest.fixture
def client(service_app: tuple[Starlette, ServiceContext],
           service_config: ServiceConfig) -> Iterator[TestClient]:
    # as the client does, every request names the Design identity headers (spec §5); the
    # pages are opened as their owner (tests/server/test_owner_gate.py: anyone else)
    with TestClient(service_app[0], base_url="http://127.0.0.1",
                    headers={**DESIGN_HEADERS, **owner_header(service_config)}
                    ) as test_client:
        yield test_client


@pytest.fixture
def stranger(service_app: tuple[Starlette, ServiceContext]) -> Iterator[TestClient]:
    """A client with no owner proof: another local user, or a page elsewhere. (Its
    lifespan is not run: `client` may run the app's, which runs once.)"""
    yield TestClient(service_app[0], base_url="http://127.0.0.1", headers=DESIGN_HEADERS)


def issue_token(ctx: ServiceContext, scopes: tuple[str, ...] = ALL_SCOPES) -> str:
    """A fresh access token for the demo user with exactly these scopes."""
    with ctx.db.transaction() as conn:
        answer = oauth.issue_tokens(ctx, conn, user_id=DEMO_USER_ID,
                                    client_id=oauth.FIRST_PARTY_CLIENT_ID, scopes=scopes)
    return answer["access_token"]


@pytest.fixture
def bearer(service_app: tuple[Starlette, ServiceContext]) -> Callable[..., dict[str, str]]:
    """bearer(*scopes) -> {"authorization": "Bearer ..."}; no scopes means every scope."""
    def make(*scopes: str) -> dict[str, str]:
        token = issue_token(service_app[1], tuple(scopes) or ALL_SCOPES)
        return {"authorization": f"Bearer {token}"}

    return make


@pytest.fixture
def demo(service_app: tuple[Starlette, ServiceContext]) -> Demo:
    ctx = service_app[1]
    assert ctx.demo_org_uuid is not None and ctx.demo_project_uuid is not None
    return Demo(ctx.demo_org_uuid, ctx.demo_project_uuid)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    """The Design harness over this test's data dir: the real Design routes and MCP
    endpoint behind the gate, a stub authenticator, an injectable clock. A module whose
    harness serves another table or service defines its own `h`."""
    with build_harness(tmp_path) as harness:
        yield harness


@pytest.fixture
def consented(h: Harness) -> Harness:
    """`h` once alice has given consent for agents."""
    h.consent()
    return h


@pytest.fixture
def m(consented: Harness) -> McpClient:
    """An initialized MCP session of alice, who has given consent."""
    return consented.mcp().initialize()
