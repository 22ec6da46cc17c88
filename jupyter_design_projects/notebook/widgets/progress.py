"""Progress bars for long work: the first connection (starting the service, signing in, the
first handshake), uploads and downloads of a MiB or more, and a sync's batch of writes
(items and bytes done, rate and time left, as `core.batch_progress` counts them).

A panel is built and displayed on the kernel's main thread before the work starts, hidden;
`report(label, done, total)` — the pipelines' progress callback, called from the
session's loop thread — only updates widget values, which needs no display call.
"""

from __future__ import annotations

import dataclasses

from ...core.batch_progress import BatchProgress, bytes_of

#: transfers smaller than this show no bar
MIB = 1_048_576

TRANSFERS = ("download", "upload")


@dataclasses.dataclass(frozen=True)
class Step:
    """What a bar shows for one report: fraction done and its caption."""

    fraction: float
    caption: str


def step_of(label: str, done: int, total: int | None) -> Step | None:
    """The bar state for a report, or None when it deserves no bar (a small transfer)."""
    transfer = label.split(" ", 1)[0] in TRANSFERS
    if transfer:
        if total is None or total < MIB:
            return None
        return Step(min(1.0, max(0.0, done / total)),
                    f"{label}: {bytes_of(done, total)}")
    if total:
        return Step(min(1.0, max(0.0, done / total)), f"{label} ({done}/{total})")
    return Step(0.0, label)


def batch_step(progress: BatchProgress, label: str = "sync") -> Step:
    """The bar state of a batch: the fraction of writes done, and its counts as caption."""
    return Step(min(1.0, max(0.0, progress.fraction)), f"{label}: {progress.text()}")


class ProgressPanel:
    """One bar and its caption; invisible until a report deserves a bar."""

    def __init__(self, label: str = "sync") -> None:
        """`label` names a batch's bar (a sync, a deck push)."""
        import ipywidgets as w

        self.label = label

        self.bar = w.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info")
        self.caption = w.Label()
        self.widget = w.HBox([self.bar, self.caption], layout=w.Layout(display="none"))
        self.visible = False

    def report(self, label: str, done: int, total: int | None) -> None:
        step = step_of(label, done, total)
        if step is not None:
            self.show(step)

    def report_batch(self, progress: BatchProgress) -> None:
        """A batch's progress (every write of it, whatever its size)."""
        self.show(batch_step(progress, self.label))

    def show(self, step: Step) -> None:
        self.bar.value = step.fraction
        self.caption.value = step.caption
        if step.fraction >= 1.0:
            self.bar.bar_style = "success"
        if not self.visible:
            self.visible = True
            self.widget.layout.display = "flex"

    def close(self) -> None:
        self.widget.close()

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)
