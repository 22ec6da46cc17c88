"""core.json_tree: the layout of a result as a tree, its counts and paths, and its budget
(nodes, depth, string, key and path lengths), each at its exact boundary and one past."""

from __future__ import annotations

import json

import pytest

from jupyter_design_projects.core.json_tree import (
    Limits,
    child_path,
    cut_note,
    hidden_note,
    kind_of,
    layout,
    summary_note,
    text_lines,
)


def node_at(tree, *keys):
    node = tree.root
    for key in keys:
        node = next(c for c in node.children if c.key == key)
    return node


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


@pytest.mark.parametrize(("value", "count"), [
    ({}, "{}"), ([], "[]"), ({"a": 1}, "{1 key}"), ({"a": 1, "b": 2, "c": 3}, "{3 keys}"),
    ([0], "[1 item]"), (list(range(12)), "[12 items]"), (list(range(1234)), "[1,234 items]"),
])
def test_a_record_or_list_says_how_many_keys_or_items_it_holds(value, count):
    assert layout(value).root.count == count


@pytest.mark.parametrize(("value", "kind", "text"), [
    (None, "null", "null"), (True, "boolean", "true"), (False, "boolean", "false"),
    (0, "number", "0"), (-12, "number", "-12"), (2.5, "number", "2.5"),
    (1e20, "number", "1e+20"), (float("nan"), "number", "NaN"),
    (float("-inf"), "number", "-Infinity"), ("hé ✓ 日本", "string", '"hé ✓ 日本"'),
    ("", "string", '""'), ('say "hi"\n', "string", '"say \\"hi\\"\\n"'),
])
def test_each_scalar_is_its_json_text(value, kind, text):
    root = layout(value).root
    assert (root.kind, root.text, root.cut) == (kind, text, 0)


def test_a_value_that_is_not_json_is_shown_by_its_repr():
    class Thing:
        def __repr__(self) -> str:
            return "<thing>"

    root = layout({"x": Thing(), "t": (1, 2)}).root
    assert [(c.kind, c.text or c.count) for c in root.children] == [
        ("other", "<thing>"), ("array", "[2 items]")]
    assert kind_of(b"x") == "other"


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, True, None, "x"], "b": {}, "c": [], "d": {"e": {"f": "ü\u00e9"}}},
    [[], [[]], {"k": [{"z": 0}]}],
    "just a string",
    [1],
])
def test_a_value_within_the_budget_is_its_indented_json_exactly(value):
    tree = layout(value)
    assert tree.complete
    assert "\n".join(text_lines(tree, ".data")) == json.dumps(value, indent=2,
                                                              ensure_ascii=False)


@pytest.mark.parametrize(("parent", "key", "path"), [
    ("$", "content", "$.content"),
    ("$.content", 0, "$.content[0]"),
    ("$.content[0]", "text", "$.content[0].text"),
    ("$", "a b", '$["a b"]'),
    ("$", 'say "x"', '$["say \\"x\\""]'),
    ("$", "1st", '$["1st"]'),
    ("$", "_ok9", "$._ok9"),
    ("$", "é", '$["é"]'),
    ("$", "", '$[""]'),
])
def test_each_node_has_a_path_to_copy(parent, key, path):
    assert child_path(parent, key) == path


def test_the_paths_of_a_laid_out_tree():
    tree = layout({"content": [{"type": "text", "text": "hi"}]})
    assert node_at(tree, "content", 0, "text").path == "$.content[0].text"
    assert tree.root.path == "$"


def test_a_path_at_its_limit_is_kept_and_one_longer_is_said_to_be_longer():
    assert child_path("$", "k" * 8, limit=10) == "$." + "k" * 8
    assert child_path("$", "k" * 9, limit=10) is None
    tree = layout({"k" * 9: {"x": 1}}, Limits(path_chars=10))
    inner = node_at(tree, "k" * 9)
    assert inner.path is None and inner.children[0].path is None  # and below it


def test_a_string_at_the_limit_is_whole_and_one_longer_is_cut_with_its_length_said():
    limits = Limits(string_chars=5)
    whole = layout("abcde", limits).root
    assert (whole.text, whole.cut, cut_note(whole)) == ('"abcde"', 0, "")
    cut = layout("abcdef", limits).root
    assert (cut.text, cut.cut, cut.size) == ('"abcde"', 1, 6)
    assert cut_note(cut) == "… 1 more character (6 in all)"
    long = layout("x" * 12_345, limits).root
    assert cut_note(long) == "… 12,340 more characters (12,345 in all)"


def test_a_long_key_is_cut_and_said():
    tree = layout({"k" * 7: 1}, Limits(key_chars=5))
    (child,) = tree.root.children
    assert (child.key_text, child.key_cut) == ('"kkkkk"', 2)
    assert tree.cut == 1 and not tree.complete
    assert layout({"k" * 5: 1}, Limits(key_chars=5)).complete


