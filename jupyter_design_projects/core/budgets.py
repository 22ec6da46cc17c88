"""The Projects budgets: estimated knowledge tokens, the pre-write knowledge check, the
inline/raw/upload byte limits, the search range, and the 300,000-char result ceiling (a
result over it is spilled whole to a local file, never cut)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..errors import KnowledgeBudgetExceeded

#: text or extracted content up to this many UTF-8 bytes is returned inline (spec §13)
INLINE_MAX_BYTES = 262_144
#: raw upload downloads (20 MiB)
RAW_MAX_BYTES = 20_971_520
#: local_path uploads (25 MiB)
UPLOAD_MAX_BYTES = 26_214_400
#: a Projects tool result, serialised as JSON (spec §13): the result limit and the
#: persistence ceiling alike; a result over it is saved whole to a local file
RESULT_MAX_CHARS = 300_000
#: a spilled result shows this many characters of what was saved
RESULT_PREVIEW_CHARS = 2_000
#: room kept in a spilled result for the local file's path
LOCAL_FILE_ROOM = 4_096
SEARCH_N_DEFAULT = 5
SEARCH_N_MIN = 1
SEARCH_N_MAX = 15

_MiB = 1024 * 1024
#: a doc's answer (read, or echoed by a write): room for a doc as large as the largest
#: `local_path` upload with every byte written twice (JSON's two-character escapes of quotes,
#: backslashes, newlines and tabs), plus the answer's other fields. Not a bound for every
#: text: control characters escape to six bytes, so a doc dense in them may be refused
#: as too large
DOC_ANSWER_MAX_BYTES = 2 * UPLOAD_MAX_BYTES + _MiB
#: the most answer bytes read per Projects operation (issue 3: caps per operation). A raw
#: download carries up to 20 MiB as base64 (~26.7 MiB) plus its fields; a doc or its
#: extracted text gets `DOC_ANSWER_MAX_BYTES`; the rest are small metadata answers.
ANSWER_MAX_BYTES = {
    "download": 30 * _MiB,
    "read doc": DOC_ANSWER_MAX_BYTES,
    "read extracted text": DOC_ANSWER_MAX_BYTES,
    "create doc": DOC_ANSWER_MAX_BYTES,
    "replace doc": DOC_ANSWER_MAX_BYTES,
    "detail": 4 * _MiB,
    "search": 1 * _MiB,
    "list organizations": 1 * _MiB,
    "delete doc": 64 * 1024,
}


def answer_max_bytes(action: str) -> int:
    """The byte cap for one operation's answer; an unlisted action gets the smallest."""
    return ANSWER_MAX_BYTES.get(action, min(ANSWER_MAX_BYTES.values()))


def estimate_tokens(n_bytes: int) -> int:
    """`ceil(utf8_bytes / 4)`: a conservative client estimate, not the service's tokenizer."""
    return -(-n_bytes // 4)


def knowledge_after(knowledge_size: int, added_tokens: int, removed_tokens: int = 0) -> int:
    """The knowledge once a change lands, as the service counts it: the new content's
    estimated tokens added, those of the doc it replaces or deletes removed. One arithmetic
    for a sync's plan (`core.sync_plan.running_budget`) and for each write it runs."""
    return knowledge_size - removed_tokens + added_tokens


def check_knowledge(knowledge_size: int, max_knowledge_size: int, n_bytes: int, *,
                    removed_tokens: int = 0) -> int:
    """Refuse before sending when `knowledge_after(knowledge_size, ceil(bytes/4),
    removed_tokens) > max_knowledge_size`. Returns the estimate.

    A single write (spec §16) passes no `removed_tokens`: a replace is checked with the
    whole new content, nothing deducted for the old doc. A sync's write passes the old
    doc's estimated tokens, as its plan counted them, so a plan shown as fitting runs to
    its end. The service stays the owner of the quota.
    """
    estimate = estimate_tokens(n_bytes)
    if knowledge_after(knowledge_size, estimate, removed_tokens) > max_knowledge_size:
        raise KnowledgeBudgetExceeded(knowledge_size - removed_tokens, estimate,
                                      max_knowledge_size)
    return estimate


def fits_inline(n_bytes: int) -> bool:
    return n_bytes <= INLINE_MAX_BYTES


def search_n_allowed(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and SEARCH_N_MIN <= n <= SEARCH_N_MAX


def result_chars(result: Any) -> int:
    return len(json.dumps(result, ensure_ascii=False))


@dataclasses.dataclass(frozen=True)
class ResultSpill:
    """What to do with a result over the ceiling: save `text` whole to a 0600 file whose
    extension comes from `name`, and return `shown` with the file's path added."""

    text: str
    name: str
    shown: dict[str, Any]


#: the fields a result spilled as JSON keeps inline (each when small)
_KEPT_FIELDS = ("method", "path", "kind", "doc_uuid", "file_uuid", "bytes", "notice",
                "present_to_user", "framing")


def plan_result(result: dict[str, Any], limit: int = RESULT_MAX_CHARS) -> ResultSpill | None:
    """None when the result's JSON fits `limit` characters (it is returned as it is).
    Over it, a spill: a result whose bulk is its `content` string (a doc read inline by
    bytes that JSON escapes past the limit) saves that content, keeping the doc's
    extension, and carries the other fields; any other result saves its whole JSON. Either
    way the result carries a preview of what was saved. The input is never modified."""
    size = result_chars(result)
    if size <= limit:
        return None
    content = result.get("content")
    if isinstance(content, str):
        shown = {k: v for k, v in result.items() if k != "content"}
        shown.update(_spill_fields(content, size, limit, "its content"))
        if result_chars(shown) + LOCAL_FILE_ROOM <= limit:
            return ResultSpill(content, str(result.get("path", "")), shown)
    text = json.dumps(result, ensure_ascii=False)
    shown = {k: result[k] for k in _KEPT_FIELDS
             if k in result and result_chars(result[k]) <= 1_024}
    shown.update(_spill_fields(text, size, limit, "the whole result as JSON"))
    return ResultSpill(text, "result.json", shown)


def spilled_result(spill: ResultSpill, local_file: str) -> dict[str, Any]:
    """The result returned for a spill once its file is written."""
    return {**spill.shown, "local_file": local_file}


def _spill_fields(text: str, size: int, limit: int, what: str) -> dict[str, Any]:
    return {
        "spilled": True,
        "result_chars": size,
        "preview": text[:RESULT_PREVIEW_CHARS],
        "note": (f"The result is {size:,} characters as JSON, over the {limit:,}-character "
                 f"limit, so {what} was saved whole to local_file (mode 0600); preview is "
                 f"its first {RESULT_PREVIEW_CHARS:,} characters."),
    }
