"""Knowledge estimates and the pre-check, size limits, search range and the result cap."""

from __future__ import annotations

import json

import pytest

from jupyter_design_projects.core import budgets
from jupyter_design_projects.errors import KnowledgeBudgetExceeded


@pytest.mark.parametrize(
    ("n_bytes", "tokens"),
    [(0, 0), (1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 3), (1_000_001, 250_001)],
)
def test_estimate_is_ceil_of_bytes_over_four(n_bytes: int, tokens: int) -> None:
    assert budgets.estimate_tokens(n_bytes) == tokens


@pytest.mark.parametrize(
    ("size", "maximum", "n_bytes"),
    [(0, 0, 0), (96, 100, 16), (99, 100, 1), (100, 100, 0), (0, 2_000_000, 8_000_000)],
)
def test_knowledge_check_allows_up_to_the_maximum(size: int, maximum: int, n_bytes: int) -> None:
    assert budgets.check_knowledge(size, maximum, n_bytes) == budgets.estimate_tokens(n_bytes)


@pytest.mark.parametrize(
    ("size", "maximum", "n_bytes", "estimate"),
    [(96, 100, 17, 5), (100, 100, 1, 1), (0, 2_000_000, 8_000_001, 2_000_001)],
)
def test_knowledge_check_refuses_one_past_the_maximum(
    size: int, maximum: int, n_bytes: int, estimate: int
) -> None:
    with pytest.raises(KnowledgeBudgetExceeded) as caught:
        budgets.check_knowledge(size, maximum, n_bytes)
    assert (caught.value.knowledge_size, caught.value.estimate,
            caught.value.max_knowledge_size) == (size, estimate, maximum)


@pytest.mark.parametrize(("removed", "n_bytes", "fits"), [
    (10, 4 * 14, True), (10, 4 * 14 + 1, False), (0, 4 * 4, True), (0, 4 * 4 + 1, False)])
def test_a_write_counted_net_frees_the_tokens_of_the_doc_it_replaces(removed, n_bytes,
                                                                      fits) -> None:
    """knowledge 96 of 100: a sync's replace of a 10-token doc may bring 14 tokens."""
    if fits:
        assert budgets.check_knowledge(96, 100, n_bytes, removed_tokens=removed) == \
            budgets.estimate_tokens(n_bytes)
        return
    with pytest.raises(KnowledgeBudgetExceeded) as caught:
        budgets.check_knowledge(96, 100, n_bytes, removed_tokens=removed)
    assert (caught.value.knowledge_size, caught.value.estimate) == (
        96 - removed, budgets.estimate_tokens(n_bytes))


@pytest.mark.parametrize(
    ("n_bytes", "inline"),
    [(0, True), (budgets.INLINE_MAX_BYTES, True), (budgets.INLINE_MAX_BYTES + 1, False)],
)
def test_inline_limit(n_bytes: int, inline: bool) -> None:
    assert budgets.fits_inline(n_bytes) is inline


@pytest.mark.parametrize(
    ("n", "ok"),
    [(0, False), (1, True), (5, True), (15, True), (16, False), (-1, False), (True, False),
     (5.0, False), ("5", False), (None, False)],
)
def test_search_n_range(n: object, ok: bool) -> None:
    assert budgets.search_n_allowed(n) is ok


def test_limits_match_the_spec() -> None:
    assert (budgets.INLINE_MAX_BYTES, budgets.RAW_MAX_BYTES, budgets.UPLOAD_MAX_BYTES,
            budgets.RESULT_MAX_CHARS) == (262_144, 20_971_520, 26_214_400, 300_000)


def _size(result: dict) -> int:
    return len(json.dumps(result, ensure_ascii=False))


def test_a_result_that_fits_is_not_spilled() -> None:
    result = {"content": "x" * 100}
    assert budgets.plan_result(result, limit=_size(result)) is None


@pytest.mark.parametrize(
    "result",
    [
        {"docs": [{"path": f"doc-{i}.md", "doc_uuid": "u" * 36} for i in range(20_000)]},
        {"hits": [{"text": "y" * 50_000} for _ in range(15)], "query": "q"},
        {"nested": {"deeper": [{"text": "z" * 350_000}]}},
        {"content": "x" * 400_000, "docs": ["d" * 300_000]},  # not its content alone
    ],
)
def test_an_oversized_result_is_saved_whole_as_json_with_a_preview(result: dict) -> None:
    original = json.dumps(result)
    spill = budgets.plan_result({"method": "project_info", **result, "framing": "data"})
    assert spill is not None and spill.name == "result.json"
    assert json.loads(spill.text) == {"method": "project_info", **result, "framing": "data"}
    shown = budgets.spilled_result(spill, "/tmp/x/project-doc-1.json")
    assert shown["local_file"] == "/tmp/x/project-doc-1.json"
    assert (shown["method"], shown["framing"], shown["spilled"]) == (
        "project_info", "data", True)
    assert shown["preview"] == spill.text[:budgets.RESULT_PREVIEW_CHARS]
    assert _size(shown) <= budgets.RESULT_MAX_CHARS
    assert json.dumps(result) == original  # the input is untouched


