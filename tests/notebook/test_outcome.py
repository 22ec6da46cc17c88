"""Outcomes: data, DataFrames, tool_result blocks and rich renderings of each result."""

from __future__ import annotations

import base64

import pytest

from jupyter_design_projects.errors import (
    BadCommand,
    DocNotFound,
    InvalidProjectsArgument,
    PermissionDenied,
    PermissionRefused,
    ProjectsApiError,
    ProjectsAuthFailed,
    ProjectsChangeDenied,
    ProjectsTransportFailed,
    ServiceStartFailed,
    UploadRejected,
)
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.views import theme
from jupyter_design_projects.notebook.views.budget import Budget, budget_of, meter_html
from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.catalogue import CatalogueView, matches
from jupyter_design_projects.notebook.widgets.progress import MIB, ProgressPanel, step_of
from tests.fakes.session import CATALOGUE, PNG, image_outcome, outcome

INFO = {
    "method": "project_info",
    "project": {"name": "Team Handbook"},
    "docs": [{"path": "claude/a.md", "doc_uuid": "d1", "created_at": "t",
              "estimated_token_count": 10}],
    "uploads": [{"path": "data.csv", "file_uuid": "f1", "file_kind": "other",
                 "file_size_bytes": 5, "mime_type": "text/csv", "created_at": "t"}],
    "knowledge_stats": {"knowledge_size": 1_500_000, "max_knowledge_size": 2_000_000,
                        "project_knowledge_search_threshold": 50_000,
                        "use_project_knowledge_search": True},
    "notice": "Projects scopes were added to your sign-in.",
}


def test_info_has_docs_and_uploads_tables_and_a_budget_meter():
    out = views.project_outcome("info", INFO)
    assert list(out.df.columns)[:2] == ["path", "doc_uuid"]
    assert out.df["path"].tolist() == ["claude/a.md"]
    assert out.frame("uploads")["file_uuid"].tolist() == ["f1"]
    assert out.budget == Budget(1_500_000, 2_000_000, 50_000, True)
    bundle = out._repr_mimebundle_()
    assert "Knowledge budget" in bundle["text/html"]
    assert out.notice in bundle["text/plain"]


def test_search_hits_become_a_dataframe():
    data = {"rag": True, "hits": [{"name": "a.md", "doc_uuid": "d1", "text": "x"},
                                  {"name": "b.md", "doc_uuid": "d2", "text": "y"}]}
    out = views.project_outcome("search", data)
    assert out.df["name"].tolist() == ["a.md", "b.md"]
    assert list(out.df.columns) == ["name", "doc_uuid", "text"]
    assert out.notice == views.SEARCH_HITS


@pytest.mark.parametrize(("error", "details"), [
    # a machine code and the words the message already holds are left out
    (PermissionDenied("write_files", "denied_on_card"), ""),
    (ProjectsChangeDenied("write", "denied_on_card"), ""),
    (ProjectsAuthFailed("read doc", "web", "expired", "auth_error", 401), ""),
    (UploadRejected("/tmp/x.bin", "too_large"), ""),
    (InvalidProjectsArgument("search", "n", "must be an integer from 1 to 15"), ""),
    (DocNotFound("a.md", ["b.md", "c.md"]), ""),
    # what the message does not say stays, in words
    (ProjectsTransportFailed("create doc", "connect", "web", detail="refused"),
     "reason: connect"),
    (BadCommand("design history", "the history holds no call 9"), ""),
])
def test_error_details_say_only_what_the_message_does_not(error, details):
    assert views.failed_outcome("x", error).error_fields() == details


def test_a_refusals_explanation_is_not_said_again_under_its_line_and_next_step():
    from jupyter_design_projects.core.permissions import explain
    from jupyter_design_projects.errors import PermissionRefused

    why = explain("denied_on_card")
    error = PermissionRefused("write_files", "denied_on_card", "Design write_files was not run: "
                              + why.split(". Run")[0] + ".", None)
    out = views.failed_outcome("design write_files", error)
    error.fields["explanation"] = why  # as a typed write's refusal carries it
    out.notice = f"{error.message} Next: run the call again to be asked again."
    assert out.error_fields() == ""
    error.fields["explanation"] = why + " Something else."  # a new sentence still shows
    assert out.error_fields() == f"explanation: {why} Something else."


