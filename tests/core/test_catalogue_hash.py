"""core.catalogue: the catalogue hash, first-sentence summaries and the hash LRU."""

from __future__ import annotations

import hashlib

import pytest

from jupyter_design_projects.core.catalogue import (
    CATALOGUE_LRU_SIZE,
    SUMMARY_LIMIT,
    HashMemory,
    catalogue_hash,
    first_sentence,
)

A = {"name": "a", "description": "A.", "input_schema": {"type": "object"}}
B = {"name": "b", "description": "B.", "input_schema": {"type": "object"}}


def test_hash_ignores_operation_and_key_order() -> None:
    reordered = {"input_schema": {"type": "object"}, "description": "B.", "name": "b"}
    assert catalogue_hash([A, B]) == catalogue_hash([reordered, A])


@pytest.mark.parametrize(
    "changed",
    [
        [A],
        [A, {**B, "description": "B changed."}],
        [A, {**B, "input_schema": {"type": "object", "properties": {}}}],
        [A, {**B, "read_only": True}],
    ],
)
def test_hash_changes_with_any_change(changed) -> None:
    assert catalogue_hash(changed) != catalogue_hash([A, B])


@pytest.mark.parametrize(
    ("description", "summary"),
    [
        ("Lists projects. Paged by cursor.", "Lists projects."),
        ("Reads a file! Then more.", "Reads a file!"),
        ("Is it there? Yes.", "Is it there?"),
        ("Version 2.5 of the prompt. More.", "Version 2.5 of the prompt."),
        ("First line\nsecond line", "First line"),
        ("列出项目。然后分页。", "列出项目。"),
        ("  No full stop at all  ", "No full stop at all"),
        ("", ""),
    ],
)
def test_first_sentence(description: str, summary: str) -> None:
    assert first_sentence(description) == summary


@pytest.mark.parametrize(("length", "cut"), [(SUMMARY_LIMIT, False), (SUMMARY_LIMIT + 1, True)])
def test_summary_is_capped_at_its_limit(length: int, cut: bool) -> None:
    summary = first_sentence("x" * length)
    assert len(summary) == SUMMARY_LIMIT
    assert summary.endswith("…") is cut


def test_memory_recognises_only_the_hash_last_shown() -> None:
    memory = HashMemory()
    assert not memory.seen("agent", "h1")
    memory.remember("agent", "h1")
    assert memory.seen("agent", "h1")
    assert not memory.seen("agent", "h2")
    assert not memory.seen("other", "h1")


@pytest.mark.parametrize(("added", "kept"), [(CATALOGUE_LRU_SIZE - 1, True),
                                             (CATALOGUE_LRU_SIZE, False)])
def test_memory_forgets_the_oldest_key_past_sixty_four(added: int, kept: bool) -> None:
    memory = HashMemory()
    memory.remember("oldest", "h")
    for index in range(added):
        memory.remember(f"k{index}", "h")
    assert ("oldest" in memory) is kept
    assert len(memory) == min(added + 1, CATALOGUE_LRU_SIZE)


def test_seeing_a_key_makes_it_recent() -> None:
    memory = HashMemory(size=2)
    memory.remember("a", "h")
    memory.remember("b", "h")
    assert memory.seen("a", "h")
    memory.remember("c", "h")
    assert "a" in memory and "b" not in memory


def test_lru_size_is_sixty_four() -> None:
    assert CATALOGUE_LRU_SIZE == 64


def test_hash_is_the_digest_of_the_canonical_json() -> None:
    operations = [{"name": "b", "description": "caf\u00e9 \u2014 ok", "n": [1, 2]},
                  {"name": "a"}]
    canonical = '[{"name":"a"},{"description":"caf\\u00e9 \\u2014 ok","n":[1,2],"name":"b"}]'
    digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]
    assert catalogue_hash(operations) == "sha256:" + digest


def test_an_operation_without_a_name_sorts_first() -> None:
    canonical = '[{"x":1},{"name":"A"}]'
    digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]
    assert catalogue_hash([{"name": "A"}, {"x": 1}]) == "sha256:" + digest


def test_a_summary_cut_at_a_space_loses_the_space_before_the_ellipsis() -> None:
    text = "a" * (SUMMARY_LIMIT - 2) + " " + "b" * 10
    assert first_sentence(text) == "a" * (SUMMARY_LIMIT - 2) + "\u2026"


def test_a_memory_of_one_keeps_the_latest_key() -> None:
    memory = HashMemory(1)
    memory.remember("k1", "h1")
    memory.remember("k2", "h2")
    assert len(memory) == 1 and "k2" in memory and "k1" not in memory
    with pytest.raises(ValueError):
        HashMemory(0)
