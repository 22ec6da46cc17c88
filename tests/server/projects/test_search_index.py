"""The service's FTS5 index on its own: a fresh source is indexed without a scan, a
re-index replaces a source's chunks, a search answers exactly as an exhaustive bm25 over
the matching chunks of the project would while its terms match at most CANDIDATES chunks,
and past that follows the documented bound (`search.ranked_chunks`), at its boundary."""

from __future__ import annotations

import sqlite3

import pytest

from jupyter_design_projects.server.projects import search

#: every matching chunk of the project ranked by bm25, with no bound
FULL_ROWS = (
    "SELECT s.source_kind, s.source_uuid, t.name, t.text, bm25(kb_text, 2.0, 1.0) AS rank "
    "FROM kb_text AS t JOIN kb_chunk_sources AS s ON s.id = t.rowid "
    "WHERE kb_text MATCH ? AND s.project_uuid = ? ORDER BY rank")


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
        rows = conn.execute(FULL_ROWS, (" OR ".join(search.query_terms(query)), "p")).fetchall()
        best: dict[str, sqlite3.Row] = {}
        for row in rows:
            best.setdefault(row["source_uuid"], row)
        expected = [row["name"] for row in list(best.values())[:15]]
        got = search.search(conn, "p", query, 15)
        hits = got["text_results"] + got["rich_content_results"]
        assert sorted(h["name"] for h in hits) == sorted(expected)
        assert all(h["score"] == round(-best[h.get("doc_uuid") or h["file_uuid"]]["rank"], 6)
                   for h in hits)


def test_a_reindex_keeps_the_text_and_the_sources_tables_aligned(conn):
    for i in range(5):
        search.index(conn, "p", "doc", f"d{i}", f"{i}.md", "para one\n\npara two " * 200,
                     fresh=True)
    search.index(conn, "p", "doc", "d2", "2.md", "only beavers")
    search.unindex(conn, "d3")
    ids = [row[0] for row in conn.execute("SELECT rowid FROM kb_text ORDER BY rowid")]
    assert ids == [row[0] for row in conn.execute("SELECT id FROM kb_chunk_sources ORDER BY id")]
    owners = {row[0] for row in conn.execute("SELECT source_uuid FROM kb_chunk_sources")}
    assert owners == {"d0", "d1", "d2", "d4"}
    assert names(conn, "beavers") == ["2.md"]


def test_other_projects_better_chunks_do_not_crowd_out_this_projects_sources(conn):
    # the earlier query kept the best 500 chunks of every project and then filtered
    for i in range(600):
        search.index(conn, "q", "doc", f"q{i}", f"q{i}.md", "otters otters otters",
                     fresh=True)
    search.index(conn, "p", "doc", "p1", "p1.md", "otters and " + "padding " * 50,
                 fresh=True)
    assert names(conn, "otters") == ["p1.md"]


@pytest.mark.parametrize("others", [search.CANDIDATES, search.CANDIDATES + 1])
def test_the_candidate_bound_counts_this_projects_chunks_only(conn, others):
    # another project's many matches of a word neither leave it out of this project's
    # query nor push this project's one match past the newest-matches bound
    search.index(conn, "p", "doc", "p1", "p1.md", "alpha common words here", fresh=True)
    for i in range(others):
        search.index(conn, "q", "doc", f"q{i}", f"q{i}.md", f"common {i}", fresh=True)
    assert names(conn, "common") == ["p1.md"]
    assert names(conn, "common alpha") == ["p1.md"]
    assert len(names(conn, "common", project="q")) == 15


def index_lines(conn, lines: list[tuple[str, str]]) -> None:
    for i, (name, text) in enumerate(lines):
        search.index(conn, "p", "doc", f"s{i}", name, text, fresh=True)


@pytest.mark.parametrize("common_chunks, exhaustive", [
    (search.CANDIDATES - 1, True), (search.CANDIDATES, False)])
def test_a_common_term_is_left_out_once_the_terms_match_more_than_candidates(
        conn, common_chunks, exhaustive):
    # "rare" matches one chunk and "common" the others: together CANDIDATES chunks (all
    # ranked) or one more (then "common" is left out, as a stopword is)
    index_lines(conn, [("rare.md", "rare word")]
                + [(f"c{i}.md", "common word " + "filler " * (i % 9))
                   for i in range(common_chunks)])
    found = names(conn, "common rare")
    if exhaustive:
        expression = " OR ".join(search.query_terms("common rare"))
        rows = conn.execute(FULL_ROWS, (expression, "p")).fetchall()
        assert found == [row["name"] for row in rows[:15]]
        assert len(found) == 15
    else:
        assert found == ["rare.md"]


@pytest.mark.parametrize("matching, oldest_found", [
    (search.CANDIDATES, True), (search.CANDIDATES + 1, False)])
def test_a_term_matching_more_than_candidates_ranks_its_newest_matches(
        conn, matching, oldest_found):
    # the oldest chunk is the best (the word in its name, weighted twice, and dense in its
    # text); it is ranked while the term matches CANDIDATES chunks, and is past the newest
    # CANDIDATES of them with one more
    index_lines(conn, [("widget.md", "widget widget widget")]
                + [(f"w{i}.md", "widget " + "filler " * (5 + i % 9)) for i in range(matching - 1)])
    found = names(conn, "widget")
    assert len(found) == 15
    assert (found[0] == "widget.md") is oldest_found
    assert ("widget.md" in found) is oldest_found


def test_a_term_in_no_chunk_finds_nothing(conn):
    index_lines(conn, [("a.md", "alpha")])
    assert names(conn, "omega") == []
    assert names(conn, "omega alpha") == ["a.md"]