def test_a_hits_passage_reads_on_one_line_and_the_data_keeps_its_breaks():
    passage = "# Retention\n\nRaw logs:\t90 days.\r\n- metrics: 3 years"
    out = views.project_outcome("search", {"rag": True, "hits": [
        {"name": "a.md", "doc_uuid": "d1", "text": passage}]})
    assert out.df["text"].tolist() == ["# Retention Raw logs: 90 days. - metrics: 3 years"]
    assert "\\n" not in out.df.to_string() and "\\n" not in out._repr_mimebundle_()["text/html"]
    assert out.data["hits"][0]["text"] == passage


def test_search_fallback_shows_docs_not_hits():
    data = {"rag": False, "note": "search is disabled", "docs": [{"path": "a.md",
                                                                  "doc_uuid": "d1"}],
            "uploads": []}
    out = views.project_outcome("search", data)
    assert "hits" not in out.tables
    assert out.df["path"].tolist() == ["a.md"]
    assert out.notice == "search is disabled"


def test_spilled_read_exposes_local_file(tmp_path):
    spilled = tmp_path / "project-doc-1.txt"
    spilled.write_text("a,b\n1,2\n")
    out = views.project_outcome("read", {"path": "big.csv", "local_file": str(spilled)})
    assert out.local_file == str(spilled)
    import pandas as pd

    assert pd.read_csv(out.local_file)["a"].tolist() == [1]


def test_inline_read_shows_the_content_escaped():
    out = views.project_outcome("read", {"path": "a.md", "content": "<b>hi</b>"})
    assert out.local_file is None
    html = out._repr_mimebundle_()["text/html"]
    assert "&lt;b&gt;hi&lt;/b&gt;" in html
    assert "<b>hi</b>" not in html


def test_history_rows_say_which_entries_can_be_restored():
    at = "2026-12-03T09:41:30.408Z"
    out = views.history_outcome([{"id": 3, "at": at, "action": "delete", "path": "a.md",
                                  "has_previous": True},
                                 {"id": 2, "at": at, "action": "write", "path": "b.md",
                                  "has_previous": False}])
    assert out.df["restorable"].tolist() == [True, False]
    dtype = str(out.df["time"].dtype)
    assert dtype.startswith("datetime64[") and "UTC" in dtype
    assert out.df["time"].iloc[0].isoformat() == "2026-12-03T09:41:30.408000+00:00"


def test_df_columns_have_proper_dtypes_and_html_shows_readable_times():
    out = views.project_outcome("info", {"docs": [
        {"path": "a.md", "uuid": "d1", "estimated_token_count": 12,
         "created_at": "2026-12-03T09:41:30.408Z"},
        {"path": "b.md", "uuid": "d2", "estimated_token_count": None, "created_at": "junk"}],
        "uploads": [{"file_name": "x.csv", "file_size_bytes": 3145728}]})
    docs = out.frame("docs")
    assert str(docs["estimated_token_count"].dtype) == "Int64"  # nullable, never float
    assert docs["estimated_token_count"].tolist()[0] == 12
    assert docs["estimated_token_count"].isna().tolist() == [False, True]
    assert docs["created_at"].isna().tolist() == [False, True]
    assert str(out.frame("uploads")["file_size_bytes"].dtype) == "Int64"
    shown = out._repr_mimebundle_()["text/html"]
    assert "2026-12-03 09:41:30 UTC" in shown and "T09:41:30.408Z" not in shown


@pytest.mark.parametrize(("record", "line"), [
    ({"path": "claude/x.md", "replaced": True, "bytes": 98, "journal_id": 9},
     "Replaced claude/x.md (98 bytes) · to undo it: %project restore 9"),
    ({"path": "claude/x.md", "replaced": False, "bytes": 2048, "journal_id": 4},
     "Created claude/x.md (2.0 KiB) · to undo it: %project delete claude/x.md"),
    ({"path": "claude/x.md", "replaced": False, "bytes": 1023},
     "Created claude/x.md (1,023 bytes) · to undo it: %project delete claude/x.md"),
])
def test_a_write_is_one_line_with_its_undo(record, line):
    out = views.project_outcome("write", {**record, "framing": "AGENT FRAMING"})
    assert out.body == line
    bundle = out._repr_mimebundle_()
    assert line in bundle["text/plain"]
    assert "AGENT FRAMING" not in bundle["text/plain"] + bundle["text/html"]
    assert "framing" not in out.data
    assert "AGENT FRAMING" in out.to_tool_result("toolu_1")["content"][0]["text"]


