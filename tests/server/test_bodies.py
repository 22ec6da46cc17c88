"""Pure rules of the reference service: body parsing, field checks, doc names, chunking,
query expressions and the token estimate, each at its boundaries."""

from __future__ import annotations

import pytest

from jupyter_design_projects.server import bodies
from jupyter_design_projects.server.envelopes import ApiError
from jupyter_design_projects.server.projects import search
from jupyter_design_projects.server.projects import store as projects_store


@pytest.mark.parametrize("raw", [
    b"", b"{", b"[1, 2]", b'"text"', b"null", b"\xff\xfe", b'{"a": NaN}', b'{"a": Infinity}',
    b"[" * 100_000,
])
def test_bodies_that_are_not_a_json_object_are_400(raw: bytes) -> None:
    with pytest.raises(ApiError) as caught:
        bodies.parse_object(raw)
    assert (caught.value.status, caught.value.kind) == (400, "invalid_request_error")


def test_a_json_object_parses() -> None:
    assert bodies.parse_object(b'{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}


@pytest.mark.parametrize("name", [
    "a", "notes.md", "claude/notes.md", "deep/er/notes v2.md", "x" * 255, "ünïcode.md",
])
def test_doc_names_accepted(name: str) -> None:
    assert bodies.doc_name(name) == name


@pytest.mark.parametrize("name", [
    "", "x" * 256, "/etc/passwd", "../secret.md", "a/../b.md", "a//b.md", "./a.md", "a/.",
    "a\\b.md", "a\x00b", "line\nbreak.md", "zero\u200bwidth.md", "dots\u2025.md",
    "full\uff0fwidth.md", "div\u2215ision.md", " padded.md", "trailing/", 42, None, ["a"],
])
def test_doc_names_refused(name: object) -> None:
    with pytest.raises(ApiError) as caught:
        bodies.doc_name(name)
    assert caught.value.kind == "invalid_request_error"


@pytest.mark.parametrize(("value", "ok"), [
    (0, False), (1, True), (15, True), (16, False), ("1", True), ("15", True), ("16", False),
    ("0", False), ("-1", False), ("1.5", False), (1.0, False), (True, False), ("", False),
    ("١", False), (None, False), ("9" * 30, False),
])
def test_integer_bounds_for_search_n(value: object, ok: bool) -> None:
    if ok:
        assert bodies.integer(value, "n", low=1, high=15) == int(value)  # type: ignore[arg-type]
    else:
        with pytest.raises(ApiError):
            bodies.integer(value, "n", low=1, high=15)


@pytest.mark.parametrize(("text", "tokens"), [
    ("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("é", 1), ("€€", 2), ("x" * 4000, 1000),
])
def test_estimated_tokens_are_ceil_of_utf8_bytes_over_four(text: str, tokens: int) -> None:
    assert projects_store.estimate_tokens(text) == tokens


@pytest.mark.parametrize("text", [
    "short", "para one\n\npara two", ("word " * 1000).strip(), "x" * 2000,
    "\n\n".join(["p" * 500] * 5),
])
def test_chunks_never_exceed_the_chunk_size_and_keep_every_word(text: str) -> None:
    pieces = search.chunks(text)
    assert all(0 < len(p) <= search.CHUNK_CHARS for p in pieces)
    assert "".join(pieces).replace("\n", "").replace(" ", "") == \
        text.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize(("query", "expression"), [
    ("retention", '"retention"'),
    ("raw logs raw", '"raw" OR "logs"'),
    ('a" OR b NEAR(c', '"a" OR "or" OR "b" OR "near" OR "c"'),
    ("col:value*", '"col" OR "value"'),
])
def test_queries_become_quoted_terms_so_no_fts_syntax_gets_through(query: str,
                                                                   expression: str) -> None:
    assert " OR ".join(search.query_terms(query)) == expression


@pytest.mark.parametrize("query", ["", "   ", "!!! ???", '"*"'])
def test_queries_without_words_are_400(query: str) -> None:
    with pytest.raises(ApiError) as caught:
        search.query_terms(query)
    assert caught.value.kind == "invalid_request_error"


@pytest.mark.parametrize(("value", "ok"), [
    ("0b3b6f50-3689-4906-9049-d6c9c86f2f98", True),
    ("0B3B6F50-3689-4906-9049-D6C9C86F2F98", False),
    ("{0b3b6f50-3689-4906-9049-d6c9c86f2f98}", False),
    ("urn:uuid:0b3b6f50-3689-4906-9049-d6c9c86f2f98", False),
    ("0b3b6f5036894906 9049d6c9c86f2f98", False),
    ("0b3b6f50368949069049d6c9c86f2f98", False),
])
def test_only_canonical_uuids_are_ids(value: str, ok: bool) -> None:
    assert projects_store.is_uuid(value) is ok
