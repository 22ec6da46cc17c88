"""The Projects budgets: estimated knowledge tokens, the pre-write knowledge check, the
inline/raw/upload byte limits, the search range, and the 300,000-char result cap."""

from __future__ import annotations

import json
from typing import Any

from ..errors import KnowledgeBudgetExceeded

#: text or extracted content up to this many UTF-8 bytes is returned inline (spec §13)
INLINE_MAX_BYTES = 262_144
#: raw upload downloads (20 MiB)
RAW_MAX_BYTES = 20_971_520
#: local_path uploads (25 MiB)
UPLOAD_MAX_BYTES = 26_214_400
#: a Projects tool result, serialised as JSON (spec §13)
RESULT_MAX_CHARS = 300_000
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


TRUNCATION_NOTICE = (
    "This result was cut to fit 300,000 characters; read single docs with project_read."
)


def estimate_tokens(n_bytes: int) -> int:
    """`ceil(utf8_bytes / 4)`: a conservative client estimate, not the service's tokenizer."""
    return -(-n_bytes // 4)


def check_knowledge(knowledge_size: int, max_knowledge_size: int, n_bytes: int) -> int:
    """Refuse before sending when `knowledge_size + ceil(bytes/4) > max_knowledge_size`.

    A replace is checked with the whole new content (nothing is deducted for the old doc);
    the service stays the owner of the quota. Returns the estimate.
    """
    estimate = estimate_tokens(n_bytes)
    if knowledge_size + estimate > max_knowledge_size:
        raise KnowledgeBudgetExceeded(knowledge_size, estimate, max_knowledge_size)
    return estimate


def fits_inline(n_bytes: int) -> bool:
    return n_bytes <= INLINE_MAX_BYTES


def search_n_allowed(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and SEARCH_N_MIN <= n <= SEARCH_N_MAX


def result_chars(result: Any) -> int:
    return len(json.dumps(result, ensure_ascii=False))


def cap_result(result: dict[str, Any], limit: int = RESULT_MAX_CHARS) -> dict[str, Any]:
    """The result itself if its JSON fits `limit` chars; else a copy whose largest strings
    and lists are cut (strings shortened, trailing list items dropped) until it fits, with
    `truncated: true` and a notice. The input is never modified."""
    if result_chars(result) <= limit:
        return result
    capped: dict[str, Any] = json.loads(json.dumps(result))
    capped["truncated"] = True
    capped["truncation_notice"] = TRUNCATION_NOTICE
    for _ in range(10_000):
        excess = result_chars(capped) - limit
        if excess <= 0:
            return capped
        holder, key, value = _largest(capped)
        if holder is None:
            break
        if isinstance(value, str):
            holder[key] = value[: max(0, len(value) - excess - 1)] + "…"
        else:
            del value[max(1, len(value) // 2):]
    raise ValueError("result cannot be capped")  # only with a limit below the notice itself


def _largest(node: Any) -> tuple[Any, Any, Any]:
    """The container, key and value of the largest cuttable string or list in the tree."""
    best: tuple[Any, Any, Any] = (None, None, None)
    best_size = 0
    stack = [node]
    while stack:
        current = stack.pop()
        items = current.items() if isinstance(current, dict) else enumerate(current)
        for key, value in items:
            if key == "truncation_notice":
                continue
            cuttable = isinstance(value, str) or (isinstance(value, list) and len(value) > 1)
            if cuttable:
                size = result_chars(value)
                if size > best_size and size > 3:
                    best, best_size = (current, key, value), size
            if isinstance(value, (dict, list)):
                stack.append(value)
    return best