def test_delete_and_status_read_as_sentences():
    out = views.project_outcome("delete", {"path": "a.md", "deleted": True, "journal_id": 5})
    assert out.body == "Deleted a.md · to undo it: %project restore 5"
    status = views.status_outcome({"consent": True, "approved_plans": [
        {"project_id": "p1", "writes": ["a"], "deletes": [], "expires_in_s": 754}],
        "verified_grants": [], "grant_ineligible": ["p2"]})
    assert status.body.splitlines() == [
        "Consent: given", "Plan for p1: writes a (expires in 12 min 34 s)",
        "Projects approved for ordinary writes: none",
        "Projects that cannot hold a grant: p2"]


def test_status_names_each_project_it_knows_beside_its_id():
    status = views.status_outcome({"consent": True, "approved_plans": [
        {"project_id": "p1", "writes": ["a"], "deletes": [], "expires_in_s": 5}],
        "verified_grants": ["p1", "p3"], "grant_ineligible": []},
        names={"p1": "Quarterly Review Deck", "p3": None})
    assert status.body.splitlines() == [
        "Consent: given", "Plan for Quarterly Review Deck (p1): writes a (expires in 5 s)",
        "Projects approved for ordinary writes: Quarterly Review Deck (p1), p3",
        "Projects that cannot hold a grant: none"]


@pytest.mark.parametrize("existed", [True, False])
def test_revoke_says_what_it_did_in_a_sentence(existed):
    out = views.status_outcome({"revoked": existed, "consent": False, "approved_plans": [],
                                "verified_grants": [], "grant_ineligible": []},
                               label="design revoke")
    assert out.body.splitlines()[0] == views.REVOKED[existed]
    assert "Revoked:" not in out.body and "True" not in out.body


def test_a_routine_notice_is_plain_and_a_refusal_is_a_warning():
    routine = Outcome("design slide", {}, notice="Staged slides/01.html (10 bytes, new)")
    refused = views.failed_outcome("design write_files",
                                   PermissionRefused("write_files", "denied_on_card",
                                                     "you chose Deny. Run it again."))
    assert routine.notice_role == "info" and refused.notice_role == "notice"
    assert f'color:{theme.colour("info")}' in routine._repr_mimebundle_()["text/html"]
    assert "warn" not in theme.colour("info")
    assert f'color:{theme.colour("notice")}' in refused._repr_mimebundle_()["text/html"]


def test_list_projects_times_read_as_the_other_tables():
    out = views.design_outcome(outcome("list_projects", [
        {"id": "p", "name": "Deck", "updated_at": "2026-12-03T09:41:30.123456+00:00"}]))
    assert "<td>2026-12-03 09:41:30 UTC</td>" in out._repr_mimebundle_()["text/html"]
    assert str(out.df["updated_at"].dt.tz) == "UTC"


def test_create_project_is_a_sentence_not_json():
    out = views.design_outcome(outcome("create_project", {
        "project_id": "p-9", "url": "https://design.example/p/p-9"}))
    assert out.body == "Created Design project p-9 · open: https://design.example/p/p-9"
    assert '"project_id"' not in out._repr_mimebundle_()["text/html"]


def test_projects_tool_result_carries_the_json_and_is_error():
    out = views.project_outcome("write", {"doc_uuid": "d", "path": "claude/x.md"})
    block = out.to_tool_result("toolu_9")
    assert block["type"] == "tool_result"
    assert block["tool_use_id"] == "toolu_9"
    assert block["is_error"] is False
    assert '"doc_uuid": "d"' in block["content"][0]["text"]


def test_design_tool_result_is_the_design_outcomes_own():
    result = outcome("list_projects", [{"id": "p", "name": "Deck"}])
    out = views.design_outcome(result)
    assert out.to_tool_result("toolu_1") == result.to_tool_result("toolu_1")
    assert out.df["name"].tolist() == ["Deck"]


def test_design_images_display_inline():
    out = views.design_outcome(image_outcome())
    assert out.images == [("image/png", PNG)]
    bundle = out._repr_mimebundle_()
    encoded = base64.b64encode(PNG).decode()
    assert bundle["image/png"] == encoded
    assert f"data:image/png;base64,{encoded}" in bundle["text/html"]
    assert out.data == {"open_url": "https://x.example/p"}


