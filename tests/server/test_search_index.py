"""The service's FTS5 index on its own: a fresh source is indexed without a scan, a
re-index replaces a source's chunks, and a search answers exactly as ranking the full
rows would (it ranks rowids, then reads the best rows)."""

from __future__ import annotations

import sqlite3

import pytest

from jupyter_design_projects.server.projects import search

FULL_ROWS = (
    "SELECT source_kind, source_uuid, name, text, bm25(kb_chunks, 2.0, 1.0) AS rank "
    "FROM kb_chunks WHERE kb_chunks MATCH ? AND project_uuid = ? ORDER BY rank LIMIT 500")


@pytest.fixture
def conn():
    connection = sqlite3.connect(":memory:")
    connection.row_factory = sqlite3.Row
    connection.executescript(search.SCHEMA)
    yield connection
    connection.close()


def names(conn, query: str, project: str = "p") -> list[str]:
    found = search.search(conn, project, query, 15)
    return [hit["name"] for hit in found["text_results"] + found["rich_content_results"]]


def test_a_reindex_replaces_the_sources_chunks_and_a_fresh_one_adds(conn):
    search.index(conn, "p", "doc", "d1", "a.md", "otters hold hands", fresh=True)
    search.index(conn, "p", "doc", "d2", "b.md", "otters sleep", fresh=True)
    search.index(conn, "p", "doc", "d1", "a.md", "beavers build dams")
    assert names(conn, "otters") == ["b.md"]
    assert names(conn, "beavers") == ["a.md"]
    search.unindex(conn, "d2")
    assert names(conn, "otters") == []


def test_search_answers_as_ranking_the_full_rows_would(conn):
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    for i in range(60):
        text = " ".join(words[(i + k) % 5] for k in range(i % 7 + 1)) + f" unique{i}"
        search.index(conn, "p" if i % 3 else "q", "doc" if i % 4 else "file", f"s{i}",
                     f"n{i}.md", text, fresh=True)
    for query in ("alpha", "beta gamma", "unique7 epsilon", "delta"):
        rows = conn.execute(FULL_ROWS, (search.match_expression(query), "p")).fetchall()
        best: dict[str, sqlite3.Row] = {}
        for row in rows:
            best.setdefault(row["source_uuid"], row)
        expected = [row["name"] for row in list(best.values())[:15]]
        got = search.search(conn, "p", query, 15)
        hits = got["text_results"] + got["rich_content_results"]
        assert sorted(h["name"] for h in hits) == sorted(expected)
        assert all(h["score"] == round(-best[h.get("doc_uuid") or h["file_uuid"]]["rank"], 6)
                   for h in hits)
