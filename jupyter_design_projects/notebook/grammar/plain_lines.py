"""The plain magic lines, read straight from a subcommand's declaration: its positionals
first (fixed ones, then at most one `?`, `*` or `+`), then each declared option at most
once, spelled exactly, with a value that does not start with `-` (or none, for a flag).

`PlainLines.read` gives what argparse would give for such a line, or None for any other
(argparse reads those: its errors, `--`, `-n5`, negative numbers, a repeated option,
options among positionals). It exists because argparse's pass over a line cost more of a
magic's main-thread time than the rest of the call (bench/README.md, `magic`); a test
compares both readings over generated lines of every subcommand.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from typing import Any

from .declared import Subcommand

#: the options an `Arg` may have for its lines to be read here
READABLE_OPTIONS = frozenset({"nargs", "type", "choices", "default", "dest", "metavar",
                              "help", "action"})


@dataclasses.dataclass(frozen=True)
class Field:
    """One declared argument as the reading needs it."""

    dest: str
    nargs: str | None
    convert: Any
    choices: Any
    default: Any


@dataclasses.dataclass(frozen=True)
class PlainLines:
    """How the plain lines of one subcommand read (see the module docstring)."""

    positionals: tuple[Field, ...]
    #: flag -> its field, and whether it takes a value (False: store_true)
    options: Mapping[str, tuple[Field, bool]]
    order: tuple[str, ...]
    usable: bool

    @classmethod
    def of(cls, sub: Subcommand) -> PlainLines:
        """The reading of `sub`'s lines (`usable` False: argparse reads them all)."""
        positionals: list[Field] = []
        options: dict[str, tuple[Field, bool]] = {}
        usable = True
        for arg in sub.args:
            opts = arg.options
            action = opts.get("action")
            field = Field(arg.dest, opts.get("nargs"), opts.get("type"), opts.get("choices"),
                          opts.get("default"))
            if (set(opts) - READABLE_OPTIONS or action not in (None, "store_true")
                    or (action is not None and field.default is not None)
                    or (isinstance(field.default, str) and field.convert is not None)):
                usable = False
            if arg.flags[0].startswith("-"):
                if field.nargs is not None:
                    usable = False
                for flag in arg.flags:
                    options[flag] = (field, action is None)
            else:
                if positionals and positionals[-1].nargs is not None \
                        or field.nargs not in (None, "?", "*", "+"):
                    usable = False  # a variadic that is not the last: argparse's to read
                positionals.append(field)
        return cls(tuple(positionals), options, tuple(arg.dest for arg in sub.args), usable)

    def read(self, words: list[str]) -> dict[str, Any] | None:
        """The parsed arguments, as argparse's namespace would hold them; None: not plain."""
        if not self.usable:
            return None
        found: dict[str, Any] = {}
        count = next((i for i, w in enumerate(words) if w.startswith("-")), len(words))
        i = count
        while i < len(words):
            option = self.options.get(words[i])
            if option is None or option[0].dest in found:
                return None
            field, takes_value = option
            if not takes_value:
                found[field.dest] = True
                i += 1
                continue
            if i + 1 == len(words) or words[i + 1].startswith("-"):
                return None
            value = _converted(field, words[i + 1])
            if value is _NO:
                return None
            found[field.dest] = value
            i += 2
        if not self._take_positionals(words[:count], found):
            return None
        for field, takes_value in self.options.values():
            found.setdefault(field.dest, field.default if takes_value else False)
        return {dest: found[dest] for dest in self.order}

    def _take_positionals(self, words: list[str], found: dict[str, Any]) -> bool:
        """The fixed positionals take a word each, the last (variadic) one the rest."""
        fixed = [f for f in self.positionals if f.nargs is None]
        if len(words) < len(fixed):
            return False
        found.update((f.dest, _converted(f, w)) for f, w in zip(fixed, words, strict=False))
        rest = words[len(fixed):]
        variadic = self.positionals[-1] if len(self.positionals) > len(fixed) else None
        if variadic is None or variadic.nargs == "?":
            if len(rest) > (variadic is not None):
                return False
            if variadic is not None:
                found[variadic.dest] = (_converted(variadic, rest[0]) if rest
                                        else variadic.default)
        elif variadic.nargs == "+" and not rest:
            return False
        else:
            values = [_converted(variadic, w) for w in rest]
            found[variadic.dest] = values if values or variadic.default is None \
                else variadic.default
            if _NO in values:
                return False
        return _NO not in found.values()


_NO = object()


def _converted(field: Field, word: str) -> Any:
    """The word through the field's `type`, if it is one of its choices; else `_NO`."""
    try:
        value = field.convert(word) if field.convert is not None else word
    except (TypeError, ValueError, argparse.ArgumentTypeError):
        return _NO
    return value if field.choices is None or value in field.choices else _NO