def test_failed_outcome_is_an_error_with_the_errors_fields():
    out = views.failed_outcome("design write_files",
                               PermissionDenied("write_files", "run `%design consent`"))
    assert out.is_error
    assert out.data["error"] == "permission_denied"
    assert out.to_tool_result("t")["is_error"] is True


def test_an_outcome_without_a_table_has_no_df():
    with pytest.raises(AttributeError):
        _ = Outcome("design consent", {"consent": True}).df


# ---------------------------------------------------------------- catalogue


def test_catalogue_rows_mark_what_needs_approval():
    out = views.design_outcome(outcome("list", CATALOGUE))
    df = out.df
    assert df["name"].tolist() == ["list_projects", "write_files", "create_project"]
    assert df["needs_approval"].tolist() == [False, True, True]
    assert df["summary"].tolist()[0] == "List projects."
    assert df["input_schema"].tolist()[1]["required"] == ["project_id", "files"]


def test_unchanged_catalogue_says_how_to_get_the_schemas_again():
    view = {"catalog_unchanged": True, "catalog_hash": "h", "hint": "use --full",
            "operations": {"list_projects": "List projects.", "get_project": "A project."}}
    out = views.design_outcome(outcome("list", view))
    assert out.notice == "use --full"
    assert out.df["name"].tolist() == ["list_projects", "get_project"]
    assert out.df["summary"].tolist() == ["List projects.", "A project."]


@pytest.mark.parametrize(
    ("text", "flags", "names"),
    [
        ("", {}, ["list_projects", "write_files", "create_project"]),
        ("PROJ", {}, ["list_projects", "create_project"]),
        ("", {"read_only": True}, ["list_projects"]),
        ("", {"destructive": True}, ["write_files"]),
        ("", {"needs_approval": True}, ["write_files", "create_project"]),
        ("create", {"destructive": True}, []),
    ],
)
def test_catalogue_filters_by_name_and_flags(text, flags, names):
    rows = views.design_outcome(outcome("list", CATALOGUE)).tables["catalogue"]
    assert [r["name"] for r in rows if matches(r, text, flags)] == names
    view = CatalogueView(rows)
    view.name_filter.value = text
    for flag, on in flags.items():
        view.toggles[flag].value = on
    assert view.names() == names


def test_picking_an_operation_shows_its_description_and_schema():
    rows = views.design_outcome(outcome("list", CATALOGUE)).tables["catalogue"]
    view = CatalogueView(rows)
    view.pick("write_files")
    assert "Write files into a project." in view.detail.value
    assert "project_id" in view.detail.value
    parts = list(view.widget.children)
    assert parts.index(view.detail) < parts.index(view.table)  # seen without scrolling


def test_catalogue_outcome_renders_the_widget_with_an_html_fallback():
    out = views.design_outcome(outcome("list", CATALOGUE), catalogue_widget=CatalogueView)
    bundle = out._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "<table>" in bundle["text/html"]


def test_an_empty_catalogue_has_no_widget_and_renders_as_html():
    out = views.design_outcome(outcome("list", {"operations": []}),
                               catalogue_widget=CatalogueView)
    bundle = out._repr_mimebundle_()
    assert out.widget is None
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    assert "<b>catalogue</b> (0)" in bundle["text/html"]


def test_tables_are_built_once_when_first_read_or_shown():
    """A magic's tables are made when a person or the code looks, not on the call."""
    built = []

    def build():
        built.append(1)
        return {"hits": [{"name": "a.md", "doc_uuid": "d1", "text": "x"}]}

    out = Outcome("project search", {"hits": []}, tables=build)
    assert built == []
    assert "hits: 1 rows" in out._repr_mimebundle_()["text/plain"]
    assert out.df["name"].tolist() == ["a.md"]
    assert out.tables is out.tables
    assert built == [1]


def test_a_project_results_tool_result_is_the_full_answer_however_late_it_is_asked():
    data = {"rag": True, "framing": "Use these excerpts.", "hits": [{"name": "a.md"}]}
    out = views.project_outcome("search", data)
    block = out.to_tool_result("toolu_1")
    assert block["tool_use_id"] == "toolu_1"
    assert '"framing": "Use these excerpts."' in block["content"][0]["text"]
    assert "framing" not in out.data
    assert out.to_tool_result("toolu_1") == block


