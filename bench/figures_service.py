"""The reference service under data and load: `search` (latency at 1k, 10k and 100k docs
seeded straight into a service data dir, then served by the embedded launcher) and `load`
(16 concurrent clients mixing search, read and write for a bounded time)."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import httpx

from . import service
from .context import Context
from .measure import cpu_seconds, percentile
from .report import Row, ms
from .text import Writer

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (100, 300, 1_000)
DOC_CHARS = 1_200  # two chunks of the service's ~800-character chunking
P99_TARGET_MS = 20.0


def seed_docs(data_dir: Path, project_uuid: str, first: int, last: int, corpus: str) -> None:
    """Docs `first`..`last-1` written straight into the stopped service's database, with
    the service's own indexing code, and its budget lifted to hold them; each doc is a
    slice of `corpus` at a seeded place (quicker than writing 100k texts afresh)."""
    import random

    from jupyter_design_projects.server.database import Database
    from jupyter_design_projects.server.projects import search
    from jupyter_design_projects.server.projects import store as projects_store

    db = Database(data_dir / service.DB_FILE)
    now = time.time()
    rng = random.Random(first)
    with db.transaction() as conn:
        projects_store.set_limits(conn, project_uuid, max_knowledge_size=10**12, threshold=None)
        for i in range(first, last):
            at = rng.randrange(len(corpus) - DOC_CHARS)
            doc_uuid, name, content = str(uuid.uuid4()), f"seeded/doc-{i:06d}.md", \
                corpus[at:at + DOC_CHARS]
            conn.execute("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (doc_uuid, project_uuid, name, content,
                          projects_store.estimate_tokens(content), now, now))
            search.index(conn, project_uuid, "doc", doc_uuid, name, content, fresh=True)


def search_latency(ctx: Context) -> list[Row]:
    data = ctx.scratch("search") / "service"
    queries = ctx.n(1000, 50)
    writer = Writer(seed=3)
    corpus = writer.text(ctx.n(8, 1) * 1024 * 1024)
    rows, seeded = [], 0
    with service.running(data) as svc:  # creates and seeds the data dir
        project = svc.project_uuid
    assert project is not None
    for size in (QUICK_SIZES if ctx.quick else SIZES):
        seed_docs(data, project, seeded, size, corpus)
        seeded = size
        with service.running(data) as svc, service.raw_client(svc) as http:
            url = service.project_url(svc) + "/kb/search"
            asked = [writer.query() for _ in range(queries + 20)]
            assert svc.process is not None
            samples, cpu = [], 0.0
            for i, query in enumerate(asked):
                if i == 20:  # the first 20 warm the page cache
                    cpu = cpu_seconds(svc.process.pid)
                start = time.perf_counter()
                http.get(url, params={"query": query, "n": 5}).raise_for_status()
                if i >= 20:
                    samples.append((time.perf_counter() - start) * 1000)
            cpu = (cpu_seconds(svc.process.pid) - cpu) / len(samples) * 1000
        p50, p99 = percentile(samples, 50), percentile(samples, 99)
        target = f"p99 ≤ {P99_TARGET_MS:.0f} ms" if size == SIZES[-1] or ctx.quick else "–"
        met = p99 <= P99_TARGET_MS if target != "–" else None
        rows.append(Row(f"search latency, {size:,} docs, {queries} 1–3-word queries, "
                        "raw httpx", f"p50 {ms(p50)}, p99 {ms(p99)}; service CPU "
                        f"{ms(cpu)} a query", "–", "–", target, met, "search"))
    return rows


class Mix:
    """One of the concurrent clients: search 70%, read 20%, write 10% of its requests."""

    def __init__(self, svc, seed: int, docs: list[str]) -> None:
        self.http = service.raw_client(svc)
        self.prefix = service.project_url(svc)
        self.writer = Writer(seed=seed)
        self.deadline = 0.0
        self.docs = docs
        self.seed = seed
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.written: list[str] = []

    def one(self, i: int) -> None:
        pick = self.writer.rng.random()
        if pick < 0.7:
            answer = self.http.get(self.prefix + "/kb/search",
                                   params={"query": self.writer.query(), "n": 5})
        elif pick < 0.9:
            answer = self.http.get(f"{self.prefix}/docs/{self.writer.rng.choice(self.docs)}")
        else:
            name = f"load/client-{self.seed}-{i}.md"
            answer = self.http.post(self.prefix + "/docs", json={
                "file_name": name, "content": self.writer.text(800)})
            if answer.is_success:
                self.written.append(name)
        if not answer.is_success:
            self.errors.append(f"{answer.request.method} {answer.status_code}")

    def run(self) -> None:
        i = 0
        with self.http:
            while time.monotonic() < self.deadline:
                start = time.perf_counter()
                try:
                    self.one(i)
                except httpx.HTTPError as exc:
                    self.errors.append(type(exc).__name__)
                self.latencies.append((time.perf_counter() - start) * 1000)
                i += 1


def load(ctx: Context) -> list[Row]:
    seconds = 3.0 if ctx.quick else 60.0
    clients = 16
    with service.running(ctx.scratch("load") / "service") as svc:
        with service.raw_client(svc) as http:
            detail = http.get(service.project_url(svc) + "/detail").json()
            docs = [d["uuid"] for d in detail["documents"]]
        mixes = [Mix(svc, seed, docs) for seed in range(clients)]
        deadline = time.monotonic() + seconds  # after the clients exist (~0.2 s each)
        for mix in mixes:
            mix.deadline = deadline
        threads = [threading.Thread(target=m.run, name=f"bench-load-{m.seed}") for m in mixes]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds + 120)
        took = time.perf_counter() - start
        with service.raw_client(svc) as http:
            present = {d["file_name"] for d in
                       http.get(service.project_url(svc) + "/detail").json()["documents"]}
    latencies = [t for m in mixes for t in m.latencies]
    errors = [e for m in mixes for e in m.errors]
    written = [name for m in mixes for name in m.written]
    missing = [name for name in written if name not in present]
    ok = not errors and not missing and not any(t.is_alive() for t in threads)
    return [Row(f"{clients} concurrent clients, 70/20/10 search/read/write, {seconds:.0f} s",
                f"{len(latencies) / took:.0f} req/s, p50 {ms(percentile(latencies, 50))}, "
                f"p99 {ms(percentile(latencies, 99))}, {len(errors)} errors, "
                f"{len(written) - len(missing)}/{len(written)} writes present", "–", "–",
                "0 errors, every write present", ok, "load")]


FIGURES = {"search": search_latency, "load": load}
