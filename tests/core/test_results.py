"""core.results: the image, aggregate and tool-result caps, each at its exact boundary."""

from __future__ import annotations

import base64

import pytest

from jupyter_design_projects.core.result_limits import (
    base64_chars,
    image_budget,
)
from jupyter_design_projects.core.results import (
    AGGREGATE_MAX_CHARS,
    EMPTY_RESULT,
    IMAGE_MAX_CHARS,
    PREVIEW_CHARS,
    RESULT_MAX_CHARS,
    MappedResult,
    from_error,
    map_result,
    spilled,
    to_tool_result,
)
from jupyter_design_projects.errors import InvalidArguments, NeedsConsent


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def image(size: int) -> dict:
    return {"type": "image", "data": "A" * size, "mimeType": "image/png"}


def texts(mapped: MappedResult) -> list[str]:
    return [b["text"] for b in mapped.blocks if b["type"] == "text"]


def test_text_and_image_blocks_are_mapped() -> None:
    mapped = map_result({"content": [text("hello"), image(8)]})
    assert mapped == MappedResult(
        [text("hello"),
         {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                      "data": "A" * 8}}],
        False,
    )


@pytest.mark.parametrize(("size", "kept"), [(IMAGE_MAX_CHARS, True),
                                            (IMAGE_MAX_CHARS + 1, False)])
def test_image_over_130000_base64_chars_is_omitted(size: int, kept: bool) -> None:
    mapped = map_result({"content": [image(size)]})
    assert len(mapped.blocks) == 1
    if kept:
        assert mapped.blocks[0]["type"] == "image"
    else:
        assert mapped.blocks[0] == text(
            "[image omitted: 130,001 base64 chars over the 130,000 limit]")


@pytest.mark.parametrize(("last", "kept"), [(30_000, True), (30_001, False)])
def test_blocks_past_the_130000_aggregate_are_dropped(last: int, kept: bool) -> None:
    assert AGGREGATE_MAX_CHARS == 100_000 + 30_000
    mapped = map_result({"content": [image(100_000), image(last)]})
    kinds = [b["type"] for b in mapped.blocks]
    if kept:
        assert kinds == ["image", "image"]
    else:
        assert kinds == ["image", "text"]
        assert "1 content block(s) omitted" in mapped.blocks[1]["text"]


def test_every_block_after_the_aggregate_is_passed_is_dropped() -> None:
    mapped = map_result({"content": [image(130_000), text("a"), text("b")]})
    assert [b["type"] for b in mapped.blocks] == ["image", "text"]
    assert "2 content block(s) omitted" in mapped.blocks[1]["text"]


def test_aggregate_counts_text_and_image_together() -> None:
    mapped = map_result({"content": [text("x" * 50_000), image(80_000), image(1)]})
    assert [b["type"] for b in mapped.blocks] == ["text", "image", "text"]


@pytest.mark.parametrize(("size", "cut"), [(RESULT_MAX_CHARS, False),
                                           (RESULT_MAX_CHARS + 1, True)])
def test_tool_result_text_is_capped_at_100000(size: int, cut: bool) -> None:
    mapped = map_result({"content": [text("x" * size)]})
    total = sum(len(t) for t in texts(mapped))
    if cut:
        assert total <= RESULT_MAX_CHARS
        assert texts(mapped)[-1] == "[result truncated at 100,000 characters]"
    else:
        assert texts(mapped) == ["x" * RESULT_MAX_CHARS]


@pytest.mark.parametrize(("size", "whole"), [(RESULT_MAX_CHARS, False),
                                             (RESULT_MAX_CHARS + 1, True)])
def test_text_over_the_cap_is_marked_whole_for_the_pipeline(size: int, whole: bool) -> None:
    mapped = map_result({"content": [text("x" * (size - 4)), image(10), text("yyyy")]})
    assert mapped.whole_text == (("x" * (size - 4)) + "\nyyyy" if whole else None)


def test_a_spilled_result_keeps_images_a_preview_and_the_files_path() -> None:
    content = [text("a" * 60_000), image(10), text("b" * 60_000)]
    mapped = spilled(map_result({"content": content}), "/s/project-doc-1.txt")
    assert [b["type"] for b in mapped.blocks] == ["image", "text", "text"]
    assert texts(mapped)[0] == "a" * PREVIEW_CHARS
    assert "saved whole to /s/project-doc-1.txt (mode 0600)" in texts(mapped)[1]
    assert "120,001 characters" in texts(mapped)[1]


def test_a_result_within_the_cap_is_not_spilled() -> None:
    mapped = map_result({"content": [text("x" * RESULT_MAX_CHARS)]})
    assert spilled(mapped, "/s/f") is mapped


def test_text_cap_spans_several_blocks_and_keeps_images() -> None:
    content = [text("a" * 60_000), image(10), text("b" * 60_000), text("c")]
    mapped = map_result({"content": content})
    assert sum(len(t) for t in texts(mapped)) <= RESULT_MAX_CHARS
    assert [b["type"] for b in mapped.blocks] == ["text", "image", "text", "text"]
    assert mapped.blocks[0]["text"] == "a" * 60_000


