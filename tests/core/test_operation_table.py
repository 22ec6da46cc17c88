"""The Design operation table's rows (`core.design_operations`): what each target extractor
reads from a call, the copy card's lines, and the rules a row must keep."""

import dataclasses
import types

import pytest

from jupyter_design_projects.core import design_effects as effects
from jupyter_design_projects.core import design_operations as ops
from jupyter_design_projects.core.design_effects import (
    copy_lines,
    deletes_of_list,
    moves_of_entries,
    planned,
    writes_of_entries,
    writes_of_path,
)
from jupyter_design_projects.core.design_inputs import Input, Text, json_schema
from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    Approval,
    DesignOperation,
    operation_table,
    plan_operation,
)
from jupyter_design_projects.core.plans import Targets


def test_writes_of_entries_reads_the_named_key_of_each_entry() -> None:
    extract = writes_of_entries("files", "dest")
    call = {"files": [{"src": "a.html", "dest": "b.html"}, {"src": "c", "dest": "d/e.html"}]}
    assert extract(call) == Targets(("b.html", "d/e.html"))


@pytest.mark.parametrize("files", [None, "a.html", [{"dest": 3}], [{"src": "a"}], ["a.html"]])
def test_writes_of_entries_of_another_shape_cannot_be_enumerated(files: object) -> None:
    assert writes_of_entries("files", "dest")({"files": files}) is None


def test_writes_of_path_reads_the_field_or_its_default() -> None:
    extract = writes_of_path("path", "support.js")
    assert extract({"path": "lib/helper.js"}) == Targets(("lib/helper.js",))
    assert extract({}) == Targets(("support.js",))
    assert extract({"path": 7}) is None


def test_deletes_of_list_deletes_each_path() -> None:
    extract = deletes_of_list("paths")
    assert extract({"paths": ["a.html", "b/c.css"]}) == Targets((), ("a.html", "b/c.css"))
    assert extract({"paths": ["a.html", 3]}) is None
    assert extract({}) is None


def test_planned_reads_both_optional_lists() -> None:
    extract = planned("writes", "deletes")
    assert extract({"writes": ["a.html"], "deletes": ["b.html"]}) == Targets(
        ("a.html",), ("b.html",))
    assert extract({"writes": ["a.html"]}) == Targets(("a.html",), ())
    assert extract({"deletes": ["b.html"]}) == Targets((), ("b.html",))
    assert extract({}) == Targets()


@pytest.mark.parametrize("call", [{"writes": "a.html"}, {"deletes": [1]},
                                  {"writes": ["a"], "deletes": None}])
def test_planned_lists_of_another_shape_cannot_be_enumerated(call: dict) -> None:
    assert planned("writes", "deletes")(call) is None


def test_copy_lines_name_source_project_and_destination() -> None:
    call = {"files": [{"src": "./a.html", "dest": "b.html"},
                      {"src": "x.css", "dest": "y.css", "src_project_id": "p2"}]}
    assert copy_lines(call) == ("  copy a.html -> b.html",
                                "  copy x.css (from project p2) -> y.css")


@pytest.mark.parametrize("files", [
    None,
    ["a.html"],
    [{"src": "a.html", "dest": "../b.html"}],
    [{"src": "a" * 81, "dest": "b.html"}],
    [{"src": "a.html", "dest": "b" * 81}],
    [{"src": "a.html", "dest": "b.html", "src_project_id": "not an id"}],
])
def test_a_copy_that_cannot_be_shown_exactly_has_no_lines(files: object) -> None:
    assert copy_lines({"files": files}) is None


def test_moves_of_entries_write_each_destination_and_delete_each_source() -> None:
    extract = moves_of_entries("files", "from", "to")
    call = {"files": [{"from": "a.html", "to": "b.html"}, {"from": "c", "to": "d"}]}
    assert extract(call) == Targets(("b.html", "d"), ("a.html", "c"))
    assert extract({"files": [{"from": "a.html"}]}) is None


def test_a_row_that_touches_no_paths_has_no_targets() -> None:
    assert BY_NAME["add_member"].targets_of({"email": "a@b.example"}) == Targets()
    assert BY_NAME["delete_files"].targets_of({"paths": ["a.html"]}) == Targets(
        (), ("a.html",))


def test_the_plan_operation_is_the_row_approved_as_a_plan() -> None:
    assert plan_operation(BY_NAME) == "finalize_plan"
    renamed = dataclasses.replace(BY_NAME["finalize_plan"], name="register_plan")
    assert plan_operation(operation_table([BY_NAME["read_file"], renamed])) == "register_plan"
    assert plan_operation(operation_table([BY_NAME["read_file"]])) is None


