"""What a sync run did, as a person reads it: each plan row's result (written, not
written, changed since the plan) in a `result` column beside the plan's action, and the
run's summary in a few sentences that count the rows instead of listing every path (the
table names them), with a stop's error worded as a magic."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .outcomes import error_text

#: each row's result after a run, by what the report says of its path
WRITTEN = "written"
NOT_WRITTEN = "not written"
REPLANNED = "changed since the plan, not written"
#: how many paths the summary names before it counts the rest
PATHS_NAMED = 3


def row_results(report: Any) -> dict[str, str]:
    """Path → its result, for every write the plan held (the other rows have none)."""
    results = {row.path: NOT_WRITTEN for row in report.plan.writes}
    results.update({row.path: NOT_WRITTEN for row in report.not_written})
    results.update({row.path: REPLANNED for row in report.replanned})
    results.update({row.path: WRITTEN for row in report.written})
    return results


def with_results(rows: list[Mapping[str, Any]], report: Any) -> list[dict[str, Any]]:
    """The plan table with a `result` column after `action` (empty for a row that was
    not a write: unchanged, skipped, a conflict held back)."""
    results = row_results(report)
    out = []
    for row in rows:
        shown: dict[str, Any] = {}
        for key, value in row.items():
            shown[key] = value
            if key == "action":
                shown["result"] = results.get(str(row.get("path")), "")
        out.append(shown)
    return out


def _named(paths: list[str]) -> str:
    named = ", ".join(paths[:PATHS_NAMED])
    more = len(paths) - PATHS_NAMED
    return named + (f" and {more} more" if more > 0 else "")


def run_summary(report: Any) -> str:
    """The run in sentences: how many were written, why it stopped, what is left."""
    total = len(report.plan.writes)
    lines = [f"Written: {len(report.written):,} of {total:,}."]
    if report.replanned:
        lines.append(f"Changed since the plan, so not written (conflicts now): "
                     f"{_named([r.path for r in report.replanned])}.")
    if report.error is not None:
        at = report.not_written[0].path if report.not_written else "the first write"
        lines.append(f"Stopped at {at}: {error_text(report.error)}")
    elif report.interrupted:
        lines.append("Interrupted: stopped after the write in flight.")
    if report.not_written:
        count = len(report.not_written)
        lines.append(f"{count:,} not written (the result column says which): run the same "
                     "sync again to finish; nothing is written twice.")
    return " ".join(lines)