@pytest.mark.parametrize(
    "raw",
    [{}, {"content": []}, {"content": [text("")]}, {"content": None}, None, "nonsense"],
)
def test_empty_result_becomes_a_placeholder(raw) -> None:
    assert map_result(raw).blocks == [text(EMPTY_RESULT)]


@pytest.mark.parametrize(("flag", "is_error"), [(True, True), (False, False), ("true", False),
                                                (None, False)])
def test_is_error_comes_from_is_error(flag, is_error: bool) -> None:
    assert map_result({"content": [text("x")], "isError": flag}).is_error is is_error


@pytest.mark.parametrize(
    "block",
    [{"type": "audio", "data": "x"}, {"type": "resource"}, "text", {"type": "text", "text": 3},
     {"type": "image", "data": 5, "mimeType": "image/png"}, {"type": "image", "data": "x"}],
)
def test_unsupported_or_malformed_blocks_become_notices(block) -> None:
    mapped = map_result({"content": [block]})
    assert mapped.blocks[0]["type"] == "text"
    assert mapped.blocks[0]["text"].startswith("[")


def test_error_folds_to_text_with_is_error() -> None:
    mapped = from_error(NeedsConsent())
    assert mapped.is_error
    assert '"needs_consent"' in mapped.blocks[0]["text"]


def test_tool_result_pairs_blocks_with_the_tool_use_id() -> None:
    mapped = map_result({"content": [text("ok")], "isError": True})
    assert to_tool_result("toolu_1", mapped) == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [text("ok")],
        "is_error": True,
    }


# ---------------------------------------------------------------- the preview image budget


@pytest.mark.parametrize(("n_bytes", "chars"), [(0, 0), (1, 4), (2, 4), (3, 4), (4, 8),
                                                (97_500, 130_000), (97_501, 130_004)])
def test_base64_chars_is_the_padded_length(n_bytes, chars):
    assert base64_chars(n_bytes) == chars == len(base64.b64encode(bytes(n_bytes)))


def preview_result(text: str, image_chars: int) -> dict:
    return {"content": [{"type": "text", "text": text},
                        {"type": "image", "data": "A" * image_chars, "mimeType": "image/png"}]}


@pytest.mark.parametrize("text_chars", [0, 1_234, 10_500])
def test_an_image_of_exactly_the_budget_beside_its_text_is_kept(text_chars):
    budget = image_budget(text_chars)
    mapped = map_result(preview_result("t" * text_chars, budget))
    assert [b["type"] for b in mapped.blocks] == (["text", "image"] if text_chars else
                                                  ["image"])


@pytest.mark.parametrize("text_chars", [0, 1_234, 10_500])
def test_an_image_one_character_over_the_budget_is_not(text_chars):
    budget = image_budget(text_chars)
    mapped = map_result(preview_result("t" * text_chars, budget + 1))
    assert "image" not in [b["type"] for b in mapped.blocks]


def test_the_budget_is_the_image_limit_or_what_the_aggregate_leaves():
    assert image_budget(0) == IMAGE_MAX_CHARS
    assert image_budget(1_000) == AGGREGATE_MAX_CHARS - 1_000
    assert image_budget(AGGREGATE_MAX_CHARS + 5) == 0


@pytest.mark.parametrize(("block", "notice"), [
    ("text", "[malformed content block omitted]"),
    ({"type": "text", "text": 3}, "[malformed text block omitted]"),
    ({"type": "image", "data": "x"}, "[malformed image block omitted]"),
    ({"type": "audio"}, "[audio content block omitted: not supported]"),
    ({"type": "a" * 40}, f"[{'a' * 40} content block omitted: not supported]"),
    ({"type": "a" * 41}, "[unknown content block omitted: not supported]"),
    ({"type": 5}, "[unknown content block omitted: not supported]"),
    ({}, "[unknown content block omitted: not supported]"),
])
def test_each_block_that_is_not_mapped_says_what_it_was(block, notice) -> None:
    assert texts(map_result({"content": [block]})) == [notice]


def test_an_error_folds_to_json_that_keeps_its_letters() -> None:
    mapped = from_error(InvalidArguments("op", "caf\u00e9", "is required"))
    assert "caf\u00e9" in mapped.blocks[0]["text"]


def test_a_spilled_error_result_is_still_an_error() -> None:
    mapped = map_result({"content": [text("x" * (RESULT_MAX_CHARS + 1))], "isError": True})
    assert spilled(mapped, "/s/f").is_error is True


def test_the_text_cap_fills_its_budget_to_the_last_character_and_keeps_later_images() -> None:
    notice = f"[result truncated at {RESULT_MAX_CHARS:,} characters]"
    budget = RESULT_MAX_CHARS - len(notice)
    mapped = map_result({"content": [text("a" * (budget - 1)), text("bb"),
                                     text("c" * 100), image(10)]})
    assert texts(mapped) == ["a" * (budget - 1), "b", notice]
    assert [b["type"] for b in mapped.blocks] == ["text", "text", "image", "text"]
