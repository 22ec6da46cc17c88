"""The writes of a deck's approved plans: one `write_files` per plan, in order, every
call's journal entry written ahead in one commit before the first is sent and all settled
in one commit after the last (a call the service refused, and those never sent, are
withdrawn; one with no usable answer stays `unknown`), counting items and bytes as they
are answered (`core.batch_progress`) and asking `stop()` before each call."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.batch_progress import BatchProgress, Tracker
from ..approval import DesignOutcome
from ..write_journal import may_have_written, with_digests
from .records import PushRecords
from .staging import StagedFile

#: approved batches, each `(paths, plan_token)`
Plans = Sequence[tuple[Sequence[str], str]]
#: what one answered call wrote: path -> (sha256 of the content, the etag answered)
Written = dict[str, tuple[str, str]]


@dataclasses.dataclass
class PushReport:
    """What one push's writes did: the paths written (answered), those not written (never
    sent: stopped, or after a failure), those whose call got no usable answer (`unknown`:
    it may have landed; the next push settles it), the failure that stopped it (a
    `DesignOutcome`, or the card a gone plan asks again), whether `stop()` stopped it, and
    the last count of items and bytes."""

    written: list[str] = dataclasses.field(default_factory=list)
    not_written: list[str] = dataclasses.field(default_factory=list)
    unknown: list[str] = dataclasses.field(default_factory=list)
    failure: Any = None
    stopped: bool = False
    progress: BatchProgress | None = None
    #: the answer of each call that wrote
    results: list[DesignOutcome] = dataclasses.field(default_factory=list)


class PlanWrites:
    """One run of approved plans through `client` (a `DesignClient`, or anything with its
    `call`, `journal` and `journal_entry`) to the project `project_id`. `staged` are the
    deck's staged files by path; `wrote(result)` remembers what an answered call wrote
    (and returns it); what was written is kept in `records` too."""

    def __init__(self, client: Any, records: PushRecords | None, project_id: str,
                 staged: Mapping[str, StagedFile],
                 wrote: Callable[[DesignOutcome], Written]) -> None:
        self._client = client
        self._records = records
        self._project_id = project_id
        self._staged = staged
        self._wrote = wrote
        self.done: list[int] = []
        self.withdrawn: list[int] = []
        self.written: Written = {}
        #: calls answered so far, and whether the next one is out
        self.answered, self.in_flight = 0, False

    async def run(self, plans: Plans, calls: list[dict[str, Any]], *,
                  on_progress: Callable[[BatchProgress], None] | None,
                  stop: Callable[[], bool] | None,
                  clock: Callable[[], float]) -> PushReport:
        """Send `calls` (the `write_files` arguments of `plans`, in order); the first
        failure stops the run. `on_progress` hears the files and bytes done after each
        call; `stop()` is asked before each (True: the rest are not sent)."""
        entries = await self._journal_ahead(calls)
        tracker = Tracker(sum(len(batch) for batch, _ in plans),
                          sum(len(self._staged[p].data) for batch, _ in plans for p in batch),
                          clock)
        report = PushReport(progress=tracker.now)
        if on_progress is not None:
            on_progress(tracker.now)
        try:
            for (batch, _token), arguments, entry in zip(plans, calls, entries, strict=True):
                if stop is not None and stop():
                    report.stopped = True
                    break
                self.in_flight = True
                result = await self._client.call("write_files", arguments, journaled=entry)
                self.in_flight, self.answered = False, self.answered + 1
                if not self._answered(result, batch, entry, report, tracker):
                    break
                if on_progress is not None:
                    on_progress(tracker.now)
        finally:
            self._unsent(plans, entries, report)
            await self._settle()
        return report

    def _answered(self, result: Any, batch: Sequence[str], entry: int | None,
                  report: PushReport, tracker: Tracker) -> bool:
        """Count one answered call in `report`; whether it wrote (False: the run stops)."""
        if isinstance(result, DesignOutcome) and not result.is_error:
            self.written.update(self._wrote(result))
            report.results.append(result)
            report.written += batch
            for path in batch:
                report.progress = tracker.done(len(self._staged[path].data), path)
            if entry is not None:
                self.done.append(entry)
            return True
        report.failure = result
        if isinstance(result, DesignOutcome) and may_have_written(result.error):
            report.unknown += batch  # no usable answer: its entry stays `unknown`
        elif entry is not None:
            self.withdrawn.append(entry)  # refused: nothing changed
        return False

    def _unsent(self, plans: Plans, entries: list[int | None], report: PushReport) -> None:
        """A call cut off in flight (the task cancelled) stays `unknown`; those after it
        were never sent, so nothing changed: withdrawn."""
        if self.in_flight:
            report.unknown += plans[self.answered][0]
        never = self.answered + (1 if self.in_flight else 0)
        for batch, _token in plans[never:]:
            report.not_written += batch
        self.withdrawn += [entry for entry in entries[never:] if entry is not None]

    async def _journal_ahead(self, calls: list[dict[str, Any]]) -> list[int | None]:
        """Each call's journal entry (with the content hash and `if_match` of every file),
        in one commit; Nones when there is no journal or it could not be written (the
        client then journals each call itself, as for any write)."""
        journal = getattr(self._client, "journal", None)
        if journal is None or not calls:
            return [None] * len(calls)
        fields = []
        for arguments in calls:
            entry = self._client.journal_entry("write_files", arguments)
            if entry is None:
                return [None] * len(calls)
            fields.append({**entry, "changes": with_digests(entry["changes"],
                                                             arguments["files"])})
        ids = await asyncio.to_thread(journal.ahead_many, fields)
        return list(ids) if ids is not None else [None] * len(calls)

    async def _settle(self) -> None:
        """One commit of the journal's outcomes and one of the push records (two files,
        committed side by side)."""
        journal = getattr(self._client, "journal", None)
        commits = []
        if journal is not None:
            commits.append(asyncio.to_thread(journal.settle_many, self.done, self.withdrawn))
        if self._records is not None and self.written:
            commits.append(asyncio.to_thread(self._records.save, self._project_id,
                                             self.written))
        await asyncio.gather(*commits)
