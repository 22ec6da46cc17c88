"""What a sync run did, as the notebook says it: each write's result beside the plan's
action, and a summary that counts the paths left instead of listing all of them."""

from __future__ import annotations

from pathlib import Path

from jupyter_design_projects.errors import ProjectsApiError
from jupyter_design_projects.notebook.views.sync_result import run_summary, with_results
from jupyter_design_projects.projects.sync_rows import Row, SyncPlan, SyncReport


def plan_of(n: int) -> SyncPlan:
    rows = [Row(f"kb/{i:03}.md", f"{i:03}.md", "new", bytes=10, tokens=3) for i in range(n)]
    rows.append(Row("kb/same.md", "same.md", "unchanged"))
    return SyncPlan(Path("notes"), "kb", "push", False, frozenset(), rows, 0, 3 * n, 10_000,
                    "scope")


def test_an_interrupted_run_of_147_counts_the_144_left_and_the_table_names_them() -> None:
    plan = plan_of(147)
    writes = plan.writes
    report = SyncReport(plan, written=writes[:3], not_written=writes[3:], interrupted=True)
    summary = run_summary(report)
    assert summary == ("Written: 3 of 147. Interrupted: stopped after the write in flight. "
                       "144 not written (the result column says which): run the same sync "
                       "again to finish; nothing is written twice.")
    assert "kb/100.md" not in summary  # no paragraph of paths
    rows = with_results(plan.table(), report)
    results = {row["path"]: row["result"] for row in rows}
    assert [results[f"kb/{i:03}.md"] for i in range(5)] == ["written"] * 3 + ["not written"] * 2
    assert sum(r == "not written" for r in results.values()) == 144
    assert results["kb/same.md"] == ""
    assert list(rows[0])[:4] == ["path", "local", "action", "result"]


def test_a_stopped_run_words_its_error_as_a_magic_and_names_a_few_replanned_paths() -> None:
    plan = plan_of(6)
    writes = plan.writes
    error = ProjectsApiError("create doc", 500, "boom")
    report = SyncReport(plan, written=writes[:1], not_written=writes[5:], replanned=writes[1:5],
                        error=error)
    summary = run_summary(report)
    assert summary.startswith("Written: 1 of 6. Changed since the plan, so not written "
                              "(conflicts now): kb/001.md, kb/002.md, kb/003.md and 1 more. "
                              "Stopped at kb/005.md: Projects create doc failed with HTTP 500")
    assert "Next:" in summary and "session." not in summary  # a magic's words, not Python's
    results = {row["path"]: row["result"] for row in with_results(plan.table(), report)}
    assert results["kb/004.md"] == "changed since the plan, not written"


def test_a_run_that_finished_says_only_how_many_were_written() -> None:
    plan = plan_of(2)
    report = SyncReport(plan, written=plan.writes)
    assert run_summary(report) == "Written: 2 of 2."
    assert {row["result"] for row in with_results(plan.table(), report)} == {"written", ""}
