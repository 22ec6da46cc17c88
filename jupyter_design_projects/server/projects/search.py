"""Project knowledge search: an SQLite FTS5 index of ~800-character chunks of docs and of
the extracted text of document uploads, ranked with bm25()."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ..envelopes import ApiError

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS kb_chunks USING fts5(
    name, text,
    project_uuid UNINDEXED, source_kind UNINDEXED, source_uuid UNINDEXED,
    tokenize = 'porter unicode61'
);
"""

CHUNK_CHARS = 800
#: bm25 column weights: a word in the doc's name counts twice a word in its text
NAME_WEIGHT, TEXT_WEIGHT = 2.0, 1.0
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"\w+")


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Paragraph-aligned chunks of at most `size` characters (long paragraphs are cut at
    word boundaries, a word longer than `size` is cut where it must be)."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        # walk an offset: slicing off the rest at each cut copies it, quadratic in the
        # paragraph (a 25 MiB one-paragraph doc then took minutes)
        start = 0
        while len(paragraph) - start > size:
            cut = paragraph.rfind(" ", start, start + size + 1)
            cut = cut if cut > start else start + size
            pieces.append(paragraph[start:cut].strip())
            start = cut
            while start < len(paragraph) and paragraph[start].isspace():
                start += 1
        if paragraph[start:]:
            pieces.append(paragraph[start:])
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + 2 + len(piece) <= size:
            out[-1] = out[-1] + "\n\n" + piece
        else:
            out.append(piece)
    return out


def index(conn: sqlite3.Connection, project_uuid: str, source_kind: str, source_uuid: str,
          name: str, text: str, *, fresh: bool = False) -> None:
    """(Re)index one doc ("doc") or document upload ("file"). `fresh`: the source was
    just created, so it has no chunks to remove (finding them scans the whole index:
    source_uuid is not an indexed column)."""
    if not fresh:
        unindex(conn, source_uuid)
    conn.executemany(
        "INSERT INTO kb_chunks (name, text, project_uuid, source_kind, source_uuid) "
        "VALUES (?, ?, ?, ?, ?)",
        [(name, piece, project_uuid, source_kind, source_uuid) for piece in chunks(text)],
    )


def unindex(conn: sqlite3.Connection, source_uuid: str) -> None:
    conn.execute("DELETE FROM kb_chunks WHERE source_uuid = ?", (source_uuid,))


def match_expression(query: str) -> str:
    """The user's words as an FTS5 OR-query of quoted terms: no FTS syntax gets through."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:MAX_QUERY_TERMS]
    if not words:
        raise ApiError("invalid_request_error", "'query' must contain at least one word.")
    return " OR ".join(f'"{w}"' for w in words)


def search(conn: sqlite3.Connection, project_uuid: str, query: str, n: int) -> dict[str, Any]:
    """The SearchResponse: the n best sources (each with its best chunk), split into docs
    (text_results) and document uploads (rich_content_results), best first."""
    # rank every match by rowid alone, then read the columns of the best 500 only: sorting
    # the full rows would carry every matching chunk's text through the sorter
    rows = conn.execute(
        "SELECT c.source_kind, c.source_uuid, c.name, c.text, best.rank FROM ("
        " SELECT rowid, bm25(kb_chunks, ?, ?) AS rank FROM kb_chunks"
        " WHERE kb_chunks MATCH ? AND project_uuid = ? ORDER BY rank LIMIT 500"
        ") AS best JOIN kb_chunks AS c ON c.rowid = best.rowid ORDER BY best.rank",
        (NAME_WEIGHT, TEXT_WEIGHT, match_expression(query), project_uuid),
    ).fetchall()
    best: dict[str, sqlite3.Row] = {}
    for row in rows:
        best.setdefault(row["source_uuid"], row)
    text_results: list[dict[str, Any]] = []
    rich_results: list[dict[str, Any]] = []
    for row in list(best.values())[:n]:
        hit = {"name": row["name"], "score": round(-row["rank"], 6),
               "chunk": {"text": row["text"]}}
        if row["source_kind"] == "doc":
            text_results.append({"doc_uuid": row["source_uuid"], **hit})
        else:
            rich_results.append({"file_uuid": row["source_uuid"], **hit})
    return {"text_results": text_results, "rich_content_results": rich_results}