@pytest.mark.parametrize("content", ["x" * 400_000, "é" * 400_000, "\n" * 200_000,
                                     '"\t' * 100_000])
def test_an_oversized_content_is_saved_as_the_doc_itself(content: str) -> None:
    result = {"method": "project_read", "path": "notes/a.csv", "kind": "doc",
              "content": content, "bytes": len(content.encode())}
    spill = budgets.plan_result(result)
    assert spill is not None and (spill.text, spill.name) == (content, "notes/a.csv")
    shown = budgets.spilled_result(spill, "/f")
    assert "content" not in shown and shown["bytes"] == result["bytes"]
    assert shown["preview"] == content[:budgets.RESULT_PREVIEW_CHARS]
    assert shown["result_chars"] == _size(result)


def test_the_ceiling_boundary_is_exact() -> None:
    overhead = _size({"content": ""})
    exact = {"content": '"' * ((budgets.RESULT_MAX_CHARS - overhead) // 2)}
    exact["content"] += "x" * (budgets.RESULT_MAX_CHARS - _size(exact))
    assert _size(exact) == budgets.RESULT_MAX_CHARS
    assert budgets.plan_result(exact) is None
    over = {"content": exact["content"] + "x"}
    spill = budgets.plan_result(over)
    assert spill is not None and spill.text == over["content"]


@pytest.mark.parametrize(
    ("action", "cap"),
    [
        ("download", 30 * 1024 * 1024),
        ("read doc", 51 * 1024 * 1024),
        ("replace doc", 51 * 1024 * 1024),
        ("detail", 4 * 1024 * 1024),
        ("search", 1024 * 1024),
        ("delete doc", 64 * 1024),
        ("an action nobody listed", 64 * 1024),
    ],
)
def test_each_projects_operation_has_its_own_answer_cap(action: str, cap: int) -> None:
    assert budgets.answer_max_bytes(action) == cap


@pytest.mark.parametrize("action", ["read doc", "read extracted text", "create doc",
                                    "replace doc"])
def test_a_doc_cap_holds_the_largest_upload_with_every_byte_escaped(action) -> None:
    assert 2 * budgets.UPLOAD_MAX_BYTES < budgets.answer_max_bytes(action)


def test_the_download_cap_holds_a_full_20_mib_upload_as_base64() -> None:
    base64_chars = -(-budgets.RAW_MAX_BYTES // 3) * 4
    assert base64_chars < budgets.answer_max_bytes("download")


def test_a_content_spill_says_what_was_saved_and_where_the_preview_comes_from() -> None:
    result = {"path": "a.md", "content": "x" * 400_000}
    spill = budgets.plan_result(result)
    assert spill is not None
    assert spill.shown["note"] == (
        f"The result is {_size(result):,} characters as JSON, over the 300,000-character "
        "limit, so its content was saved whole to local_file (mode 0600); preview is its "
        "first 2,000 characters.")


def test_a_json_spill_says_the_whole_result_was_saved_and_keeps_its_letters() -> None:
    result = {"docs": ["caf\u00e9 " * 100_000]}
    spill = budgets.plan_result(result)
    assert spill is not None and spill.text == json.dumps(result, ensure_ascii=False)
    assert spill.shown["note"] == (
        f"The result is {_size(result):,} characters as JSON, over the 300,000-character "
        "limit, so the whole result as JSON was saved whole to local_file (mode 0600); "
        "preview is its first 2,000 characters.")


def test_a_content_spill_without_a_path_has_no_name() -> None:
    spill = budgets.plan_result({"content": "x" * 400_000})
    assert spill is not None and spill.name == ""


def test_a_content_spill_needs_room_for_the_file_path_exactly() -> None:
    result = {"path": "a.md", "content": "x" * 20_000}
    roomy = budgets.plan_result(result, limit=9_000)
    assert roomy is not None and roomy.name == "a.md"
    # the same number of digits in the limit: the shown fields are as long at the boundary
    boundary = _size(roomy.shown) + budgets.LOCAL_FILE_ROOM
    assert 1_000 <= boundary <= 9_999
    assert budgets.plan_result(result, limit=boundary).name == "a.md"
    assert budgets.plan_result(result, limit=boundary - 1).name == "result.json"


def test_a_json_spill_keeps_fields_of_at_most_1024_characters_as_json() -> None:
    result = {"docs": ["d" * 400_000], "path": "p" * 1_022, "notice": "n" * 1_023}
    spill = budgets.plan_result(result)
    assert spill is not None
    assert spill.shown["path"] == "p" * 1_022 and "notice" not in spill.shown
