"""Benchmark of the whole client stack as a notebook uses it, against raw httpx.

Through one `Session` (background loop, BearerAuth, caps, the pipelines, the sync
facade `session.run`) on the real reference service on loopback, the median cost of:
a Projects search (`ProjectsClient.search`) against a raw httpx GET of the same
`/kb/search` route (and the same GET on an AsyncClient through the session's loop, to
show what the thread hop itself costs), and a read-only Design call
(`DesignClient.call`, with validation, the catalogue floor and the permission
decision) against a raw httpx JSON-RPC POST.
Baselines are measured in the same run; nothing is asserted.

    .venv/bin/python bench/bench_session.py [--calls 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

WARMUP = 20


def median_ms(call: Callable[[], object], calls: int) -> float:
    for _ in range(WARMUP):
        call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    calls = parser.parse_args().calls
    with Session.open(Settings.resolve({}), data_dir=Path(tempfile.mkdtemp())) as s:
        s.run(s.projects.info())  # scope expansion happens once, outside the timing
        s.run(s.design.consent())
        token = s.run(s.credentials.access_token()).reveal()
        base, org, project = (s.settings.api_base_url, s.settings.org_uuid,
                              s.settings.project_uuid)
        search_url = f"{base}/api/organizations/{org}/projects/{project}/kb/search"
        with httpx.Client(headers={"Authorization": f"Bearer {token}"}) as raw:
            raw_search = median_ms(
                lambda: raw.get(search_url, params={"query": "retention", "n": 5}).json(),
                calls)
            ours_search = median_ms(lambda: s.run(s.projects.search("retention", 5)), calls)
            # the same raw GET, but async on the session's background loop: what the
            # thread hop and the async client cost, before any of our code runs
            aclient = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            hop_search = median_ms(lambda: s.run(aclient.get(
                search_url, params={"query": "retention", "n": 5})).json(), calls)
            s.run(aclient.aclose())

            mcp = f"{base}/v1/design/mcp"
            headers = {"Accept": "application/json, text/event-stream",
                       "Content-Type": "application/json"}
            init = raw.post(mcp, headers=headers, content=json.dumps({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}}}))
            headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
            raw.post(mcp, headers=headers, content=json.dumps(
                {"jsonrpc": "2.0", "method": "notifications/initialized"}))
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": "list_design_systems", "arguments": {}}})
            raw_design = median_ms(lambda: raw.post(mcp, headers=headers, content=body).json(),
                                   calls)
            ours_design = median_ms(
                lambda: s.run(s.design.call("list_design_systems", {})), calls)

    print(f"median per call, {calls} calls each, loopback, one Session:")
    print(f"  raw httpx GET kb/search (baseline)   {raw_search:7.3f} ms  1.00x")
    print(f"  raw httpx.AsyncClient on the loop    {hop_search:7.3f} ms  "
          f"{hop_search / raw_search:.2f}x")
    print(f"  session.projects.search              {ours_search:7.3f} ms  "
          f"{ours_search / raw_search:.2f}x")
    print(f"  raw httpx tools/call (baseline)      {raw_design:7.3f} ms  1.00x")
    print(f"  session.design.call                  {ours_design:7.3f} ms  "
          f"{ours_design / raw_design:.2f}x")


if __name__ == "__main__":
    main()
