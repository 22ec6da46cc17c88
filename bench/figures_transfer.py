"""Big transfers, each in a fresh worker process so its RSS growth is its own: `write`
(the largest text doc the default knowledge budget admits, through `Session`, against a
raw httpx POST of the same body), `indexing` (the reference service's FTS5 indexing of
that doc) and `download` (a 20 MiB raw upload read to the 0600 download dir, against raw
httpx streaming the same answer to a file)."""

from __future__ import annotations

import base64
import json
import os
import random
import time
from pathlib import Path

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

from . import service
from .context import Context, run_python
from .measure import PeakGrowth
from .report import Row, mib, ms, ratio
from .text import Writer

RAW_MIB = 20
TOKENS_PER_BYTE = 4  # ceil(utf8 bytes / 4), PROTOCOL §0


def _worker(name: str, svc: EmbeddedService, data: Path, **args: object) -> dict:
    """Run `_<name>_worker(...)` of this module in a fresh interpreter; its JSON answer."""
    call = (f"import json; from bench.figures_transfer import _{name}_worker as w; "
            f"print(json.dumps(w({str(svc.base_url)!r}, {str(data)!r}, **{args!r})))")
    env = {**os.environ, **service.env_of(svc)}
    return dict(json.loads(run_python(call, env=env).splitlines()[-1]))


def _session(data: Path) -> Session:
    return Session(Settings.resolve(os.environ), data_dir=data / "session")


# ---------------------------------------------------------------- write


def largest_admitted(info: dict) -> int:
    stats = info["knowledge_stats"]
    return (stats["max_knowledge_size"] - stats["knowledge_size"]) * TOKENS_PER_BYTE


def _write_worker(base_url: str, data: str, *, rounds: int, cap: int) -> dict:
    import httpx

    folder = Path(data)
    with _session(folder) as s:
        info = s.run(s.projects.info())  # scopes, modules and the client warm first
        size = min(largest_admitted(info), cap)
        content = Writer().text(size)
        token = s.run(s.credentials.access_token()).reveal()
        prefix = (f"{base_url}/api/organizations/{s.settings.org_uuid}"
                  f"/projects/{s.settings.project_uuid}")
        ours, raw, growth = [], [], 0
        with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
            for i in range(rounds):  # ours first: its RSS growth is measured on a fresh heap
                with PeakGrowth() as peak:
                    start = time.perf_counter()
                    done = s.run(s.projects.write(f"bench-{i}.md", content=content))
                    ours.append(time.perf_counter() - start)
                growth = max(growth, peak.bytes)
                http.delete(f"{prefix}/docs/{done['doc_uuid']}").raise_for_status()
                body = json.dumps({"file_name": f"raw-{i}.md", "content": content}).encode()
                start = time.perf_counter()
                answer = http.post(f"{prefix}/docs", content=body,
                                   headers={"Content-Type": "application/json"})
                answer.raise_for_status()
                raw.append(time.perf_counter() - start)
                http.delete(f"{prefix}/docs/{answer.json()['uuid']}").raise_for_status()
    return {"size": size, "ours": min(ours), "raw": min(raw), "growth": growth}


#: interleaved rounds of the write figure, best of each (one write's time moves by a
#: third from round to round: the service's indexing and its WAL checkpoints)
WRITE_ROUNDS = 7


def write(ctx: Context) -> list[Row]:
    data = ctx.scratch("write")
    with service.running(data / "service") as svc:
        got = _worker("write", svc, data, rounds=ctx.n(WRITE_ROUNDS, 1),
                      cap=1 << 40 if not ctx.quick else 256 * 1024)
    size, ours, raw, growth = got["size"], got["ours"], got["raw"], got["growth"]
    return [
        Row(f"write of the largest doc the default budget admits ({mib(size)}), best of "
            f"{ctx.n(WRITE_ROUNDS, 1)}", ms(ours * 1000), f"raw httpx POST {ms(raw * 1000)}",
            ratio(ours, raw), "≤ 1.1× raw", ours <= 1.1 * raw, "write"),
        Row("… kernel RSS growth during that write", mib(growth), f"the doc {mib(size)}",
            f"{growth / size:.2f}×", "≤ 2.5× the doc", growth <= 2.5 * size, "write"),
    ]


# ---------------------------------------------------------------- indexing


