"""A HAR written by `%design trace --har` in Chromium, two ways:

- Chromium's own DevTools HAR importer — the module the Network panel's "Import HAR file"
  runs (`models/har`: `HARFormat.HARRoot`, then `Importer.requestsFromHARLog`), loaded from
  the browser's bundled DevTools front end — reads every entry into network requests with
  their method, URL, status, type, size, headers and body, and one with no answer as
  status 0.
  What it does not do is click the panel's button and draw the rows: no automation API
  drives DevTools' own UI, so the panel's table is not checked.
- Playwright's `route_from_har` answers a page's requests from our file, and the page sees
  the recorded status and body."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.notebook.views.trace import write_har
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.faults_client import faults

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


DEVTOOLS = "devtools://devtools/bundled/devtools_app.html"
#: what the Network panel's HAR import does with a file's JSON, minus drawing the rows
IMPORT = """async (har) => {
  const {HARFormat, Importer} = await import('./models/har/har.js');
  const requests = Importer.Importer.requestsFromHARLog(new HARFormat.HARRoot(har).log);
  const out = [];
  for (const r of requests) {
    const content = await r.requestContentData();
    out.push({url: r.url(), method: r.requestMethod, status: r.statusCode,
              statusText: r.statusText, type: r.resourceType().name(), size: r.resourceSize,
              requestHeaders: r.requestHeaders().map(h => h.name),
              body: content && content.text !== undefined ? content.text : null});
  }
  return out;
}"""


def test_chromium_devtools_har_importer_reads_every_entry(chromium, recorded, tmp_path):
    path, entries = recorded
    document = json.loads(path.read_text())
    document["log"]["entries"].append(_no_answer(entries[0]))
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(DEVTOOLS)
        imported = page.evaluate(IMPORT, document)
    finally:
        context.close()
    assert len(imported) == len(entries) + 1
    unanswered = [r for r in imported if r["status"] == 0]
    assert [r["url"] for r in unanswered] == [entries[0]["request"]["url"]]
    # (the importer orders requests by their start; compare them as sets of facts)
    seen = sorted(json.dumps([r["url"], r["method"], r["status"], r["statusText"], r["type"],
                              r["size"], r["body"], r["requestHeaders"]])
                  for r in imported if r["status"])
    recorded_facts = sorted(json.dumps([
        e["request"]["url"], e["request"]["method"], e["response"]["status"],
        e["response"]["statusText"], "fetch", e["response"]["content"]["size"],
        e["response"]["content"]["text"], [h["name"] for h in e["request"]["headers"]]])
        for e in entries)
    assert seen == recorded_facts


def _no_answer(entry):
    """`entry` as an exchange that never got an answer (how the trace writes one)."""
    failed = json.loads(json.dumps(entry))
    failed["response"].update(status=0, statusText="", headers=[], bodySize=-1,
                              _error="no answer")
    failed["response"]["content"] = {"size": 0, "mimeType": "x-unknown", "text": ""}
    return failed
