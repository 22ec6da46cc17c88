"""What a subcommand's declaration is made of: `Subcommand` (its synopsis, summary, help
and arguments) and `Arg` (one argument, as `ArgumentParser.add_argument` takes it), with
the argparse types the declarations use. The declarations are in `subcommands` and
`design_words`."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from typing import Any

#: the forms `%design calls --copy N --as FORM` gives a call in
COPY_FORMS = ("cell", "python", "curl")
def at_least_one(word: str) -> int:
    """argparse type for a count of at least 1."""
    try:
        value = int(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {word!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def exchange_number(word: str) -> int | str:
    """argparse type for `--curl N`: a whole number, or "last" (what `--curl` alone means)."""
    if word == "last":
        return word
    try:
        return int(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an exchange number, got {word!r}") from None


def mib(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:g} MiB"


@dataclasses.dataclass(frozen=True)
class Arg:
    """One argument: `flags` and `options` go to `ArgumentParser.add_argument` as they are;
    a `path` argument must be text (a str or an os.PathLike), never another object."""

    flags: tuple[str, ...]
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    path: bool = False

    @property
    def dest(self) -> str:
        """The name the parsed value goes under (as argparse derives it)."""
        return str(self.options.get("dest") or self.flags[-1].lstrip("-").replace("-", "_"))


@dataclasses.dataclass(frozen=True)
class Subcommand:
    """One subcommand: `synopsis` follows the name on the usage line, `summary` is its
    usage line's explanation, `description` its --help text. `cell` is the `%%` form's
    (synopsis, summary) when the cell body is an argument."""

    tool: str
    name: str
    synopsis: str
    summary: str
    description: str
    args: tuple[Arg, ...] = ()
    cell: tuple[str, str] | None = None

    @property
    def path_names(self) -> frozenset[str]:
        return frozenset(arg.dest for arg in self.args if arg.path)

    @property
    def usage(self) -> str:
        return f"%{self.tool} {self.name} {self.synopsis}".rstrip()

    @property
    def cell_usage(self) -> str | None:
        return f"%%{self.tool} {self.name} {self.cell[0]}".rstrip() if self.cell else None

    def parser_options(self, operation: str | None = None) -> tuple[str, str]:
        """The parser's command (as errors name it) and its description."""
        name = operation or self.name
        return f"{self.tool} {name}", self.description.format(operation=name)
