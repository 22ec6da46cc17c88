"""Spec fidelity of the Projects pipeline (issue 13), each test named by its clause, against
the real reference service on loopback: the gates in §11's order (essential traffic closes
Projects with no request sent), transport failures as `ProjectsApiError` (§12), the raw
fallback of a document whose extraction failed (§13), `present_to_user` (§17), and the
strict-by-default `--encoding` choice for local_path uploads (§15)."""

from __future__ import annotations

import base64
import dataclasses
import socket
import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import ANSWER_MAX_BYTES
from jupyter_design_projects.errors import (
    GateClosed,
    InvalidProjectsArgument,
    ProjectsApiError,
    ProjectsTransportFailed,
    UploadRejected,
)
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.projects import api as api_module
from tests.faults_client import FaultsClient
from tests.projects.projects_harness import settings_for

ROUTES = ["org", "remote-session"]


def requests_seen(switches: FaultsClient) -> int:
    """Every HTTP request the service answered, fault routes aside (the counts also hold
    per-op tallies, `session:<op>` and `mcp:<method>`, which are not requests)."""
    return sum(n for key, n in switches.counts().items()
               if " /" in key and "/_faults" not in key)


def unique(stem: str) -> str:
    return f"team/{stem}-{uuid.uuid4().hex[:8]}.md"


# ---------------------------------------------------------------- §11: the gates, in order


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("call", ["info", "read", "search", "write", "delete"])
async def test_s11_essential_traffic_only_closes_projects_and_sends_nothing(
        service, switches, open_projects, route, call) -> None:
    settings = settings_for(service, route, essential_traffic_only=True)
    args = {"info": {}, "read": {"path": "onboarding.md"}, "search": {"query": "q"},
            "write": {"path": "a.md", "content": "x"}, "delete": {"path": "a.md"}}[call]
    before = requests_seen(switches)
    async with open_projects(service, route, settings=settings) as client:
        assert client.enabled is False
        with pytest.raises(GateClosed) as caught:
            await getattr(client, call)(**args)
        assert client.expander.calls == 0  # the credentials come after the gates
    assert (caught.value.tool, caught.value.gate) == ("Projects", "essential_traffic_only")
    assert "essential-traffic-only" in str(caught.value)
    assert requests_seen(switches) == before


@pytest.mark.asyncio
@pytest.mark.parametrize(("closed", "named"), [
    ({"allow_projects_tool": False, "api_base_url": "", "essential_traffic_only": True},
     "allow_projects_tool"),
    ({"api_base_url": "", "essential_traffic_only": True}, "api_base_url"),
    ({"essential_traffic_only": True}, "essential_traffic_only"),
    ({"essential_traffic_only": True, "project_uuid": ""}, "essential_traffic_only"),
])
async def test_s11_gates_are_checked_policy_first_party_essential_traffic_then_the_rest(
        service, open_projects, closed, named) -> None:
    settings = dataclasses.replace(settings_for(service, "org"), **closed)
    async with open_projects(service, "org", settings=settings) as client:
        with pytest.raises(GateClosed) as caught:
            await client.call("project_info", {})
        assert client.expander.calls == 0
    assert caught.value.gate == named


# ---------------------------------------------------------------- §12: transport failures


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_s12_a_refused_connection_is_a_projects_api_error_without_a_status(
        service, open_projects, route) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    settings = settings_for(service, route, api_base_url=url, web_base_url=url,
                            org_uuid=service.org_uuid)
    async with open_projects(service, route, settings=settings) as client:
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    error = caught.value
    assert isinstance(error, ProjectsTransportFailed)
    assert (error.action, error.route, error.status) == ("detail", route, None)
    assert error.reason == "connect"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_s12_a_missed_deadline_is_a_projects_api_error(
        service, switches, open_projects, route, monkeypatch) -> None:
    monkeypatch.setattr(api_module, "DEADLINE_S", 0.2)
    path = ("/v2/ccr-sessions/-/chat-project" if route == "remote-session"
            else f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}/detail")
    async with open_projects(service, route) as client:
        await client.info()  # scopes expanded, org known: the next request is the detail
        switches.latency(path, ms=3_000)
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    assert isinstance(caught.value, ProjectsTransportFailed)
    assert (caught.value.reason, caught.value.route, caught.value.status) == (
        "deadline", route, None)


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_s12_an_answer_over_its_cap_is_a_projects_api_error_with_its_status(
        service, switches, open_projects, route) -> None:
    path = ("/v2/ccr-sessions/-/chat-project" if route == "remote-session"
            else f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}/detail")
    limit = ANSWER_MAX_BYTES["detail"]
    async with open_projects(service, route) as client:
        await client.info()
        switches.oversize(path, size=limit + 1)
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    error = caught.value
    assert isinstance(error, ProjectsTransportFailed)
    assert (error.reason, error.limit, error.status, error.route) == (
        "too_large", limit, 200, route)


@pytest.mark.asyncio
async def test_s12_a_refusal_keeps_its_route_and_status(service, switches, open_projects) -> None:
    async with open_projects(service, "org") as client:
        await client.info()
        switches.fail("/api/organizations/*", method="GET", status=502)
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    assert not isinstance(caught.value, ProjectsTransportFailed)
    assert (caught.value.status, caught.value.route, caught.value.action) == (502, "org",
                                                                                "detail")


