"""The client's result limits (spec §9, PROTOCOL §6), declared once for both sides: the
client caps what it maps (`core.results`), and the reference service sizes its preview
pictures to fit them (`server/design/preview.py`)."""

from __future__ import annotations

#: an image block whose base64 string is longer than this becomes a notice
IMAGE_MAX_CHARS = 130_000
#: blocks past this many characters in all (text length plus image base64 length) are dropped
AGGREGATE_MAX_CHARS = 130_000
#: the text of one tool result is held to this many characters (`maxResultSizeChars`)
RESULT_MAX_CHARS = 100_000


def base64_chars(n_bytes: int) -> int:
    """The length of the base64 string of `n_bytes` bytes (padded)."""
    return 4 * ((n_bytes + 2) // 3)


def image_budget(text_chars: int) -> int:
    """The longest image (in base64 characters) a result whose text blocks hold
    `text_chars` characters can carry after them without losing a block."""
    return max(0, min(IMAGE_MAX_CHARS, AGGREGATE_MAX_CHARS - text_chars))
