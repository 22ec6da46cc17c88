"""A replay's changes over a call's arguments: whole arguments replaced or dropped, and one
value deep inside an argument named by a JSON Pointer (RFC 6901) — replaced, dropped,
appended — with a clear refusal for a pointer that names nothing."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.replay_edits import EditRejected, apply_edits, pointer_steps

CALL = {"project_id": "p1",
        "files": [{"path": "a.html", "content": "<p>a</p>"},
                  {"path": "b.css", "content": "p{}"}],
        "options": {"dry": False, "a/b": 1, "t~x": 2}}


@pytest.mark.parametrize(("edits", "expected"), [
    ({}, CALL),
    ({"project_id": "p2"}, {**CALL, "project_id": "p2"}),
    ({"options": None}, {k: v for k, v in CALL.items() if k != "options"}),
    ({"absent": None}, CALL),
    ({"files/0/path": "z.html"},
     {**CALL, "files": [{"path": "z.html", "content": "<p>a</p>"}, CALL["files"][1]]}),
    ({"/files/1/content": "q{}"},
     {**CALL, "files": [CALL["files"][0], {"path": "b.css", "content": "q{}"}]}),
    ({"files/0": None}, {**CALL, "files": [CALL["files"][1]]}),
    ({"files/-": {"path": "c.js", "content": ""}},
     {**CALL, "files": [*CALL["files"], {"path": "c.js", "content": ""}]}),
    ({"options/dry": True}, {**CALL, "options": {**CALL["options"], "dry": True}}),
    ({"options/dry": None}, {**CALL, "options": {"a/b": 1, "t~x": 2}}),
    ({"options/a~1b": 5}, {**CALL, "options": {**CALL["options"], "a/b": 5}}),
    ({"options/t~0x": 7}, {**CALL, "options": {**CALL["options"], "t~x": 7}}),
    # in order: a pointer reaches into the argument an earlier key replaced
    ({"files": [{"path": "n.html"}], "files/0/path": "m.html"},
     {**CALL, "files": [{"path": "m.html"}]}),
])
def test_changes_apply_as_the_table_says(edits, expected) -> None:
    assert apply_edits(CALL, edits) == expected


@pytest.mark.parametrize(("key", "value", "why"), [
    ("files/2/path", "x", "index 2 is past the end (the array has 2 items)"),
    ("files/2", "x", "index 2 is past the end (the array has 2 items)"),
    ("files/01/path", "x", "'01' is not an array index"),
    ("files/-1/path", "x", "'-1' is not an array index"),
    ("files/first/path", "x", "'first' is not an array index"),
    ("files/-/path", "x", "'-' is not an array index"),
    ("files/-", None, "null cannot be appended (it drops an item)"),
    ("files/0/pth", "x", "there is no 'files/0/pth' (a new field is set by giving its "
                         "whole parent)"),
    ("filez/0/path", "x", "there is no 'filez'"),
    ("project_id/x", "y", "'project_id' holds no fields or items"),
    ("files/0/path/deeper", "y", "'files/0/path' holds no fields or items"),
    ("files//path", "x", "has an empty step"),
    ("files/", "x", "has an empty step"),
    ("options/t~2x", 1, "has a ~ that is not ~0 or ~1"),
    ("files/٣", "x", "'٣' is not an array index"),
])
def test_a_pointer_that_names_nothing_is_refused_and_changes_nothing(key, value, why) -> None:
    before = repr(CALL)
    with pytest.raises(EditRejected) as refused:
        apply_edits(CALL, {key: value})
    assert (refused.value.key, refused.value.why) == (key, why)
    assert repr(CALL) == before


def test_the_arguments_are_never_changed_in_place() -> None:
    given = {"files": [{"path": "a"}]}
    value = {"path": "v"}
    changed = apply_edits(given, {"files/0": value, "extra": [1]})
    changed["files"][0]["path"] = "w"
    changed["extra"].append(2)
    assert given == {"files": [{"path": "a"}]} and value == {"path": "v"}


@pytest.mark.parametrize(("key", "steps"), [
    ("a/b", ["a", "b"]), ("/a/b", ["a", "b"]), ("a~1b/c~0d", ["a/b", "c~d"]),
    ("a/~01", ["a", "~1"]),
])
def test_pointer_steps_unescape_once(key, steps) -> None:
    assert pointer_steps(key) == steps