def indexing(ctx: Context) -> list[Row]:
    """The service's `search.index` of the doc into a fresh database, against the bound
    FTS5 sets: a bare insert of the same chunks into an empty one-column FTS5 table with
    the same tokenizer (no name, no source row), interleaved, best of each."""
    import sqlite3

    from jupyter_design_projects.server.database import Database
    from jupyter_design_projects.server.projects import search
    from jupyter_design_projects.server.projects import store as projects_store

    size = ctx.n(7 * 1024 * 1024, 512 * 1024)
    content = Writer().text(size)
    pieces = [(piece,) for piece in search.chunks(content)]
    best = bare = float("inf")
    for i in range(ctx.n(5, 1)):
        db = Database(ctx.scratch("indexing") / service.DB_FILE)
        projects_store.migrate(db)
        with db.transaction() as conn:
            start = time.perf_counter()
            search.index(conn, "p", "doc", f"d{i}", "bench.md", content)
            best = min(best, time.perf_counter() - start)
        conn = sqlite3.connect(ctx.scratch("bare-fts5") / "bare.sqlite3", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE VIRTUAL TABLE bare USING fts5(text, tokenize = 'porter unicode61')")
        conn.execute("BEGIN IMMEDIATE")
        start = time.perf_counter()
        conn.executemany("INSERT INTO bare (text) VALUES (?)", pieces)
        bare = min(bare, time.perf_counter() - start)
        conn.execute("COMMIT")
        conn.close()
    rate = size / best / 1024 / 1024
    return [Row(f"reference service FTS5 indexing of a {mib(size)} doc, best of "
                f"{ctx.n(5, 1)}", f"{rate:.1f} MiB/s ({ms(best * 1000)})",
                f"bare FTS5 insert of its {len(pieces):,} chunks {ms(bare * 1000)} "
                f"({size / bare / 1024 / 1024:.1f} MiB/s)", ratio(best, bare),
                "≥ 20 MiB/s", rate >= 20, "indexing")]


# ---------------------------------------------------------------- download


def _download_worker(base_url: str, data: str, *, file_uuid: str, rounds: int) -> dict:
    import httpx

    folder = Path(data)
    with _session(folder) as s:
        s.run(s.projects.info())
        token = s.run(s.credentials.access_token()).reveal()
        url = (f"{base_url}/api/organizations/{s.settings.org_uuid}/projects/"
               f"{s.settings.project_uuid}/files/{file_uuid}/raw")
        headers = {"Authorization": f"Bearer {token}"}

        async def bare_client() -> httpx.AsyncClient:  # made on the session's loop
            return httpx.AsyncClient(headers=headers, timeout=300)

        async def bare_async(out: Path) -> None:
            """The async stack alone: a bare AsyncClient on the session's loop, streaming
            the answer to a file as the raw baseline does (none of our code)."""
            async with bare.stream("GET", url) as answer:
                answer.raise_for_status()
                with open(out, "wb") as sink:
                    async for chunk in answer.aiter_bytes():
                        sink.write(chunk)

        ours, raw, bare_times, growth = [], [], [], 0
        bare = s.run(bare_client())
        with httpx.Client(headers=headers, timeout=300) as http:
            for i in range(rounds):  # interleaved, so a noisy neighbour weighs on all three
                with PeakGrowth() as peak:
                    start = time.perf_counter()
                    done = s.run(s.projects.read("bench-raw.bin"))
                    ours.append(time.perf_counter() - start)
                growth = max(growth, peak.bytes)
                Path(done["local_file"]).unlink()
                start = time.perf_counter()
                with http.stream("GET", url) as answer, \
                        open(folder / f"raw-{i}.json", "wb") as out:
                    answer.raise_for_status()
                    for chunk in answer.iter_bytes():
                        out.write(chunk)
                raw.append(time.perf_counter() - start)
                start = time.perf_counter()
                s.run(bare_async(folder / f"bare-{i}.json"))
                bare_times.append(time.perf_counter() - start)
        s.run(bare.aclose())
    return {"ours": min(ours), "raw": min(raw), "bare": min(bare_times), "growth": growth,
            "bytes": done["bytes"]}


def download(ctx: Context) -> list[Row]:
    data = ctx.scratch("download")
    size = ctx.n(RAW_MIB * 1024 * 1024, 1024 * 1024)
    rounds = ctx.n(7, 1)
    with service.running(data / "service", faults=True) as svc:
        with service.raw_client(svc) as http:
            answer = http.post(svc.base_url + "/_faults/upload", json={
                "file_name": "bench-raw.bin", "file_kind": "other",
                "mime_type": "application/octet-stream",
                "data_b64": base64.b64encode(random.Random(5).randbytes(size)).decode()})
            answer.raise_for_status()
        got = _worker("download", svc, data, file_uuid=answer.json()["file_uuid"],
                      rounds=rounds)
    ours, raw, bare, growth = got["ours"], got["raw"], got["bare"], got["growth"]
    return [
        Row(f"raw download of {mib(size)} to the 0600 dir, best of {rounds}",
            ms(ours * 1000), f"raw httpx streaming to a file {ms(raw * 1000)}",
            ratio(ours, raw), "≤ 1.1× raw", ours <= 1.1 * raw, "download"),
        Row("… of which a bare `httpx.AsyncClient` streaming it to a file via `Session.run`",
            ms(bare * 1000), f"raw httpx streaming to a file {ms(raw * 1000)}",
            ratio(bare, raw), "–", None, "download"),
        Row("… kernel RSS growth during that download", mib(growth), f"the file {mib(size)}",
            f"{growth / size:.2f}×", "≤ 16 MiB", growth <= 16 * 1024 * 1024, "download"),
    ]


FIGURES = {"write": write, "indexing": indexing, "download": download}