# ---------------------------------------------------------------- §13: extraction failed


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_s13_a_document_whose_extraction_failed_is_downloaded_raw(
        service, switches, open_projects, route) -> None:
    name = f"scan-{uuid.uuid4().hex[:8]}.pdf"
    data = b"%PDF-1.4\n" + bytes(range(256)) * 8  # no extractable text
    file_uuid = switches.upload(file_name=name, file_kind="document",
                                mime_type="application/pdf",
                                data_b64=base64.b64encode(data).decode())
    async with open_projects(service, route) as client:
        result = await client.read(name)
    assert (result["kind"], result["file_uuid"], result["file_kind"]) == (
        "raw", file_uuid, "document")
    assert result["extraction_failed"] == "HTTP 404"
    assert Path(result["local_file"]).read_bytes() == data
    extracted = [k for k in switches.counts() if "/extracted" in k or k == "session:read-file"]
    assert extracted  # the extracted text was asked for first


@pytest.mark.asyncio
async def test_s13_a_transport_failure_on_the_extracted_text_is_not_papered_over(
        service, switches, open_projects) -> None:
    name = f"notes-{uuid.uuid4().hex[:8]}.txt"
    file_uuid = switches.upload(file_name=name, file_kind="document", mime_type="text/plain",
                                data_b64=base64.b64encode(b"zebra").decode(),
                                extracted="zebra")
    path = (f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}"
            f"/files/{file_uuid}/extracted")
    switches.oversize(path, size=ANSWER_MAX_BYTES["read extracted text"] + 1)
    async with open_projects(service, "org") as client:
        with pytest.raises(ProjectsTransportFailed):
            await client.read(name)


# ---------------------------------------------------------------- §17: present_to_user


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_s17_write_results_carry_present_to_user(
        service, switches, open_projects, tmp_path, route) -> None:
    (tmp_path / "note.md").write_text("from a file\n")
    async with open_projects(service, route) as client:
        direct = await client.write(unique("present"), content="x")
        dispatched = await client.call("project_write",
                                       {"path": unique("present"), "local_path": "note.md"})
        deleted = await client.delete(direct["path"])
    assert direct["present_to_user"] is True and dispatched["present_to_user"] is True
    assert "present_to_user" not in deleted


# ---------------------------------------------------------------- §15: encodings (a choice)


@pytest.mark.asyncio
async def test_s15_uploads_stay_strict_utf8_by_default(
        service, switches, open_projects, tmp_path) -> None:
    (tmp_path / "latin.txt").write_bytes("café crème\n".encode("latin-1"))
    async with open_projects(service, "org") as client:
        await client.info()
        before = requests_seen(switches)
        with pytest.raises(UploadRejected) as caught:
            await client.write(unique("latin"), local_path="latin.txt")
    assert caught.value.rule == "not_utf8"
    assert caught.value.remedy == Remedy("name_encoding")
    assert "encoding=" in caught.value.next_step
    assert "encoding=" in caught.value.to_dict()["next_step"]  # what an agent reads
    # the detail that resolves the path is read; nothing is written
    assert not [k for k, n in switches.counts().items() if k.startswith("POST /api/") and n]
    assert requests_seen(switches) - before <= 1


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16"])
async def test_s15_a_named_encoding_reads_other_text_files(
        service, switches, open_projects, tmp_path, route, encoding) -> None:
    text = "café crème, naïve résumé\n"
    (tmp_path / "other.txt").write_bytes(text.encode(encoding))
    name = unique("encoded")
    async with open_projects(service, route) as client:
        written = await client.write(name, local_path="other.txt", encoding=encoding)
        read = await client.read(written["path"])
    assert read["content"] == text
    assert written["bytes"] == len(text.encode("utf-8"))


@pytest.mark.asyncio
async def test_s15_bytes_that_do_not_decode_in_the_named_encoding_are_refused(
        service, switches, open_projects, tmp_path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"\x81\x8d\x8f\x90\x9d")  # undefined in cp1252
    async with open_projects(service, "org") as client:
        with pytest.raises(UploadRejected) as caught:
            await client.write(unique("bad"), local_path="bad.txt", encoding="cp1252")
    assert caught.value.rule == "undecodable"


@pytest.mark.asyncio
@pytest.mark.parametrize(("args", "field"), [
    ({"local_path": "x.txt", "encoding": "no-such-codec"}, "encoding"),
    ({"local_path": "x.txt", "encoding": "base64"}, "encoding"),  # not a text encoding
    ({"local_path": "x.txt", "encoding": "rot13"}, "encoding"),
    ({"content": "x", "encoding": "latin-1"}, "encoding"),
])
async def test_s15_an_encoding_that_is_not_a_text_encoding_is_refused_before_sending(
        service, switches, open_projects, tmp_path, args, field) -> None:
    (tmp_path / "x.txt").write_text("x")
    before = requests_seen(switches)
    async with open_projects(service, "org") as client:
        with pytest.raises(InvalidProjectsArgument) as caught:
            await client.write(unique("enc"), **args)
    assert caught.value.field == field
    assert requests_seen(switches) == before


# ---------------------------------------------------------------- answer caps


@pytest.mark.asyncio
async def test_a_doc_larger_than_16_mib_is_written_and_read_back_whole(
        service, switches, open_projects) -> None:
    """A project whose budget admits it can hold a doc as large as the largest local_path
    upload; its write (which echoes the doc) and its read are not cut by the answer caps."""
    content = ("0123456789abcdef" * 64 + "\n") * (17 * 1024 - 17)  # just over 17 MB
    assert len(content) > 16 * 1024 * 1024
    switches.knowledge(service.project_uuid, max_knowledge_size=20_000_000)
    name = unique("large") + ".md"
    async with open_projects(service, "org") as client:
        written = await client.write(name, content=content)
        read = await client.read(written["path"])
        await client.delete(written["path"])
    assert written["bytes"] == len(content)
    assert read["bytes"] == len(content) and "local_file" in read
    assert Path(read["local_file"]).read_text() == content
