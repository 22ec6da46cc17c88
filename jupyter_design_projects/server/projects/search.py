"""Project knowledge search: an SQLite FTS5 index of ~800-character chunks of docs and of
the extracted text of document uploads, ranked with bm25()."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ..envelopes import ApiError

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS kb_text USING fts5(
    name, text, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS kb_chunk_sources (
    id INTEGER PRIMARY KEY,
    project_uuid TEXT NOT NULL, source_kind TEXT NOT NULL, source_uuid TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kb_chunk_sources_source ON kb_chunk_sources (source_uuid);
CREATE INDEX IF NOT EXISTS kb_chunk_sources_project ON kb_chunk_sources (project_uuid);
"""
#: each chunk is a row of `kb_text` (what FTS5 tokenizes and bm25 ranks) and the row of
#: `kb_chunk_sources` with the same id (whose chunk it is: an ordinary table, so a search
#: filters its project and a re-index finds a source's chunks by index, not by reading FTS
#: rows). Data dirs made before this have one FTS5 table `kb_chunks` holding all five
#: columns; `migrate` moves them over.

CHUNK_CHARS = 800
#: bm25 column weights: a word in the doc's name counts twice a word in its text
NAME_WEIGHT, TEXT_WEIGHT = 2.0, 1.0
MAX_QUERY_TERMS = 32
#: at most this many chunks are ranked per search (`ranked_chunks` gives the rule)
CANDIDATES = 5000
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


def migrate(conn: sqlite3.Connection) -> None:
    """Move a data dir's chunks from the one-table index of earlier services (FTS5
    `kb_chunks` with the source columns UNINDEXED) into `kb_text` and `kb_chunk_sources`,
    keeping each chunk's id, then drop it. Run once, at service start, after SCHEMA."""
    old = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'kb_chunks' "
                       "AND sql LIKE 'CREATE VIRTUAL TABLE%'").fetchone()
    if old is None:
        return
    conn.execute("INSERT INTO kb_text (rowid, name, text) "
                 "SELECT rowid, name, text FROM kb_chunks")
    conn.execute("INSERT INTO kb_chunk_sources (id, project_uuid, source_kind, source_uuid) "
                 "SELECT rowid, project_uuid, source_kind, source_uuid FROM kb_chunks")
    conn.execute("DROP TABLE kb_chunks")


def index(conn: sqlite3.Connection, project_uuid: str, source_kind: str, source_uuid: str,
          name: str, text: str, *, fresh: bool = False) -> None:
    """(Re)index one doc ("doc") or document upload ("file"). `fresh`: the source was
    just created, so it has no chunks to remove."""
    if not fresh:
        unindex(conn, source_uuid)
    pieces = chunks(text)
    first = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM kb_chunk_sources").fetchone()[0]
    ids = range(first, first + len(pieces))
    conn.executemany(
        "INSERT INTO kb_chunk_sources (id, project_uuid, source_kind, source_uuid) "
        "VALUES (?, ?, ?, ?)", [(i, project_uuid, source_kind, source_uuid) for i in ids])
    conn.executemany("INSERT INTO kb_text (rowid, name, text) VALUES (?, ?, ?)",
                     [(i, name, piece) for i, piece in zip(ids, pieces, strict=True)])


def unindex(conn: sqlite3.Connection, source_uuid: str) -> None:
    conn.execute("DELETE FROM kb_text WHERE rowid IN "
                 "(SELECT id FROM kb_chunk_sources WHERE source_uuid = ?)", (source_uuid,))
    conn.execute("DELETE FROM kb_chunk_sources WHERE source_uuid = ?", (source_uuid,))


