"""A deck's staged pages exported as `%design deck export` reads them from a project
(`export.read_deck`), with no service: each `read_file` is answered from the staged bytes,
wrapped as the service wraps it. For tests that look at the export of a deck's own pages.
The coroutines run in a thread of their own, so a test may call these while Playwright's
sync API holds the thread's loop."""

from __future__ import annotations

import asyncio
import html
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from jupyter_design_projects.design.deck import export as exporting


def staged_export(deck) -> exporting.Export:
    files = {f.path: f.data for f in deck.stage.files}

    async def call(_operation: str, arguments: dict) -> SimpleNamespace:
        part = files[arguments["path"]].decode()
        return SimpleNamespace(is_error=False, blocks=[{"type": "text", "text": (
            f'<untrusted-project-content path="x" etag="e">{html.escape(part)}'
            "</untrusted-project-content>")}])

    return run(exporting.read_deck(call, "p", {p: "e" for p in files}, files,
                                   sizes={p: len(b) for p, b in files.items()}))


def run(coroutine):
    """`asyncio.run(coroutine)` in a thread of its own."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


def printed(export: exporting.Export, **options):
    """The PDF of `export` (`pdf.pdf_bytes`), drawn by a Chromium of its own."""
    from jupyter_design_projects.design.deck import pdf

    return run(pdf.pdf_bytes(export, **options))
