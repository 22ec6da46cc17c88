"""What the reference service loads to answer a first Projects call (issue 41: the first
call is fast again): the service as `python -m jupyter_design_projects.server` builds it,
its lifespan running, answering a search; neither the MCP SDK (nor pydantic, its models),
the Design table, the fault switches nor platformdirs is imported on that path. Each
check runs in a fresh interpreter, and a second probe shows the check can fail."""

from __future__ import annotations

import os
from pathlib import Path

from tests.import_probe import among, probe_answer

#: never on the Projects path of a service started without --faults and --data-dir given
OFF_THE_PROJECTS_PATH = (
    "mcp", "mcp_types", "pydantic", "pydantic_core", "platformdirs",
    "jupyter_design_projects.server.design.mcp", "jupyter_design_projects.server.faults",
    "jupyter_design_projects.core.design_operations", "jupyter_design_projects.errors",
)

PROBE = """
import json, sys
from jupyter_design_projects.server import cli, oauth
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.context import DEMO_USER_ID

config = cli.config_from(cli.parse_args(["--data-dir", {data_dir!r}, "--seed", "demo",
                                         "--no-warm-browser"]))
app = create_app(config)
ctx = app.state.ctx
with ctx.db.transaction() as conn:
    token = oauth.issue_tokens(ctx, conn, user_id=DEMO_USER_ID,
                               client_id=oauth.FIRST_PARTY_CLIENT_ID,
                               scopes=tuple(sorted(oauth.KNOWN_SCOPES)))["access_token"]
from starlette.testclient import TestClient

base = f"/api/organizations/{{ctx.demo_org_uuid}}/projects/{{ctx.demo_project_uuid}}"
with TestClient(app, base_url="http://127.0.0.1") as client:
    answer = client.get(base + "/kb/search", params={{"query": "retention"}},
                        headers={{"Authorization": "Bearer " + token}})
    assert answer.status_code == 200 and answer.json()["text_results"], answer.text
    {extra}
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(tmp_path: Path, extra: str = "pass") -> set[str]:
    """Every module a fresh interpreter holds once the service answered a search."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JDP_", "CLAUDE_"))}
    code = PROBE.format(data_dir=str(tmp_path / "service"), extra=extra)
    return set(probe_answer(code, env))


def test_a_projects_search_loads_neither_the_mcp_sdk_nor_the_design_table(tmp_path):
    assert among(_loaded(tmp_path), OFF_THE_PROJECTS_PATH) == set()


def test_the_probe_would_see_the_design_side_once_a_design_call_reads_its_table(tmp_path):
    """The check above can fail: the gate reading the table (a Design call) loads it."""
    loaded = _loaded(tmp_path, 'ctx.design_operations.get("list_design_systems")')
    assert "jupyter_design_projects.core.design_operations" in loaded