def query_terms(query: str) -> list[str]:
    """The user's distinct words, lower-cased, as quoted FTS5 terms: no FTS syntax gets
    through."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:MAX_QUERY_TERMS]
    if not words:
        raise ApiError("invalid_request_error", "'query' must contain at least one word.")
    return [f'"{w}"' for w in words]


def _others_indexed(conn: sqlite3.Connection, project_uuid: str) -> bool:
    """Whether the index holds chunks of another project (two index range probes)."""
    return conn.execute("SELECT 1 FROM kb_chunk_sources WHERE project_uuid < ? "
                        "OR project_uuid > ? LIMIT 1", (project_uuid, project_uuid)
                        ).fetchone() is not None


def _matches(conn: sqlite3.Connection, scope: str, scoped: tuple, term: str,
             at_most: int) -> int:
    """How many chunks of the project hold `term`, counted up to `at_most` + 1."""
    return int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM kb_text{scope} WHERE "
                            "kb_text MATCH ? LIMIT ?)", (*scoped, term, at_most + 1)
                            ).fetchone()[0])


def ranked_chunks(conn: sqlite3.Connection, project_uuid: str,
                  query: str) -> sqlite3.Cursor:
    """(chunk id, bm25 rank) of the project's candidate chunks, best first (lowest rank).

    The rule: a chunk's rank is FTS5's bm25 with the column weights above, over the
    query's terms, and candidates are bounded by CANDIDATES: the terms are taken rarest
    first while the project's chunks they match total at most CANDIDATES; the terms that
    would pass it are left out of the query, as stopwords are. When every term is kept,
    this is the exhaustive ranking. When even the rarest term matches more than CANDIDATES
    of the project's chunks, its newest CANDIDATES matches (highest ids) are ranked by it
    alone. Only chunks of the project count; while the index holds no other project's,
    the join that scopes them is left out (the same answer, without a lookup per match)."""
    scoped: tuple = ()
    scope = ""
    if _others_indexed(conn, project_uuid):
        scope = " JOIN kb_chunk_sources s ON s.id = kb_text.rowid AND s.project_uuid = ?"
        scoped = (project_uuid,)
    terms = query_terms(query)
    counted = sorted((_matches(conn, scope, scoped, term, CANDIDATES), term) for term in terms)
    kept: list[str] = []
    total = 0
    for count, term in counted:
        if total + count > CANDIDATES:
            break
        kept.append(term)
        total += count
    ranking = (f"SELECT kb_text.rowid, bm25(kb_text, ?, ?) AS rank FROM kb_text{scope} "
               "WHERE kb_text MATCH ?")
    if kept:
        return conn.execute(ranking + " ORDER BY rank",
                            (NAME_WEIGHT, TEXT_WEIGHT, *scoped, " OR ".join(kept)))
    rarest = counted[0][1]
    newest = conn.execute(f"SELECT kb_text.rowid FROM kb_text{scope} WHERE kb_text MATCH ? "
                          "ORDER BY kb_text.rowid DESC LIMIT 1 OFFSET ?",
                          (*scoped, rarest, CANDIDATES - 1)).fetchone()[0]
    return conn.execute(ranking + " AND kb_text.rowid >= ? ORDER BY rank",
                        (NAME_WEIGHT, TEXT_WEIGHT, *scoped, rarest, newest))


def search(conn: sqlite3.Connection, project_uuid: str, query: str, n: int) -> dict[str, Any]:
    """The SearchResponse: the n best sources (each with its best chunk), split into docs
    (text_results) and document uploads (rich_content_results), best first."""
    # FTS5 ranks the candidates' rowids (bm25 needs no stored text); the project is
    # checked in kb_chunk_sources only for rows in rank order until n sources are found,
    # and the text of those n chunks alone is read
    ranked = ranked_chunks(conn, project_uuid, query)
    owner = conn.cursor()
    best: dict[str, tuple[int, str, float]] = {}
    for chunk_id, rank in ranked:
        source = owner.execute("SELECT source_kind, source_uuid FROM kb_chunk_sources "
                               "WHERE id = ? AND project_uuid = ?",
                               (chunk_id, project_uuid)).fetchone()
        if source is not None and source[1] not in best:
            best[source[1]] = (chunk_id, source[0], rank)
            if len(best) == n:
                break
    ranked.close()
    texts = {row[0]: (row[1], row[2]) for row in conn.execute(
        f"SELECT rowid, name, text FROM kb_text WHERE rowid IN ({','.join('?' * len(best))})",
        [chunk_id for chunk_id, _, _ in best.values()])} if best else {}
    text_results: list[dict[str, Any]] = []
    rich_results: list[dict[str, Any]] = []
    for source_uuid, (chunk_id, source_kind, rank) in best.items():
        name, text = texts[chunk_id]
        hit = {"name": name, "score": round(-rank, 6), "chunk": {"text": text}}
        if source_kind == "doc":
            text_results.append({"doc_uuid": source_uuid, **hit})
        else:
            rich_results.append({"file_uuid": source_uuid, **hit})
    return {"text_results": text_results, "rich_content_results": rich_results}