def test_a_long_number_is_cut_and_said():
    root = layout(10 ** 40, Limits(string_chars=10)).root
    assert (root.text, root.cut) == ("1" + "0" * 9, 31)
    assert cut_note(root) == "… 31 more characters"


def test_characters_that_do_not_show_as_themselves_are_written_as_escapes():
    root = layout({"a\u202eb": "x\u200by\u2028z\ud800\U000e0041"}).root
    (child,) = root.children
    assert child.key_text == '"a\\u202eb"'
    assert child.text == '"x\\u200by\\u2028z\\ud800\\udb40\\udc41"'
    assert layout("é ✓").root.text == '"é ✓"'  # letters and symbols stay as they are


def test_at_the_node_budget_everything_is_shown():
    value = list(range(9))  # the root and nine items: ten nodes
    tree = layout(value, Limits(nodes=10))
    assert (tree.shown, tree.hidden, tree.complete) == (10, 0, True)
    assert hidden_note(tree.root) == "" and summary_note(tree, ".data") == ""


def test_one_past_the_node_budget_the_item_left_out_is_said():
    tree = layout(list(range(10)), Limits(nodes=10))
    assert (tree.shown, tree.hidden, tree.complete) == (10, 1, False)
    assert hidden_note(tree.root) == "… 1 more item not shown"
    assert summary_note(tree, "the outcome's `.data`") == (
        "Not shown: 1 more key or item (the tree shows 100 of a record or list, 10 values "
        "in all). The whole value is in the outcome's `.data`.")
    lines = text_lines(tree, ".data")
    assert lines[-3:-1] == ["  … 1 more item not shown", "]"]


def test_the_budget_goes_breadth_first_so_every_top_level_key_shows():
    value = {"deep": {"a": list(range(5_000))}, "b": 1, "c": {"d": 2}}
    tree = layout(value, Limits(nodes=8))  # root; deep, b, c; a, d; then two of a's items
    assert [c.key for c in tree.root.children] == ["deep", "b", "c"]
    assert node_at(tree, "c", "d").text == "2"
    deep_list = node_at(tree, "deep", "a")
    assert len(deep_list.children) == 2 and deep_list.hidden == 4_998
    assert tree.hidden == 4_998


def test_at_the_items_limit_a_list_is_whole_and_one_more_is_counted():
    assert layout(list(range(5)), Limits(items=5)).complete
    tree = layout({"a": list(range(6)), "b": {str(i): i for i in range(7)}}, Limits(items=5))
    assert hidden_note(node_at(tree, "a")) == "… 1 more item not shown"
    assert hidden_note(node_at(tree, "b")) == "… 2 more keys not shown"
    assert tree.hidden == 3


def test_a_long_list_of_records_shows_what_its_first_records_hold():
    value = {"items": [{"n": i, "text": "y" * 50} for i in range(100_000)]}
    tree = layout(value)
    assert tree.shown == 1 + 1 + 100 + 200  # the root, items, 100 records, their keys
    first = node_at(tree, "items", 0)
    assert [c.key for c in first.children] == ["n", "text"]
    items = node_at(tree, "items")
    assert items.hidden == 100_000 - 100
    said = summary_note(tree, ".data")
    assert "99,900 more keys or items (the tree shows 100 of a record or list" in said


def test_a_huge_answer_lays_out_only_the_node_budget():
    value = [[{"a": i} for i in range(100)] for _ in range(100)]
    tree = layout(value)
    assert tree.shown == 1_000 == sum(1 for _ in walk(tree.root))
    # the root and its 100 lists, then 899 records: the 900th record and the other 91 lists'
    # records are not drawn (1 + 91 * 100), nor the key of each record drawn (899)
    assert tree.hidden == 1 + 91 * 100 + 899
    assert node_at(tree, 8).hidden == 1 and node_at(tree, 9).hidden == 100


def test_a_record_at_the_depth_limit_shows_only_its_count():
    limits = Limits(depth=2)
    assert layout([[1]], limits).complete  # levels 1 and 2 laid out
    tree = layout([[[1, 2]]], limits)
    deepest = tree.root.children[0].children[0]
    assert deepest.too_deep and deepest.children == [] and tree.too_deep == 1
    assert hidden_note(deepest) == "… 2 items not shown (deeper than the tree goes)"
    assert "1 record or list deeper than 2 levels" in summary_note(tree, ".data")


def test_a_very_deep_value_is_laid_out_without_recursion():
    value: list = []
    for _ in range(50_000):
        value = [value]
    tree = layout(value)
    assert tree.too_deep == 1 and tree.shown == 21
    assert len(text_lines(tree, ".data")) > 20


def test_empty_containers_are_whole_leaves():
    tree = layout({"e": {}, "l": []})
    assert tree.complete
    assert [(c.count, c.children) for c in tree.root.children] == [("{}", []), ("[]", [])]