@pytest.mark.parametrize(
    ("operation", "data", "tables", "body"),
    [
        ("list_projects", [{"id": "p1"}, {"id": "p2"}], {"items": [{"id": "p1"}, {"id": "p2"}]},
         None),
        ("get_file", "plain text", {}, "plain text"),
        ("list_projects", [], {}, None),
        ("list_projects", [{"id": "p1"}, "x"], {}, None),
        ("delete_files", {"deleted": 2}, {}, "Deleted 2 file(s)"),
    ],
)
def test_design_results_become_a_table_or_a_body(operation, data, tables, body):
    out = views.design_outcome(outcome(operation, data))
    assert (out.tables, out.body) == (tables, body)


# ---------------------------------------------------------------- budget and progress


@pytest.mark.parametrize(
    ("size", "limit", "level"),
    [(0, 100, "ok"), (79, 100, "ok"), (80, 100, "warn"), (94, 100, "warn"),
     (95, 100, "full"), (120, 100, "full"), (5, 0, "full")],
)
def test_budget_level_at_its_boundaries(size, limit, level):
    assert Budget(size, limit).level == level


@pytest.mark.parametrize(
    "stats",
    [None, {}, {"knowledge_size": 1}, {"knowledge_size": "1", "max_knowledge_size": 2},
     {"knowledge_size": True, "max_knowledge_size": 2}],
)
def test_budget_needs_both_integer_sizes(stats):
    assert budget_of(stats) is None


def test_meter_marks_the_search_threshold():
    html = meter_html(Budget(10, 200, 50, False))
    assert "left:25.00%" in html
    assert "under the search threshold: Claude reads all of it" in html
    assert "over the search threshold" in meter_html(Budget(60, 200, 50, True))


@pytest.mark.parametrize(
    ("label", "done", "total", "shown"),
    [
        ("download big.bin", 0, MIB - 1, False),
        ("download big.bin", 0, MIB, True),
        ("upload notes.md", 0, None, False),
        ("upload notes.md", MIB, 2 * MIB, True),
        ("upload notes.md", 0, MIB - 1, False),
        ("upload notes.md", 0, MIB, True),
        ("connecting", 0, 1, True),
    ],
)
def test_transfers_get_a_bar_from_one_mib(label, done, total, shown):
    assert (step_of(label, done, total) is not None) is shown


def test_progress_panel_appears_on_the_first_big_report_and_fills():
    panel = ProgressPanel()
    panel.report("download a.bin", 0, 10)
    assert not panel.visible
    panel.report("download a.bin", MIB, 2 * MIB)
    assert panel.visible
    assert panel.bar.value == 0.5
    panel.report("download a.bin", 2 * MIB, 2 * MIB)
    assert panel.bar.bar_style == "success"
    panel.close()


@pytest.mark.parametrize(("count", "more"), [(50, False), (51, True)])
def test_html_tables_show_fifty_rows_and_say_how_many_more(count, more):
    from jupyter_design_projects.notebook.views.tables import HTML_ROW_LIMIT, html_table

    assert HTML_ROW_LIMIT == 50
    shown = html_table([{"n": i} for i in range(count)])
    assert shown.count("<tr>") == min(count, 50) + 1
    assert ("1 more rows" in shown) is more


def test_html_table_cells_are_escaped_and_shortened():
    from jupyter_design_projects.notebook.views.tables import HTML_CELL_LIMIT, html_table

    shown = html_table([{"a": "<img src=x onerror=alert(1)>", "b": "y" * (HTML_CELL_LIMIT + 1)}])
    assert "<img" not in shown
    assert "y" * HTML_CELL_LIMIT not in shown
    assert "y" * (HTML_CELL_LIMIT - 1) + "…" in shown


@pytest.mark.parametrize(
    "error",
    [
        DocNotFound("x.md", ["a.md", "b.md"]),
        ServiceStartFailed("exited", "Traceback\n  boom\n"),
        ProjectsApiError("detail", 500, "line one\r\nline two\tend"),
    ],
)
def test_an_error_becomes_one_line_with_every_word_kept(error):
    shown = views.one_line(error)
    assert "\n" not in shown and "\r" not in shown and "  " not in shown
    assert shown.split() == error.message.split()


def test_an_outcome_is_always_done_and_an_empty_result_says_so():
    out = Outcome("project delete", "")
    assert out.done is True
    assert out.to_tool_result("t")["content"] == [{"type": "text", "text": "(empty result)"}]


