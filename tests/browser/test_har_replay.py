"""A HAR written by `%design trace --har` replays in Chromium: Playwright's
`route_from_har` answers the page's requests from our file, and the page sees the recorded
status and body. This shows that Playwright's HAR reader (the one Chromium-based tools
share the format with) accepts the file; it does not drive DevTools' own Network-panel
import, which no automation API reaches (see README, "Sharing a trace")."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from faults_client import faults

from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.notebook.trace import write_har
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

pytestmark = pytest.mark.browser


@pytest.fixture
def recorded(reference_service, tmp_path):
    """A HAR of two Projects detail reads (GETs a page can make): answered 200, then 503."""
    service = reference_service
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid, "http_trace": True,
        "credentials_file": str(service.credentials_file)})
    with Session(settings, data_dir=tmp_path / "data") as session:
        session.run(session.projects.call("project_info", {}))
        detail = session.trace.records()[-1]["url"]
        faults(service).fail(urlsplit(detail).path, status=503, body={"error": "busy"})
        with pytest.raises(JdpError):
            session.run(session.projects.call("project_info", {}))
        path = tmp_path / "replay.har"
        write_har(session.trace, str(path))
    return path, json.loads(path.read_text())["log"]["entries"]


def test_chromium_replays_our_har_and_gets_the_recorded_answers(chromium, recorded):
    path, entries = recorded
    details = [e for e in entries if e["_action"] == "detail"]
    assert [e["response"]["status"] for e in details] == [200, 503]
    context = chromium.new_context()
    try:
        context.route_from_har(str(path), not_found="abort")
        page = context.new_page()
        answer = page.goto(details[0]["request"]["url"])
        assert answer is not None and answer.status == 200
        assert answer.text() == details[0]["response"]["content"]["text"]
        assert answer.text().startswith('{"uuid": ')  # (cut at the trace's cap: _truncated)
        # a URL the HAR does not hold is not fetched from the network: the replay is ours
        with pytest.raises(Exception, match="net::ERR_FAILED"):
            page.goto(details[0]["request"]["url"] + "-not-recorded")
    finally:
        context.close()
