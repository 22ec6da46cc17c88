"""Result mapping caps: how a raw MCP tool result becomes the content of one `tool_result`.

Three limits at three stages (spec §9), never merged into one: an image block whose base64
string is over 130,000 characters becomes a notice; blocks past an aggregate of 130,000
characters (text length plus image base64 length) are dropped with a notice; the text of
the whole tool result is held to 100,000 characters (`maxResultSizeChars`). Images are
measured by their base64 length, not decoded bytes, and do not count toward the text cap.

Text over the cap is kept whole: `map_result` marks it (`MappedResult.whole_text`), the
pipeline saves it to a 0600 file and `spilled` swaps the text for a preview and the file's
path. Where no file can be written (no session directory) the text is cut with a notice.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from ..errors import JdpError
from .result_limits import AGGREGATE_MAX_CHARS, IMAGE_MAX_CHARS, RESULT_MAX_CHARS

#: a spilled result shows this many characters of its text
PREVIEW_CHARS = 2_000
EMPTY_RESULT = "(empty result)"


@dataclasses.dataclass(frozen=True)
class MappedResult:
    blocks: list[dict]
    is_error: bool
    #: the text of every text block, joined by newlines, when it passed RESULT_MAX_CHARS
    #: (then `blocks` hold it cut, until the pipeline saves it and calls `spilled`)
    whole_text: str | None = None


def map_result(raw: Any) -> MappedResult:
    """Map `{content: [...], isError?}` to capped tool_result blocks."""
    raw = raw if isinstance(raw, Mapping) else {}
    content = raw.get("content")
    mapped = [_block(item) for item in content] if isinstance(content, list) else []
    blocks = _cap_aggregate([b for b in mapped if b is not None])
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    whole = "\n".join(texts) if sum(map(len, texts)) > RESULT_MAX_CHARS else None
    return MappedResult(_cap_text(blocks) or [_text(EMPTY_RESULT)],
                        raw.get("isError") is True, whole)


def spilled(mapped: MappedResult, local_file: str) -> MappedResult:
    """A result whose whole text was saved to `local_file`: its images, then the first
    PREVIEW_CHARS of the text and a line saying where the rest is."""
    if mapped.whole_text is None:
        return mapped
    text = mapped.whole_text
    images = [b for b in mapped.blocks if b["type"] != "text"]
    notice = (f"[the result's text is {len(text):,} characters, over the "
              f"{RESULT_MAX_CHARS:,}-character limit: it was saved whole to {local_file} "
              f"(mode 0600); above are its first {PREVIEW_CHARS:,} characters]")
    return MappedResult(images + [_text(text[:PREVIEW_CHARS]), _text(notice)],
                        mapped.is_error)


def from_error(error: JdpError) -> MappedResult:
    """An error folded to text: the tool_result says what went wrong, with is_error set."""
    return MappedResult([_text(json.dumps(error.to_dict(), ensure_ascii=False))], True)


def to_tool_result(tool_use_id: str, mapped: MappedResult) -> dict:
    """The `tool_result` block paired with the model's `tool_use_id`."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [dict(block) for block in mapped.blocks],
        "is_error": mapped.is_error,
    }


def block_size(block: Mapping[str, Any]) -> int:
    """Characters a block counts toward the aggregate: its text, or its base64 data."""
    if block["type"] == "image":
        return len(block["source"]["data"])
    return len(block["text"])


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _block(item: Any) -> dict | None:
    """One MCP content block as a tool_result block; empty text is dropped."""
    if not isinstance(item, Mapping):
        return _text("[malformed content block omitted]")
    kind = item.get("type")
    if kind == "text":
        text = item.get("text")
        if not isinstance(text, str):
            return _text("[malformed text block omitted]")
        return _text(text) if text else None
    if kind == "image":
        data, mime = item.get("data"), item.get("mimeType")
        if not isinstance(data, str) or not isinstance(mime, str):
            return _text("[malformed image block omitted]")
        if len(data) > IMAGE_MAX_CHARS:
            return _text(
                f"[image omitted: {len(data):,} base64 chars over the "
                f"{IMAGE_MAX_CHARS:,} limit]"
            )
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    shown = kind if isinstance(kind, str) and len(kind) <= 40 else "unknown"
    return _text(f"[{shown} content block omitted: not supported]")


def _cap_aggregate(blocks: list[dict]) -> list[dict]:
    """Keep blocks while the running total stays within the aggregate; drop the rest."""
    total = 0
    for index, block in enumerate(blocks):
        total += block_size(block)
        if total > AGGREGATE_MAX_CHARS:
            dropped = len(blocks) - index
            return blocks[:index] + [
                _text(
                    f"[{dropped} content block(s) omitted: the result passed the "
                    f"{AGGREGATE_MAX_CHARS:,}-character aggregate limit]"
                )
            ]
    return blocks


def _cap_text(blocks: list[dict]) -> list[dict]:
    """Cut the text so all text blocks together, notice included, fit RESULT_MAX_CHARS."""
    if sum(len(b["text"]) for b in blocks if b["type"] == "text") <= RESULT_MAX_CHARS:
        return blocks
    notice = f"[result truncated at {RESULT_MAX_CHARS:,} characters]"
    budget = RESULT_MAX_CHARS - len(notice)
    out: list[dict] = []
    for block in blocks:
        if block["type"] != "text":
            out.append(block)
            continue
        if budget <= 0:
            continue
        out.append(_text(block["text"][:budget]))
        budget -= len(out[-1]["text"])
    out.append(_text(notice))
    return out
