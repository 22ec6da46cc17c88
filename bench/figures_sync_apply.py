"""The approved `%project sync` run (issue 35.1) at 250, 500, 1,000 and 2,000 files, in a
fresh worker process against the reference service, each against a raw loop of the same
requests in the same run: one listing of the Project, then each file read and POSTed as a
create with a bare sync httpx client (no journal, no check, no record). The two arms
alternate, each on an emptied Project (the docs of the arm before are deleted, untimed);
best of the rounds of each; the cost per file compared across the sizes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from . import service
from .context import Context, run_python
from .figures_sync import make_folder
from .report import Row, ms, ratio

SIZES = (250, 500, 1000, 2000)
QUICK_SIZES = (20, 40)
ROUNDS = 3
#: the targets: the run within this many times the raw loop, and the cost per file
#: within this factor from the cheapest size to the dearest
RAW_FACTOR = 2.0
FLAT_FACTOR = 1.3


def _raw_headers() -> dict[str, str]:
    from jupyter_design_projects.design.session import identity_headers
    from jupyter_design_projects.settings import Settings

    with open(os.environ["JDP_CREDENTIALS_FILE"]) as handle:
        token = json.load(handle)["access_token"]
    return {"Authorization": f"Bearer {token}",
            **identity_headers(Settings.resolve({}).client_platform)}


def _apply_worker(folders: dict[str, str], data: str, *, rounds: int) -> dict:
    import httpx

    from jupyter_design_projects.projects.sync import SyncRequest, apply_sync, plan_sync
    from jupyter_design_projects.session import Session
    from jupyter_design_projects.settings import Settings

    settings = Settings.resolve(os.environ)
    url = (f"{settings.api_base_url}/api/organizations/{settings.org_uuid}"
           f"/projects/{settings.project_uuid}")
    out: dict[str, dict[str, float]] = {}
    with Session(settings, data_dir=Path(data) / "session") as s, \
            httpx.Client(headers=_raw_headers(), timeout=120) as raw:
        s.run(s.projects.info())  # scopes, modules and the client warm first

        def empty_project() -> None:
            docs = raw.get(url + "/detail").json()["documents"]
            for doc in docs:
                raw.delete(f"{url}/docs/{doc['uuid']}").raise_for_status()

        def sync_once(root: Path, prefix: str) -> float:
            plan = s.run(plan_sync(s.projects, s.sync_state, SyncRequest(root, to=prefix)))
            start = time.perf_counter()
            report = s.run(apply_sync(s.projects, s.sync_state, plan), timeout=3600)
            took = time.perf_counter() - start
            assert report.error is None and len(report.written) == len(plan.writes)
            return took

        def raw_once(root: Path, prefix: str) -> float:
            files = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))
            start = time.perf_counter()
            raw.get(url + "/detail").raise_for_status()
            for rel in files:
                content = (root / rel).read_text()
                raw.post(url + "/docs", json={"file_name": f"{prefix}/{rel}",
                                              "content": content}).raise_for_status()
            return time.perf_counter() - start

        empty_project()
        for size, folder in folders.items():
            root = Path(folder)
            sync_s, raw_s = [], []
            for round_ in range(rounds):
                arms = [("sync", sync_once), ("raw", raw_once)]
                for name, arm in arms if round_ % 2 == 0 else arms[::-1]:
                    took = arm(root, f"{name}-{size}-{round_}")
                    (sync_s if name == "sync" else raw_s).append(took)
                    empty_project()
            out[size] = {"sync": min(sync_s), "raw": min(raw_s),
                         "sync_spread": max(sync_s) - min(sync_s),
                         "raw_spread": max(raw_s) - min(raw_s)}
    return out


def sync_apply(ctx: Context) -> list[Row]:
    sizes = QUICK_SIZES if ctx.quick else SIZES
    data = ctx.scratch("sync-apply")
    folders = {}
    for size in sizes:
        folder = data / f"folder-{size}"
        folder.mkdir()
        make_folder(folder, size)
        folders[str(size)] = str(folder)
    with service.running(data / "service") as svc:
        call = ("import json; from bench.figures_sync_apply import _apply_worker as w; "
                f"print(json.dumps(w({folders!r}, {str(data)!r}, "
                f"rounds={ctx.n(ROUNDS, 1)})))")
        env = {**os.environ, **service.env_of(svc)}
        got = json.loads(run_python(call, env=env, timeout=7200).splitlines()[-1])
    rows = []
    per_file = {}
    for size in sizes:
        one = got[str(size)]
        per_file[size] = one["sync"] / size
        rows.append(Row(
            f"approved `%project sync` run of {size:,} new files, best of "
            f"{ctx.n(ROUNDS, 1)} (spread {one['sync_spread'] * 1000:.0f} ms; raw "
            f"{one['raw_spread'] * 1000:.0f} ms)",
            ms(one["sync"] * 1000),
            f"raw loop: 1 listing + {size:,} POSTs {ms(one['raw'] * 1000)}",
            ratio(one["sync"], one["raw"]), f"≤ {RAW_FACTOR:g}× raw",
            one["sync"] <= RAW_FACTOR * one["raw"], "sync_apply"))
    cheap, dear = min(per_file.values()), max(per_file.values())
    raw_per_file = ", ".join(f"{got[str(s)]['raw'] / s * 1000:.2f}" for s in sizes)
    rows.append(Row(
        "… its cost per file across " + ", ".join(f"{s:,}" for s in sizes) + " files",
        ", ".join(f"{per_file[s] * 1000:.2f}" for s in sizes) + " ms",
        f"the cheapest size {cheap * 1000:.2f} ms a file (the raw loop's: {raw_per_file} ms)",
        ratio(dear, cheap),
        f"≤ {FLAT_FACTOR:g}× (flat)", dear <= FLAT_FACTOR * cheap, "sync_apply"))
    return rows


FIGURES = {"sync_apply": sync_apply}
