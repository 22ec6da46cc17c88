"""How a `%project` / `%design` line reads: shell-quoted words, `$name` variables, one
argparse subparser per subcommand (each with `--help`), parsed into a `Command`.

`$name` takes a variable from the user namespace: a word that is exactly `$name` (or a
`key=$name` value) passes the object itself; `$name` inside a longer word is replaced by
`str(value)`. Inside single quotes, or escaped as `\\$name`, it stays literal. JSON given
unquoted after a Design operation (`%design get_project {"project_id": "…"}`) is taken
verbatim, without shell splitting or substitution.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import numbers
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ..errors import BadCommand

_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_MARK = re.compile("\x00([0-9]+)\x00")
_HELP = ("-h", "--help")

PROJECT_USAGE = """\
%project info                          the attached Project, its docs, uploads and budget
%project read PATH                     a doc or upload (large ones land in a local file)
%project search QUERY [-n N]           knowledge search, N hits (1-15, default 5)
%project write PATH --from LOCAL_PATH  upload a UTF-8 text file from the working directory
%%project write PATH                   the cell body becomes the doc's content
%project delete PATH                   delete a text doc (uploads are deleted in the web UI)
%project history [-n N]                this machine's journal of remote writes
%project restore ID                    write back the content a journal entry replaced
Add --help after a subcommand for its own help."""

DESIGN_USAGE = """\
%design list [--full]                  the operation catalogue (filterable table)
%design OPERATION [JSON | key=value …] run one Design operation
%%design OPERATION                     the cell body is the JSON arguments
%design consent | revoke               give or withdraw consent for agents to use Design
%design status                         consent, approved plans and durable grants
%design login [CODE]                   sign in (paste CODE#STATE from the sign-in page)
%design trace                          the HTTP trace (needs DesignProjects.http_trace)
Add --help after a subcommand for its own help."""

DESIGN_SUBCOMMANDS = ("list", "consent", "revoke", "status", "login", "trace")
PROJECT_SUBCOMMANDS = ("info", "read", "search", "write", "delete", "history", "restore")


@dataclasses.dataclass(frozen=True)
class Command:
    """One parsed magic line: `help` is set (and nothing should run) when --help was asked."""

    tool: str
    action: str
    args: dict[str, Any] = dataclasses.field(default_factory=dict)
    help: str | None = None


class _Parser(argparse.ArgumentParser):
    """argparse that raises `BadCommand` instead of printing and exiting."""

    def __init__(self, command: str, description: str) -> None:
        super().__init__(prog=f"%{command}", description=description, add_help=False,
                         allow_abbrev=False)
        self.command = command

    def error(self, message: str):
        raise BadCommand(self.command, message)

    def exit(self, status: int = 0, message: str | None = None):
        raise BadCommand(self.command, (message or "invalid arguments").strip())


# ---------------------------------------------------------------- words and variables


def split_words(line: str, namespace: Mapping[str, Any], tool: str) -> tuple[list[str], list]:
    """Shell-split `line`; each `$name` becomes a marker word resolved by `resolve`."""
    if "\x00" in line:
        raise BadCommand(tool, "NUL characters are not allowed")
    values: list[Any] = []
    out: list[str] = []
    quote = None
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quote != "'" and i + 1 < len(line):
            out.append(line[i:i + 2])
            i += 2
            continue
        if ch in "'\"":
            quote = ch if quote is None else (None if quote == ch else quote)
        elif ch == "$" and quote != "'":
            match = _VARIABLE.match(line, i)
            if match:
                name = match.group(1)
                if name not in namespace:
                    raise BadCommand(tool, f"${name} is not defined")
                values.append(namespace[name])
                out.append(f"\x00{len(values) - 1}\x00")
                i = match.end()
                continue
        out.append(ch)
        i += 1
    try:
        words = shlex.split("".join(out))
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise BadCommand(tool, f"cannot split the line: {exc}") from None
    # a whole-word integer variable is its digits, so that `restore $entry` or `-n $k` parse
    return [_digits(w, values) for w in words], values


def _digits(word: str, values: list) -> str:
    whole = _MARK.fullmatch(word)
    if whole:
        value = values[int(whole.group(1))]
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return str(int(value))
    return word


def _parse(parser: _Parser, words: list[str]) -> dict[str, Any]:
    """argparse over the words; a complaint never shows the internal variable markers."""
    try:
        return vars(parser.parse_args(words))
    except BadCommand as exc:
        raise BadCommand(exc.command, _MARK.sub("$…", exc.reason)) from None


def resolve(word: str, values: list) -> Any:
    """A marker word is the variable's object; markers inside text become `str(value)`."""
    whole = _MARK.fullmatch(word)
    if whole:
        return values[int(whole.group(1))]
    return _MARK.sub(lambda m: str(values[int(m.group(1))]), word)


def _positive(word: str) -> int:
    """argparse type for a count of at least 1."""
    try:
        value = int(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {word!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _text(command: str, what: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise BadCommand(command, f"{what} must be text, got a {type(value).__name__}")


def _wants_help(words: list[str]) -> bool:
    head = words[: words.index("--")] if "--" in words else words
    return any(w in _HELP for w in head)


def _json_object(command: str, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadCommand(command, f"the arguments are not valid JSON ({exc.msg} at "
                                  f"line {exc.lineno} column {exc.colno})") from None
    if not isinstance(value, dict):
        raise BadCommand(command, "the JSON arguments must be an object {…}")
    return value


# ---------------------------------------------------------------- %project


def _project_parser(action: str) -> _Parser:
    command = f"project {action}"
    if action == "info":
        return _Parser(command, "The attached Project: name, instructions, docs, uploads, sync "
                                "sources and the knowledge budget meter.")
    if action == "read":
        p = _Parser(command, "Read a text doc or an upload by its exact path. Content over "
                             "262,144 bytes is saved to a mode-0600 file in the session's temp "
                             "dir; the outcome's .local_file is its path.")
        p.add_argument("path")
        return p
    if action == "search":
        p = _Parser(command, "Search the Project knowledge. When search is disabled for the "
                             "Project the outcome lists the docs instead (rag: false).")
        p.add_argument("query", nargs="+")
        p.add_argument("-n", type=int, default=5, help="number of hits, 1-15 (default 5)")
        return p
    if action == "write":
        p = _Parser(command, "Write a text doc. %project write PATH --from LOCAL_PATH uploads a "
                             "UTF-8 file from the working directory (at most 25 MiB); "
                             "%%project write PATH takes the cell body as the content. A new "
                             "bare file name is written under claude/.")
        p.add_argument("path")
        p.add_argument("--from", dest="local_path", default=None, metavar="LOCAL_PATH")
        return p
    if action == "delete":
        p = _Parser(command, "Delete a text doc (uploads can only be deleted in the web UI). "
                             "The previous content is kept in %project history.")
        p.add_argument("path")
        return p
    if action == "history":
        p = _Parser(command, "This machine's journal of writes and deletes to the Project, "
                             "newest first.")
        p.add_argument("-n", "--limit", type=_positive, default=50, dest="limit",
                       help="how many entries, at least 1 (default 50)")
        return p
    p = _Parser(command, "Write back the content that a journal entry (see %project history) "
                         "replaced or deleted.")
    p.add_argument("entry_id", type=int, metavar="ID")
    return p


def parse_project(line: str, cell: str | None, namespace: Mapping[str, Any]) -> Command:
    words, values = split_words(line, namespace, "project")
    if not words:
        if cell is None:
            return Command("project", "usage", help=PROJECT_USAGE)
        raise BadCommand("project", "%%project needs a subcommand: %%project write PATH")
    action = resolve(words[0], values)
    if action not in PROJECT_SUBCOMMANDS:
        if action in _HELP:
            return Command("project", "usage", help=PROJECT_USAGE)
        raise BadCommand("project", f"unknown subcommand {action!r}; one of "
                                    + ", ".join(PROJECT_SUBCOMMANDS))
    parser = _project_parser(action)
    if _wants_help(words[1:]):
        return Command("project", action, help=parser.format_help())
    ns = _parse(parser, words[1:])
    command = f"project {action}"
    args: dict[str, Any] = {}
    for key, value in ns.items():
        if isinstance(value, list):
            value = " ".join(_text(command, key, resolve(v, values)) for v in value)
        elif isinstance(value, str):
            value = resolve(value, values)
            if key in ("path", "local_path"):
                value = _text(command, key, value)
        args[key] = value
    if cell is not None and action != "write":
        raise BadCommand(command, "only %%project write takes a cell body")
    if action == "write":
        if cell is not None and args["local_path"] is not None:
            raise BadCommand(command, "give the content either as the cell body or --from, "
                                      "not both")
        if cell is None and args["local_path"] is None:
            raise BadCommand(command, "needs --from LOCAL_PATH, or use %%project write PATH "
                                      "with the content as the cell body")
        if cell is not None:
            args["content"] = cell
    return Command("project", action, args)


# ---------------------------------------------------------------- %design


def _design_parser(action: str) -> _Parser:
    command = f"design {action}"
    if action == "list":
        p = _Parser(command, "The Design operation catalogue: filter by name, read-only, "
                             "destructive and needs-approval; pick one to see its description "
                             "and input schema. An unchanged catalogue is shown compactly; "
                             "--full shows every schema again.")
        p.add_argument("--full", action="store_true")
        return p
    if action == "consent":
        return _Parser(command, "Give consent for agents to use your Design projects (the "
                                "explicit form of the consent card).")
    if action == "revoke":
        return _Parser(command, "Withdraw consent; also forgets approved plans and verified "
                                "grants in this session.")
    if action == "status":
        return _Parser(command, "Consent, approved plans with their expiry, verified durable "
                                "grants and grant-ineligible projects.")
    if action == "login":
        p = _Parser(command, "Sign in. Without CODE: opens the sign-in page link (the offline "
                             "reference service signs you in directly). With CODE: finishes "
                             "the sign-in with the CODE#STATE the page showed.")
        p.add_argument("code", nargs="?", default=None)
        return p
    if action == "trace":
        return _Parser(command, "The HTTP trace of this session as a table (method, URL, "
                                "status, timing; tokens redacted). Recorded when "
                                "%config DesignProjects.http_trace = True was set before the "
                                "first call.")
    p = _Parser(f"design {action}", f"Run the Design operation {action!r}. Arguments: one JSON "
                                    "object (verbatim after the name), key=value words (values "
                                    "are JSON when they parse, else text; key=$var passes a "
                                    "variable), or $var holding a dict. %%design takes the "
                                    "JSON from the cell body. See %design list for the "
                                    "operations and their input schemas.")
    p.add_argument("arguments", nargs="*", metavar="JSON | key=value")
    return p


def _design_arguments(command: str, rest: list[str], values: list) -> dict[str, Any]:
    if not rest:
        return {}
    if len(rest) == 1:
        single = resolve(rest[0], values)
        if isinstance(single, Mapping):
            return dict(single)
        if isinstance(single, str) and single.lstrip().startswith("{"):
            return _json_object(command, single)
    args: dict[str, Any] = {}
    for word in rest:
        key, sep, raw = word.partition("=")
        if not sep or not key.isidentifier():
            raise BadCommand(command, f"expected one JSON object or key=value words, got "
                                      f"{resolve(word, values)!r}")
        if key in args:
            raise BadCommand(command, f"{key!r} is given twice")
        value = resolve(raw, values)
        if isinstance(value, str) and not _MARK.fullmatch(raw):
            try:
                value = json.loads(value)
            except ValueError:
                pass
        args[key] = value
    return args


def parse_design(line: str, cell: str | None, namespace: Mapping[str, Any]) -> Command:
    head, _, raw_rest = line.strip().partition(" ")
    if head and head not in DESIGN_SUBCOMMANDS and raw_rest.lstrip().startswith("{"):
        if cell is not None:
            raise BadCommand(f"design {head}", "with %%design the cell body holds the "
                                               "arguments; put nothing after the operation")
        return Command("design", "call", {"operation": head,
                                          "arguments": _json_object(f"design {head}",
                                                                    raw_rest)})
    words, values = split_words(line, namespace, "design")
    if not words:
        if cell is None:
            return Command("design", "usage", help=DESIGN_USAGE)
        raise BadCommand("design", "%%design needs the operation name on its first line")
    action = resolve(words[0], values)
    if not isinstance(action, str) or action in _HELP:
        return Command("design", "usage", help=DESIGN_USAGE)
    parser = _design_parser(action)
    command = f"design {action}"
    if _wants_help(words[1:]):
        return Command("design", action if action in DESIGN_SUBCOMMANDS else "call",
                       {"operation": action}, help=parser.format_help())
    if action in DESIGN_SUBCOMMANDS:
        if cell is not None:
            raise BadCommand(command, "only %%design OPERATION takes a cell body")
        ns = _parse(parser, words[1:])
        return Command("design", action, {k: resolve(v, values) if isinstance(v, str) else v
                                          for k, v in ns.items()})
    if cell is not None:
        if len(words) > 1:
            raise BadCommand(command, "with %%design the cell body holds the arguments; put "
                                      "nothing after the operation")
        body = cell.strip()
        arguments = _json_object(command, body) if body else {}
    else:
        arguments = _design_arguments(command, words[1:], values)
    return Command("design", "call", {"operation": action, "arguments": arguments})
