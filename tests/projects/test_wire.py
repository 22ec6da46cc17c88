"""Projects answers → errors and values, in one place: both error shapes, redaction before
truncation, and the detail shape the client relies on."""

from __future__ import annotations

import json

import httpx
import pytest

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import MalformedProjectsAnswer, ProjectsApiError
from jupyter_design_projects.projects import wire
from jupyter_design_projects.transport.http import Answer

TOKEN = "sk-live-token-abcdefghijklmnop"


def answer(status: int, body: bytes | dict | list) -> Answer:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Answer(status, httpx.Headers({"content-type": "application/json"}), raw, "detail")


@pytest.mark.parametrize(("body", "expected"), [
    ({"type": "error", "error": {"type": "not_found_error", "message": "No doc"},
      "request_id": "req_1"}, "not_found_error: No doc"),
    ({"error": "No doc", "code": "not_found"}, "not_found: No doc"),
    (b"<html>bad gateway</html>", "<html>bad gateway</html>"),
    ({"detail": "other"}, '{"detail": "other"}'),
])
def test_both_error_shapes_become_projects_api_errors(body, expected) -> None:
    with pytest.raises(ProjectsApiError) as caught:
        wire.check(answer(502, body))
    assert (caught.value.action, caught.value.status, caught.value.body) == (
        "detail", 502, expected)


@pytest.mark.parametrize("status", [200, 201, 204, 299])
def test_2xx_answers_pass(status: int) -> None:
    assert wire.check(answer(status, {})).status == status


@pytest.mark.parametrize("status", [199, 300, 403, 500])
def test_other_statuses_raise(status: int) -> None:
    with pytest.raises(ProjectsApiError):
        wire.check(answer(status, {}))


def test_a_token_is_redacted_before_the_body_is_cut() -> None:
    padding = "x" * (wire.ERROR_BODY_CHARS - 20)
    body = {"error": padding + TOKEN, "code": "e"}
    with pytest.raises(ProjectsApiError) as caught:
        wire.check(answer(400, body), [Secret(TOKEN)])
    assert "sk-live" not in caught.value.body and "sk-live" not in str(caught.value)
    assert len(caught.value.body) <= wire.ERROR_BODY_CHARS + 1


def test_a_json_escaped_token_is_redacted() -> None:
    with pytest.raises(ProjectsApiError) as caught:
        wire.check(answer(400, b'{"error": "' + TOKEN.encode() + b'"}'), [Secret(TOKEN)])
    assert REDACTED in caught.value.body


DETAIL = {
    "uuid": "p", "name": "n", "description": "", "prompt_template": "",
    "documents": [{"uuid": "d", "file_name": "a.md", "created_at": "t",
                   "estimated_token_count": 3}],
    "files": [{"file_uuid": "f", "file_name": "b.png", "file_kind": "image",
               "file_size_bytes": 10, "mime_type": "image/png", "created_at": "t"}],
    "sync_sources": [],
    "knowledge_stats": {"knowledge_size": 3, "max_knowledge_size": 100},
}


def test_a_detail_is_parsed() -> None:
    detail = wire.parse_detail(DETAIL)
    assert detail.doc("a.md").uuid == "d" and detail.file("b.png").file_size_bytes == 10
    assert detail.paths() == ["a.md", "b.png"]
    assert (detail.knowledge_size, detail.max_knowledge_size) == (3, 100)


@pytest.mark.parametrize("broken", [
    {"documents": None},
    {"documents": [{"file_name": "a.md"}]},
    {"documents": ["a.md"]},
    {"files": [{"file_uuid": "f"}]},
    {"knowledge_stats": {"knowledge_size": "3", "max_knowledge_size": 100}},
    {"knowledge_stats": {"knowledge_size": True, "max_knowledge_size": 100}},
    {"knowledge_stats": None},
])
def test_a_detail_of_the_wrong_shape_is_refused(broken: dict) -> None:
    with pytest.raises(MalformedProjectsAnswer):
        wire.parse_detail({**DETAIL, **broken})


def test_an_error_body_is_redacted_before_it_is_cut_even_with_wide_characters() -> None:
    import httpx

    from jupyter_design_projects.core.redaction import Secret
    from jupyter_design_projects.projects.wire import ERROR_BODY_CHARS, error_body
    from jupyter_design_projects.transport.http import Answer

    token = "zqxSECRETzqx" + "k" * 40
    # four-byte characters put the token's start inside the shown characters and its
    # bytes across any byte-based cut made before redaction
    body = ("\U0001f600" * (ERROR_BODY_CHARS - 3) + token).encode()
    shown = error_body(Answer(500, httpx.Headers(), body, "read"), [Secret(token)])
    assert "zqx" not in shown


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "refused"), [(1024 * 1024, False), (1024 * 1024 + 1, True)])
async def test_a_search_answer_is_capped_at_its_own_limit(size: int, refused: bool) -> None:
    import httpx

    from jupyter_design_projects.core.redaction import Secret
    from jupyter_design_projects.errors import ProjectsTransportFailed
    from jupyter_design_projects.projects.api import SessionApi

    head = b'{"text_results": [], "rich_content_results": [], "pad": "'
    body = head + b"x" * (size - len(head) - 2) + b'"}'
    assert len(body) == size

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"},
                              stream=httpx.ByteStream(body))

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
        api = SessionApi(http, "http://127.0.0.1:9", Secret("jwt-value-for-the-test"))
        if refused:
            with pytest.raises(ProjectsTransportFailed) as caught:
                await api.search("retention", 5)
            assert (caught.value.limit, caught.value.reason, caught.value.status) == (
                1024 * 1024, "too_large", 200)
        else:
            assert (await api.search("retention", 5))["pad"].startswith("x")


def test_a_doc_parsed_without_its_content_keeps_the_rest():
    from jupyter_design_projects.projects import wire

    doc = {"uuid": "0f8fad5b-d9cb-469f-a165-70867728950e", "file_name": "a.md",
           "content": "text", "created_at": "x"}
    assert wire.parse_doc(dict(doc), "create doc", keep_content=False) == {
        k: v for k, v in doc.items() if k != "content"}
    assert wire.parse_doc(dict(doc), "create doc") == doc


@pytest.mark.parametrize("text", ["", "ascii only", "é€𝄞", "mixed é and ascii"])
def test_utf8_size_is_the_encoded_length(text):
    from jupyter_design_projects.projects.doc_changes import utf8_size

    assert utf8_size(text) == len(text.encode("utf-8"))
