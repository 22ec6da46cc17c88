"""The `%project` / `%design` subcommands as data: each one's synopsis, one-line summary,
`--help` text and arguments, declared once (the `%design` ones in `design_words`). The
parser, `--help`, the usage listing, the magics' help (`%project?`) and the README's table
of magics are all built from this table (`SUBCOMMANDS`), and each subcommand's row of the
registry (`commands.registry`) takes its grammar from it; every limit in it is a core
constant, never a literal."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.budgets import (
    INLINE_MAX_BYTES,
    SEARCH_N_DEFAULT,
    SEARCH_N_MAX,
    SEARCH_N_MIN,
    UPLOAD_MAX_BYTES,
)
from ...core.project_paths import DEFAULT_NAMESPACE
from ...projects.journal import HISTORY_DEFAULT
from .declared import Arg, Subcommand, at_least_one
from .declared import mib as _mib
from .design_words import DESIGN, OPERATION

#: the closing line of both usage listings
HELP_HINT = "Add --help after a subcommand for its own help."

_N_RANGE = f"{SEARCH_N_MIN}-{SEARCH_N_MAX}, default {SEARCH_N_DEFAULT}"

#: what every change of the Project a `%project` line makes does first
CHANGE_CARD = (
    "An approval card shows the change first: a create its path, size and the knowledge "
    "budget after it, a replace a diff of what it replaces, a delete what is lost; Approve "
    "sends exactly that (refused if the doc changed since the card), Deny sends nothing. "
    "Where nobody can click (nbclient, papermill) the cell fails, unless --yes sends it "
    "without a card (journaled as --yes).")
#: `--yes`: the explicit form of a change for where nobody can click
YES = Arg(("--yes",), {"action": "store_true",
                       "help": "send the change without an approval card (journaled as "
                               "--yes)"})

PROJECT = (
    Subcommand(
        "project", "info", "",
        "the attached Project, its docs, uploads and budget",
        "The attached Project: name, instructions, docs, uploads, sync sources and the "
        "knowledge budget meter."),
    Subcommand(
        "project", "read", "PATH",
        "a doc or upload (large ones land in a local file)",
        f"Read a text doc or an upload by its exact path. Content over {INLINE_MAX_BYTES:,} "
        "bytes is saved to a mode-0600 file in the session's temp dir; the outcome's "
        ".local_file is its path.",
        (Arg(("path",), path=True),)),
    Subcommand(
        "project", "search", "QUERY [-n N]",
        f"knowledge search, N hits ({_N_RANGE})",
        "Search the Project knowledge. When search is disabled for the Project the outcome "
        "lists the docs instead (rag: false).",
        (Arg(("query",), {"nargs": "+"}),
         Arg(("-n",), {"type": int, "default": SEARCH_N_DEFAULT,
                       "help": f"number of hits, {_N_RANGE}"}))),
    Subcommand(
        "project", "write", "PATH --from LOCAL_PATH [--encoding NAME] [--yes]",
        "upload a text file from the working directory (a card first)",
        "Write a text doc. %project write PATH --from LOCAL_PATH uploads a UTF-8 file from "
        f"the working directory (at most {_mib(UPLOAD_MAX_BYTES)}); --encoding NAME reads "
        "it in another text encoding (latin-1, cp1252, utf-16 …), and bytes that do not "
        "decode are refused, never replaced. %%project write PATH "
        "takes the cell body as the content. A new bare file name is written under "
        f"{DEFAULT_NAMESPACE}/. {CHANGE_CARD}",
        (Arg(("path",), path=True),
         Arg(("--from",), {"dest": "local_path", "default": None, "metavar": "LOCAL_PATH"},
             path=True),
         Arg(("--encoding",), {"default": None, "metavar": "NAME"}),
         YES),
        cell=("PATH [--yes]", "the cell body becomes the doc's content (a card first)")),
    Subcommand(
        "project", "delete", "PATH [--yes]",
        "delete a text doc, after a card (uploads are deleted in the web UI)",
        "Delete a text doc (uploads can only be deleted in the web UI). The previous "
        f"content is kept in %project history. {CHANGE_CARD}",
        (Arg(("path",), path=True), YES)),
    Subcommand(
        "project", "sync", "DIR [--to PREFIX] [--delete] [--dry-run] [--force PATH …] [--pull]",
        "keep a folder of text files in step with the Project (a plan, then one card)",
        "Plan, then sync a folder of text files with the Project: each UTF-8 file under DIR "
        f"(at most {_mib(UPLOAD_MAX_BYTES)}, hidden files, binaries and .gitignore / "
        ".projectignore matches skipped) lands at its relative path, or under --to PREFIX. "
        "The plan lists every path with its action (new, changed, unchanged, conflict, "
        "skipped …), bytes, estimated tokens and the knowledge budget before and after; "
        "--dry-run stops there and sends nothing. Otherwise one approval card holds every "
        "write; each approved write is journaled (%project history / restore). A doc changed "
        "on both sides since the last sync is a conflict and is not written unless --force "
        "PATH; --delete also deletes the docs of files removed from DIR; --pull writes the "
        "Project's docs under the prefix into DIR instead.",
        (Arg(("directory",), {"metavar": "DIR"}, path=True),
         Arg(("--to",), {"dest": "to", "default": None, "metavar": "PREFIX"}),
         Arg(("--delete",), {"action": "store_true"}),
         Arg(("--dry-run",), {"action": "store_true", "dest": "dry_run"}),
         Arg(("--force",), {"nargs": "+", "action": "extend", "default": None,
                            "metavar": "PATH"}, path=True),
         Arg(("--pull",), {"action": "store_true"}))),
    Subcommand(
        "project", "history", "[-n N]",
        "this machine's journal of remote writes",
        "This machine's journal of writes and deletes to the Project, newest first.",
        (Arg(("-n", "--limit"), {"type": at_least_one, "default": HISTORY_DEFAULT,
                                 "dest": "limit",
                                 "help": f"how many entries, at least 1 (default "
                                         f"{HISTORY_DEFAULT})"}),)),
    Subcommand(
        "project", "restore", "ID [--yes]",
        "write back the content a journal entry replaced (a card first)",
        "Write back the content that a journal entry (see %project history) replaced or "
        f"deleted. {CHANGE_CARD}",
        (Arg(("entry_id",), {"type": int, "metavar": "ID"}), YES)),
    Subcommand(
        "project", "inspect", "",
        "the workbench: a form per method, Run (the same approval cards)",
        "A widget with the five Projects methods (filterable) and, for the chosen one, a "
        "form generated from its input schema; Run calls it exactly as its %project line "
        "does, approval included, and shows the outcome."),
    Subcommand(
        "project", "last", "",
        "the last %project outcome, a failed one included",
        "The outcome of the last %project call of this session, including one that failed "
        "the cell (its .error, .data and .to_tool_result())."),
)

SUBCOMMANDS: Mapping[str, Mapping[str, Subcommand]] = {
    "project": {s.name: s for s in PROJECT},
    "design": {s.name: s for s in DESIGN},
}


def rows(tool: str) -> list[tuple[str, str]]:
    """(usage, summary) for every form of `%tool`, in the order the listing shows them."""
    out: list[tuple[str, str]] = []
    subcommands = list(SUBCOMMANDS[tool].values())
    if tool == "design":  # the operations come right after the catalogue that lists them
        subcommands.insert(1, OPERATION)
    for sub in subcommands:
        out.append((sub.usage, sub.summary))
        if sub.cell is not None:
            out.append((sub.cell_usage or "", sub.cell[1]))
    return out


def usage(tool: str) -> str:
    """The listing `%tool` and `%tool --help` print."""
    listing = rows(tool)
    width = max(len(u) for u, _ in listing) + 2
    return "\n".join([*(f"{u:<{width}}{s}" for u, s in listing), HELP_HINT])


def readme_table() -> str:
    """The README's table of magics (a test keeps README.md equal to it)."""
    lines = ["| magic | what it does |", "|---|---|"]
    for tool in SUBCOMMANDS:
        for u, s in rows(tool):
            cell = u.replace("|", "\\|")  # a pipe inside a table cell is escaped
            lines.append(f"| `{cell}` | {s} |")
    return "\n".join(lines)