def test_operation_table_is_read_only_and_keeps_the_given_order() -> None:
    rows = [ops.BY_NAME["read_file"], ops.BY_NAME["get_project"]]
    table = operation_table(rows)
    assert list(table) == ["read_file", "get_project"]
    assert table["get_project"] is rows[1]
    assert isinstance(table, types.MappingProxyType)


def test_a_row_keeps_the_local_schema_of_its_inputs() -> None:
    inputs = (Input("project_id", Text(), required=True),
              Input("plan_token", Text(), client_supplied=True))
    row = DesignOperation("touch", "Touch.", ops.WRITE, False, inputs, Approval.CARD)
    assert row.schema == json_schema(inputs)
    assert row.schema["required"] == ["project_id"]


@pytest.mark.parametrize(("floor", "approval"), [(ops.READ, Approval.CARD),
                                                  (ops.WRITE, Approval.READ)])
def test_a_read_only_floor_goes_with_read_approval(floor, approval) -> None:
    with pytest.raises(ValueError, match="odd_op"):
        DesignOperation("odd_op", "Odd.", floor, False, (), approval)


@pytest.mark.parametrize("approval", [Approval.GRANTABLE, Approval.PLAN_TOKEN])
def test_a_per_batch_plan_row_needs_its_targets(approval: Approval) -> None:
    with pytest.raises(ValueError, match="odd_op"):
        DesignOperation("odd_op", "Odd.", ops.WRITE, False, (), approval)
    row = DesignOperation("odd_op", "Odd.", ops.WRITE, False, (), approval,
                          writes_of_path("path", "x.js"))
    assert row.targets_of({}) == Targets(("x.js",))


def test_rows_that_touch_no_paths_need_no_targets() -> None:
    for approval in (Approval.CARD, Approval.SENSITIVE, Approval.PLAN):
        row = DesignOperation("odd_op", "Odd.", ops.WRITE, False, (), approval)
        assert row.targets_of({"path": "a.html"}) == Targets()


def test_required_and_optional_inputs_keep_name_type_and_description() -> None:
    kind = Text(max_length=3)
    assert ops._required("a", kind, "The a.") == Input("a", kind, required=True,
                                                       description="The a.")
    assert ops._optional("b", kind, "The b.") == Input("b", kind, description="The b.")


def test_the_journal_readers_list_each_path_and_skip_what_is_not_an_entry() -> None:
    assert effects.written_path("path", "support.js")({}) == [
        {"path": "support.js", "change": "written"}]
    assert effects.written_path("path", "support.js")({"path": "js/support.js"}) == [
        {"path": "js/support.js", "change": "written"}]
    assert effects.written_entries("files")({"files": ["a.html", {"path": "b", "data": 7}]}) == [
        {"path": "b", "change": "written", "bytes": 0}]
    assert effects.written_entries("files")({"files": "a.html"}) == []
    assert effects.deleted_list("paths")({"paths": "a.html"}) == []
    moved = effects.moved_entries("files", "src", "dest", "moved")
    assert moved({"files": [{"src": "a", "dest": "b", "src_project_id": "P"}, 3]}) == [
        {"path": "b", "change": "moved", "from": "a"}]


def test_a_call_that_touches_no_paths_is_journaled_without_its_project_or_token() -> None:
    [line] = effects.settings_change("update_sharing", {
        "project_id": "p", "plan_token": "SECRET", "scope": "org"})
    assert line == {"change": "update_sharing", "detail": '{"scope": "org"}'}
    [long] = effects.settings_change("op", {"text": "x" * 1000})
    assert len(long["detail"]) == effects.JOURNAL_DETAIL_CHARS


@pytest.mark.parametrize(("reader", "data"), [
    (effects.wrote_files, {"written": "2"}),
    (effects.created_project, {"project_id": 3}),
    (effects.deleted_files, {"removed": 1}),
    (effects.plan_made, {"plan_token": None}),
    (effects.preview_made, {"url": "u"}),
])
def test_a_summary_of_an_answer_of_another_shape_is_none(reader, data) -> None:
    assert reader(data) is None


def test_a_preview_summary_counts_what_it_can_and_clips_the_page_text() -> None:
    line = effects.preview_made({"open_url": "u", "console_logs": 5,
                                 "text_content": "w " * 400})
    assert line.startswith("Preview of u · 0 console log(s), 0 failed request(s)\n")
    assert line.endswith("…") and len(line.split("\n")[1]) == effects.EXCERPT_CHARS + 1