def test_an_error_outcome_shows_its_message_once_and_its_fields_as_words():
    import html as html_lib

    error = ProjectsApiError("create doc", 502, "bad gateway")
    bundle = views.failed_outcome("project write", error)._repr_mimebundle_()
    for mime, escape in (("text/plain", str), ("text/html", html_lib.escape)):
        assert bundle[mime].count(escape(error.message)) == 1
        # what the message says is not said twice
        assert "Details: retry_after" not in bundle[mime]
        # the remedy is the notice's "Next:", never its data
        assert "remedy" not in bundle[mime] and "run_again" not in bundle[mime]
        assert escape("{'") not in bundle[mime]


def test_a_failed_calls_df_says_why_it_failed_and_a_plain_results_says_use_data():
    error = ProjectsApiError("create doc", 502, "bad gateway")
    with pytest.raises(AttributeError) as failed:
        _ = views.failed_outcome("project write", error).df
    assert str(failed.value).startswith("project write failed, so it has no table: ")
    assert error.message in str(failed.value)
    with pytest.raises(AttributeError, match=r"^project delete has no table; use \.data$"):
        _ = Outcome("project delete", {"deleted": "a.md"}).df


def test_the_trace_table_shows_the_newest_exchange_first() -> None:
    from jupyter_design_projects.notebook.views.trace import TraceOutcome

    records = [{"method": "POST", "url": f"http://127.0.0.1/{i}", "status": 200}
               for i in range(3)]
    outcome = TraceOutcome(records)
    assert [row["url"] for row in outcome.data] == [
        "http://127.0.0.1/2", "http://127.0.0.1/1", "http://127.0.0.1/0"]


@pytest.mark.parametrize(("operation", "data", "line"), [
    ("write_files", {"written": 2, "url": "https://d.example/p/1",
                     "etags": {"slides/a.html": "e1", "a.css": "e2"},
                     "pages_written": ["slides/a.html"]},
     "Wrote 2 file(s): slides/a.html, a.css · open: https://d.example/p/1"),
    ("write_files", {"written": 6, "etags": {f"p{i}": "e" for i in range(6)}},
     "Wrote 6 file(s): p0, p1, p2, p3, p4 …"),
    ("write_files", {"written": 5, "etags": {f"p{i}": "e" for i in range(5)}},
     "Wrote 5 file(s): p0, p1, p2, p3, p4"),
    ("delete_files", {"deleted": 3}, "Deleted 3 file(s)"),
    ("finalize_plan", {"plan_token": "t", "project_id": "p1", "writes": ["a", "b"],
                       "deletes": []},
     "Plan approved for project p1: 2 write(s), 0 delete(s); the changes it lists can now "
     "be sent without another card"),
    ("render_preview", {"open_url": "https://d.example/p/1/s.html", "console_logs": [],
                        "failed_requests": [{"url": "x", "status": 404}]},
     "Preview of https://d.example/p/1/s.html · 0 console log(s), 1 failed request(s)"),
    ("render_preview", {"open_url": "u", "console_logs": ["a"], "failed_requests": [],
                        "text_content": "Next   steps\nShip it"},
     "Preview of u · 1 console log(s), 0 failed request(s)\nNext steps Ship it"),
])
def test_design_writes_plans_and_previews_read_as_one_line(operation, data, line):
    from jupyter_design_projects.core.design_operations import BY_NAME
    from jupyter_design_projects.design.approval import DesignOutcome

    out = views.design_outcome(DesignOutcome.of_data(operation, data, row=BY_NAME[operation]))
    assert out.body == line and out.data == data
    assert line in out._repr_mimebundle_()["text/plain"]


def test_project_history_says_who_approved_each_change():
    entries = [{"id": 3, "at": "2026-12-03T09:41:30Z", "action": "replace", "path": "a.md",
                "approved_by": "card"},
               {"id": 2, "at": "2026-12-03T09:40:00Z", "action": "create", "path": "b.md",
                "approved_by": "--yes"},
               {"id": 1, "at": "2026-12-03T09:39:00Z", "action": "delete", "path": "c.md",
                "approved_by": "approve callback"},
               {"id": 0, "at": "2026-12-03T09:38:00Z", "action": "create", "path": "d.md"}]
    out = views.history_outcome(entries)
    assert out.df["approved"].tolist() == ["on its card", "--yes (no card)",
                                           "a script's approve callback", "not recorded"]
    shown = out._repr_mimebundle_()["text/html"]
    assert "<th>approved</th>" in shown and "<td>--yes (no card)</td>" in shown
    assert out.data[0]["approved_by"] == "card"  # the data keeps the journal's value
