"""`%project sync`'s plan for a folder of 1,000 Markdown files (hashing plus one listing of
the Project), in a fresh worker process against the reference service: the first plan
(every file new), the rerun's plan once the folder is synced (every doc listed and
unchanged), and the worker's RSS growth while planning — each against a bare walk-and-hash
of the same folder (os.walk, read, sha256) in the same run, interleaved, best of each."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from . import service
from .context import Context, run_python
from .measure import PeakGrowth
from .report import Row, mib, ms, ratio
from .text import Writer

#: the files of the folder, spread over this many nested folders
FOLDERS = 10
FILE_BYTES = 2048
ROUNDS = 7


def make_folder(root: Path, n_files: int) -> int:
    """n Markdown files of ~2 KiB in nested folders, a .gitignore and two ignored files;
    the folder's total bytes."""
    writer = Writer()
    total = 0
    for i in range(n_files):
        folder = root / f"area-{i % FOLDERS}" / f"topic-{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        text = f"# Note {i}\n\n" + writer.text(FILE_BYTES)
        (folder / f"note-{i:04}.md").write_text(text)
        total += len(text.encode())
    (root / ".gitignore").write_text("*.log\n")
    (root / "run.log").write_text("ignored\n")
    return total


def bare_walk_and_hash(root: Path) -> int:
    """The floor: every file under root read and hashed (no rules, no Project)."""
    count = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                hashlib.sha256(handle.read()).hexdigest()
            count += 1
    return count


def _sync_worker(folder: str, data: str, *, rounds: int) -> dict:
    from jupyter_design_projects.projects.sync import SyncRequest, plan_sync, run_sync
    from jupyter_design_projects.session import Session
    from jupyter_design_projects.settings import Settings

    root = Path(folder)
    with Session(Settings.resolve(os.environ), data_dir=Path(data) / "session") as s:
        s.run(s.projects.info())  # scopes, modules and the client warm first
        state = s.sync_state
        request = SyncRequest(root, to="bench-sync")

        def plan_once() -> float:
            start = time.perf_counter()
            s.run(plan_sync(s.projects, state, request))
            return time.perf_counter() - start

        def bare_once() -> float:
            start = time.perf_counter()
            bare_walk_and_hash(root)
            return time.perf_counter() - start

        s.run(plan_sync(s.projects, state, request))  # imports, caches
        with PeakGrowth() as peak:
            first_plan = s.run(plan_sync(s.projects, state, request))
        growth = peak.bytes
        first, bare = [], []
        for _ in range(rounds):
            first.append(plan_once())
            bare.append(bare_once())
        start = time.perf_counter()
        done = s.run(run_sync(s.projects, state, request,
                              approve=lambda plan: True))
        apply_s = time.perf_counter() - start
        assert done.report is not None and done.report.error is None
        rerun, bare2 = [], []
        for _ in range(rounds):
            rerun.append(plan_once())
            bare2.append(bare_once())
        again = s.run(plan_sync(s.projects, state, request))
        assert not again.writes
    return {"files": len(first_plan.writes), "first": min(first), "bare": min(bare),
            "rerun": min(rerun), "bare2": min(bare2), "growth": growth, "apply": apply_s,
            "docs": len(done.report.written)}


def sync_plan(ctx: Context) -> list[Row]:
    n_files = ctx.n(1000, 30)
    data = ctx.scratch("sync")
    folder = data / "folder"
    folder.mkdir()
    total = make_folder(folder, n_files)
    with service.running(data / "service") as svc:
        call = ("import json; from bench.figures_sync import _sync_worker as w; "
                f"print(json.dumps(w({str(folder)!r}, {str(data)!r}, "
                f"rounds={ctx.n(ROUNDS, 1)})))")
        env = {**os.environ, **service.env_of(svc)}
        got = json.loads(run_python(call, env=env).splitlines()[-1])
    n = got["files"]
    return [
        Row(f"sync plan of {n:,} files, first sync (walk, hash, one listing)",
            ms(got["first"] * 1000), f"bare walk+hash {ms(got['bare'] * 1000)}",
            ratio(got["first"], got["bare"]), "≤ 1 s", got["first"] <= 1.0, "sync_plan"),
        Row(f"… the rerun's plan, {n:,} docs synced and listed (nothing to write)",
            ms(got["rerun"] * 1000), f"bare walk+hash {ms(got['bare2'] * 1000)}",
            ratio(got["rerun"], got["bare2"]), "≤ 1 s", got["rerun"] <= 1.0, "sync_plan"),
        Row("… worker RSS growth during the first plan", mib(got["growth"]),
            f"the folder {mib(total)}", f"{got['growth'] / total:.2f}×",
            "< the folder (files streamed)", got["growth"] < total, "sync_plan"),
        Row(f"… the approved run: {got['docs']:,} writes in journaled groups after one "
            "listing (against a raw loop: `sync_apply`)", ms(got["apply"] * 1000),
            command="sync_plan"),
    ]


FIGURES = {"sync_plan": sync_plan}
