"""A deck: slides staged from Markdown, figures and tables, bound to one Design project,
and pushed through the Design client's normal permission path — a `finalize_plan` card per
batch, then `write_files` with that plan's token and `if_match` set to what was listed.

A push lists the project once, then sends one `write_files` per approved plan (every file
of the plan in the call), journaled ahead in one commit before the first and settled in one
commit after the last (`write_plans`, a run of `plan_writes.PlanWrites`), counting items and
bytes as they are answered (`core.batch_progress`) and asking `stop()` before each call. A
kernel killed mid-push leaves `unknown` entries in the Design journal: the next listing
(`refresh`) settles them against what the service holds (`write_journal.landed`: a call is
all-or-nothing, and its `if_match` let it land only once), so the next push writes only
what did not land.

Nothing is sent while staging. Binding and pushing only read (`list_projects`,
`get_project`, `get_claude_design_prompt`, `list_files`) until a plan is approved. The deck
remembers what it wrote (content hash and the etag the service answered), so a push
repeated after a failure writes only the files whose content the project does not hold
yet. With `records` (`PushRecords`), that memory is kept across kernels: a deck opened in
a new kernel does not rewrite files the project still holds as a deck wrote them.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...core.batch_progress import BatchProgress
from ...errors import DesignRpcError, InvalidArguments, PermissionRefused
from ...errors.remedy import Remedy
from ..approval import DesignOutcome, PendingApproval
from ..write_journal import landed
from .batches import plan_arguments, plan_batches, planner
from .plan_writes import PlanWrites, PushReport, Written
from .records import PushRecords
from .slides import (
    TABLE_MAX_ROWS,
    figure_piece,
    page,
    piece_of,
    placeholders,
    render_markdown,
    table_piece,
    title_of,
)
from .staging import UNCHANGED, Stage, StagedFile
from .theme import DEFAULT_THEME, Theme, chosen_theme, theme_from_prompt

CONSENT_FIRST = ("a deck reads the Design project, which needs your consent first. Give "
                 "consent, then run it again.")
#: list_projects pages read while looking for a project by name
PROJECT_PAGES_MAX = 20
PAGE_SIZE = 100


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


class Deck:
    """Slides staged for one Design project. `client` is a `DesignClient` (or anything with
    its `call`)."""

    def __init__(self, client: Any, project_id: str | None = None,
                 project_name: str | None = None, theme: Theme = DEFAULT_THEME,
                 records: PushRecords | None = None) -> None:
        self.client = client
        self.records = records
        self.project_id = project_id
        self.project_name = project_name
        self.theme = theme
        #: the look the person chose (`use_theme`), kept over the project's design system
        self.chosen: Theme | None = None
        self.stage = Stage()
        #: the project's files as last listed: path -> etag, and path -> size in bytes
        self.remote: dict[str, str | None] = {}
        self.sizes: dict[str, int] = {}
        #: what this deck wrote: path -> (sha256 of the content, the etag the service gave)
        self.pushed: dict[str, tuple[str, str]] = {}
        #: slide path -> how to stage it again (after the theme changed)
        self._recipes: dict[str, Callable[[], StagedFile]] = {}
        #: notebook file -> the slide paths its last `add_notebook` staged
        self._notebooks: dict[str, list[str]] = {}

    # ------------------------------------------------------------ staging (nothing sent)

    def add_markdown(self, path: str, markdown: str,
                     values: Mapping[str, Any] | None = None) -> StagedFile:
        """Stage a slide from Markdown; each `$name` is looked up in `values`."""
        values = values or {}
        used = {n: values[n] for n in placeholders(markdown) if n in values}
        return self._staged(path, lambda: self._markdown(path, markdown, used))

    def _markdown(self, path: str, markdown: str, values: Mapping[str, Any]) -> StagedFile:
        pieces = {}
        for name in placeholders(markdown):
            if name not in values:
                raise InvalidArguments("deck", f"${name}", "is not defined")
            pieces[name] = piece_of(values[name], path, name)
        body = render_markdown(markdown, pieces)
        assets = [asset for piece in pieces.values() for asset in piece.assets]
        title = title_of(markdown, _stem(path))
        return self.stage.add_slide(path, page(title, body, self.theme), assets)

    def add_figure(self, path: str, figure: Any, title: str | None = None,
                   caption: str | None = None) -> StagedFile:
        """Stage a slide showing a matplotlib figure (written as a PNG asset beside it)."""
        def stage() -> StagedFile:
            piece = figure_piece(figure, path, "figure", caption)
            return self._add_piece(path, title, piece.html, piece.assets)

        return self._staged(path, stage)

    def add_table(self, path: str, frame: Any, title: str | None = None,
                  max_rows: int = TABLE_MAX_ROWS) -> StagedFile:
        """Stage a slide showing a DataFrame as an HTML table of at most `max_rows` rows."""
        return self._staged(path, lambda: self._add_piece(
            path, title, table_piece(frame, "table", max_rows).html, ()))

    def _staged(self, path: str, stage: Callable[[], StagedFile]) -> StagedFile:
        staged = stage()
        self._recipes[staged.path] = stage
        return staged

    def _add_piece(self, path: str, title: str | None, body: str,
                   assets: Any) -> StagedFile:
        import html

        heading = f"<h2>{html.escape(title)}</h2>\n" if title else ""
        return self.stage.add_slide(path, page(title or _stem(path), heading + body,
                                               self.theme), assets)

    def add_notebook(self, path: str | os.PathLike[str], code: bool = False) -> Any:
        """Stage one slide page per slide of a notebook (`from_notebook`: its slideshow
        metadata, else its headings); `code` also shows the code cells' inputs. Run again on
        the edited notebook, it stages the same paths again (a push then writes only what
        changed) and unstages the slides the notebook no longer has. The notebook is read
        whole before anything is staged: bad input leaves the deck as it was."""
        from .from_notebook import NOTEBOOK_CSS, NotebookSlide, read

        reading = read(path, code)
        key = str(Path(path).resolve())

        def recipe(slide: NotebookSlide) -> Callable[[], StagedFile]:
            return lambda: self.stage.add_slide(
                slide.path, page(slide.title, slide.body + slide.notes, self.theme,
                                 NOTEBOOK_CSS, slide.layout, reading.author), slide.assets)

        for slide in reading.slides:  # a path staged for another slide is refused first
            taken = next((f for f in self.stage.files if f.path == slide.path), None)
            mine = self._notebooks.get(key, [])
            if taken is not None and taken.slide not in mine:
                raise InvalidArguments("deck", "path", f"{slide.path!r} is already staged by "
                                       "another slide", remedy=Remedy("unstage_slide",
                                                                      path=slide.path))
        paths = [self._staged(slide.path, recipe(slide)).path for slide in reading.slides]
        for gone in set(self._notebooks.get(key, [])) - set(paths):
            self.stage.remove(gone)
            self._recipes.pop(gone, None)
        self._notebooks[key] = paths
        return reading

    def use_theme(self, choice: str) -> Theme:
        """Use `--theme light|dark|PATH.css` (see `theme.chosen_theme`) for every staged
        slide and those staged after; a push then writes the slides it changed."""
        self.chosen = self.theme = chosen_theme(choice, self.theme)
        for restage in list(self._recipes.values()):
            restage()
        return self.theme

    def staged_rows(self) -> list[dict[str, object]]:
        """The staged table; a file the project holds exactly as staged (this deck wrote
        these bytes and the project's etag is still the one it answered) is `unchanged`."""
        missing = {f.path for f in self.missing()}
        return [{**row, "change": UNCHANGED} if row["path"] not in missing else row
                for row in self.stage.rows(self.remote)]

    # ------------------------------------------------------------ binding (reads only)

    async def _read(self, operation: str, arguments: dict) -> Any:
        result = await self.client.call(operation, arguments)
        if isinstance(result, PendingApproval):  # only consent asks before a read
            raise PermissionRefused(operation, result.request.reason or "consent_not_given",
                                    CONSENT_FIRST, Remedy("consent"))
        if result.is_error:
            if result.error is not None:
                raise result.error
            raise DesignRpcError(operation, 0, str(result.data))
        return result.data

    async def find_project(self, name_or_id: str) -> dict:
        """The project whose id is `name_or_id`, else the one whose name is exactly it."""
        cursor = None
        named = []
        for _ in range(PROJECT_PAGES_MAX):
            args: dict[str, Any] = {"limit": PAGE_SIZE, **({"cursor": cursor} if cursor else {})}
            page_ = await self._read("list_projects", args)
            if not isinstance(page_, list) or not page_:
                break
            for project in page_:
                if isinstance(project, dict) and project.get("id") == name_or_id:
                    return project
                if isinstance(project, dict) and project.get("name") == name_or_id:
                    named.append(project)
            if len(page_) < PAGE_SIZE:
                break
            cursor = page_[-1].get("id")
        if len(named) == 1:
            return named[0]
        why = ("matches several Design projects: give its id" if named
               else "matches no Design project's name or id")
        raise InvalidArguments("deck", "project", f"{name_or_id!r} {why}")

    async def bind(self, project_id: str, project_name: str | None = None) -> None:
        """Use this project: its design system for the slides, its files for comparing."""
        if project_id != self.project_id:
            self.pushed = {}
        self.project_id = project_id
        self.project_name = project_name
        if self.records is not None:  # what decks in other kernels pushed here
            self.pushed = {**self.records.load(project_id), **self.pushed}
        if hasattr(self.client, "project_names"):  # the name its cards show, read once
            await self.client.project_names([project_id])
        prompt = await self._read("get_claude_design_prompt", {"project_id": project_id})
        self.theme = self.chosen or theme_from_prompt(prompt) or DEFAULT_THEME
        await self.refresh()
        for restage in list(self._recipes.values()):  # what was staged, in this look
            restage()

    async def refresh(self) -> dict[str, str | None]:
        """List the project's files (path -> etag), and settle the pushes a killed kernel
        left `unknown` in the Design journal against that listing."""
        listing = await self._read("list_files", {"project_id": self._bound()})
        files = [e for e in listing or [] if isinstance(e, dict) and e.get("type") == "file"]
        self.remote = {e["path"]: e.get("etag") for e in files}
        self.sizes = {e["path"]: e["size"] for e in files if isinstance(e.get("size"), int)}
        await self._settle_pending()
        return self.remote

    async def _settle_pending(self) -> None:
        """Each `write_files` of this project the journal still holds as `unknown` is
        settled by the listing (`landed`): done, and remembered as this deck's write, when
        every file holds a new etag of the size it wrote; withdrawn when none changed and
        the call cannot still land (`may_still_land`: its kernel was killed, or it is too
        old); left `unknown` otherwise."""
        journal = getattr(self.client, "journal", None)
        if journal is None:
            return
        pending = await asyncio.to_thread(journal.pending, self._bound(), "write_files")
        done, withdrawn = [], []
        recorded: dict[str, tuple[str, str]] = {}
        for entry in pending:
            answered = {path: etag for path, (_sha, etag) in self.pushed.items()}
            verdict = landed(entry["changes"], self.remote, self.sizes, answered)
            if verdict is True:
                done.append(entry["id"])
                recorded.update((c["path"], (c["sha256"], str(self.remote[c["path"]])))
                                for c in entry["changes"])
            elif verdict is False and not journal.may_still_land(entry):
                withdrawn.append(entry["id"])
        if not done and not withdrawn:
            return
        await asyncio.to_thread(journal.settle_many, done, withdrawn)
        self.pushed.update(recorded)
        if self.records is not None and recorded:
            await asyncio.to_thread(self.records.save, self._bound(), recorded)

    def _bound(self) -> str:
        if self.project_id is None:
            raise InvalidArguments("deck", "project", "is not created yet: approve the "
                                   "create_project card first")
        return self.project_id

    # ------------------------------------------------------------ pushing

    def missing(self) -> list[StagedFile]:
        """Staged files the project does not hold as staged: never written by this deck, or
        changed since, or changed on the service since this deck wrote them."""
        out = []
        for staged in self.stage.files:
            done = self.pushed.get(staged.path)
            if done is None or done[0] != staged.sha256 or self.remote.get(staged.path) != done[1]:
                out.append(staged)
        return out

    @property
    def table(self) -> Any:
        """The Design operations of the client the deck pushes through (its plan
        operation asks each batch's card)."""
        return self.client.catalogue.table

    def batches(self) -> list[tuple[str, ...]]:
        """The plans a push asks for: the missing files cut at the card limits."""
        return plan_batches(self._bound(), self.stage.units(self.missing()), self.project_name,
                            table=self.table)

    async def ask_plan(self, batch: tuple[str, ...]) -> Any:
        """The plan operation for one batch: a PendingApproval (its card), or an outcome."""
        return await self.client.call(planner(self.table),
                                      plan_arguments(self._bound(), batch))

    def write_arguments(self, batch: Sequence[str], plan_token: str) -> dict[str, Any]:
        """The `write_files` arguments of one approved batch: every file of it, each only
        if the project still holds what was listed (`if_match`; "0": must not exist)."""
        staged = {f.path: f for f in self.stage.files}
        files = []
        for path in batch:
            item = staged[path]
            entry: dict[str, Any] = {"path": path, "if_match": self.remote.get(path) or "0"}
            if item.kind == "slide":
                entry["data"] = item.data.decode("utf-8")
            else:
                entry.update(data=base64.b64encode(item.data).decode("ascii"),
                             encoding="base64")
            files.append(entry)
        return {"project_id": self._bound(), "files": files, "plan_token": plan_token}

    async def write(self, batch: tuple[str, ...], plan_token: str) -> Any:
        """Write one approved batch with its plan token (see `write_plans`); its answer."""
        report = await self.write_plans([(batch, plan_token)])
        return report.failure if report.failure is not None else report.results[0]

    async def write_plans(
        self, plans: Sequence[tuple[Sequence[str], str]], *,
        on_progress: Callable[[BatchProgress], None] | None = None,
        stop: Callable[[], bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> PushReport:
        """Write approved batches, each `(paths, plan_token)`, one `write_files` each, in
        order. Every call's journal entry is written ahead in one commit before the first
        is sent, and all are settled in one commit after the last (a call the service
        refused, and those never sent, are withdrawn; one with no usable answer stays
        `unknown`). `on_progress` hears the files and bytes done after each call;
        `stop()` is asked before each (True: the rest are not sent). The first failure
        stops the push. What was written is remembered (and kept in `records`). The run
        is a `plan_writes.PlanWrites`."""
        calls = [self.write_arguments(batch, token) for batch, token in plans]
        staged = {f.path: f for f in self.stage.files}
        writes = PlanWrites(self.client, self.records, self._bound(), staged,
                            lambda result: self._wrote(staged, result))
        return await writes.run(plans, calls, on_progress=on_progress, stop=stop, clock=clock)

    def _wrote(self, staged: Mapping[str, StagedFile], result: DesignOutcome) -> Written:
        """Remember what one answered call wrote: path -> (sha256, the etag answered)."""
        etags = (result.data or {}).get("etags") if isinstance(result.data, dict) else None
        written = {path: (staged[path].sha256, etag) for path, etag in (etags or {}).items()
                   if path in staged and isinstance(etag, str)}
        self.pushed.update(written)
        self.remote.update({path: etag for path, (_, etag) in written.items()})
        return written

    # ------------------------------------------------------------ previews (`exported` reads
    # the deck back for an export)

    async def preview(self, path: str) -> DesignOutcome:
        return await self.client.call("render_preview",
                                      {"project_id": self._bound(), "path": path})

    async def previews(self, paths: list[str]) -> list[Any]:
        """Previews of `paths`, asked for all at once (the service draws them side by side,
        as pages of one browser context); in the order of `paths`."""
        import asyncio

        return list(await asyncio.gather(*(self.preview(path) for path in paths)))
