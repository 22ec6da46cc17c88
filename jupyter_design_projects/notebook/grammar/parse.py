"""How a `%project` / `%design` line reads: shell-quoted words, `$name` variables, one
argparse parser per subcommand (each with `--help`), built from the declarations in
`subcommands`, parsed into a `Command`.

`$name` takes a variable from the user namespace: a word that is exactly `$name` (or a
`key=$name` value) passes the object itself; `$name` inside a longer word is replaced by
`str(value)`. Inside single quotes, or escaped as `\\$name`, it stays literal. JSON given
unquoted after a Design operation (`%design get_project {"project_id": "…"}`) is taken
verbatim, without shell splitting or substitution.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import numbers
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ...errors import BadCommand
from . import subcommands
from .declared import Subcommand
from .plain_lines import PlainLines

_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_MARK = re.compile("\x00([0-9]+)\x00")
_HELP = ("-h", "--help")
#: a line without these characters has no quoting, escapes or variables: its words are
#: its runs of non-whitespace (shlex's POSIX whitespace), as `shlex.split` would find them
_SPECIAL = re.compile(r"""[\\'"$\x00]""")
_PLAIN_WORD = re.compile(r"[^ \t\r\n]+")

PROJECT_USAGE = subcommands.usage("project")
DESIGN_USAGE = subcommands.usage("design")
DESIGN_SUBCOMMANDS = tuple(subcommands.SUBCOMMANDS["design"])
PROJECT_SUBCOMMANDS = tuple(subcommands.SUBCOMMANDS["project"])


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
    if _SPECIAL.search(line) is None:  # the common line: nothing to quote or substitute
        return _PLAIN_WORD.findall(line), []
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


def _parser(sub: Subcommand, operation: str | None = None) -> _Parser:
    """The argparse parser of one declared subcommand (`operation`: the Design operation
    that the OPERATION form runs)."""
    parser = _Parser(*sub.parser_options(operation))
    for arg in sub.args:
        parser.add_argument(*arg.flags, **arg.options)
    return parser


def _parse_declared(tool: str, name: str, words: list[str]) -> dict[str, Any]:
    """The words after `%tool name`: a plain line read straight from the declaration
    (`PlainLines`), any other by the subcommand's argparse parser (its errors, its quirks)."""
    words = _pasted_codes_last(words)
    plain = _plain(tool, name).read(words)
    return plain if plain is not None else _parse(_declared_parser(tool, name), words)


def _pasted_codes_last(words: list[str]) -> list[str]:
    """A word that starts with "-" and holds "#" is a pasted CODE#STATE (its base64url code
    may begin with "-"), never an option: it goes after argparse's "--"."""
    if "--" in words:
        return words
    pasted = [w for w in words if w.startswith("-") and "#" in w]
    if not pasted:
        return words
    return [w for w in words if w not in pasted] + ["--", *pasted]


@functools.cache
def _plain(tool: str, name: str) -> PlainLines:
    """The plain-line reading of a declared subcommand, made once from its declaration."""
    return PlainLines.of(subcommands.SUBCOMMANDS[tool][name])


@functools.cache
def _declared_parser(tool: str, name: str) -> _Parser:
    """The parser of the declared subcommand `%tool name`, built on its first use and kept:
    building one costs more than the rest of a magic call (argparse looks up its message
    catalogues on disk), parsing never changes it, and the table bounds how many exist."""
    return _parser(subcommands.SUBCOMMANDS[tool][name])


def _cell_forms(tool: str) -> str:
    forms = [s.cell_usage for s in subcommands.SUBCOMMANDS[tool].values() if s.cell]
    return " and ".join(f for f in forms if f)


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
    sub = subcommands.SUBCOMMANDS["project"][action]
    if _wants_help(words[1:]):
        return Command("project", action,
                       help=_declared_parser("project", action).format_help())
    ns = _parse_declared("project", action, words[1:])
    command = f"project {action}"
    args: dict[str, Any] = {}
    for key, value in ns.items():
        if isinstance(value, list) and key in sub.path_names:  # a list of paths stays one
            value = [_text(command, key, resolve(v, values)) for v in value]
        elif isinstance(value, list):
            value = " ".join(_text(command, key, resolve(v, values)) for v in value)
        elif isinstance(value, str):
            value = resolve(value, values)
            if key in sub.path_names:
                value = _text(command, key, value)
        args[key] = value
    if cell is not None and sub.cell is None:
        raise BadCommand(command, f"only {_cell_forms('project')} takes a cell body")
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
    known = subcommands.SUBCOMMANDS["design"].get(action)
    command = f"design {action}"
    if _wants_help(words[1:]):
        parser = (_declared_parser("design", action) if known
                  else _parser(subcommands.OPERATION, action))
        return Command("design", action if action in DESIGN_SUBCOMMANDS else "call",
                       {"operation": action}, help=parser.format_help())
    if known is not None:
        if cell is not None and known.cell is None:
            raise BadCommand(command, f"only {subcommands.OPERATION.cell_usage} and "
                                      f"{_cell_forms('design')} take a cell body")
        ns = _parse_declared("design", action, words[1:])
        parsed = {k: resolve(v, values) if isinstance(v, str)
                  else [_text(command, k, resolve(w, values)) if isinstance(w, str) else w
                        for w in v] if isinstance(v, list) else v
                  for k, v in ns.items()}
        for key in known.path_names:
            if parsed[key] is not None:  # an optional path left out
                parsed[key] = _text(command, key, parsed[key])
        if cell is not None:  # a slide: its `$name`s are the notebook's objects
            from ...design.deck.slides import placeholders

            parsed["body"] = cell
            parsed["values"] = {n: namespace[n] for n in placeholders(cell) if n in namespace}
        return Command("design", action, parsed)
    if cell is not None:
        if len(words) > 1:
            raise BadCommand(command, "with %%design the cell body holds the arguments; put "
                                      "nothing after the operation")
        body = cell.strip()
        arguments = _json_object(command, body) if body else {}
    else:
        arguments = _design_arguments(command, words[1:], values)
    return Command("design", "call", {"operation": action, "arguments": arguments})
