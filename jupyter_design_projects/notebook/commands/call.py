"""One run of a subcommand as its handler and its view see it (`Call`), and the row the
registry holds for each subcommand (`Row`): its grammar, its handler and its view.

A handler is handed the `Call` and asks the pipeline; the view is handed the same `Call`
and the handler's answer and returns what the cell shows. A handler that runs another
line (a replay, `%design rpc tools/call`) runs it with `call.again`, through the same
handler and view; a widget whose click runs a line later (the inspector's Run) settles it
with `call.clicked`. Both are the run path's own (`run`), handed in with each call, so no
handler imports the path that runs it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..grammar.declared import Subcommand
from ..grammar.subcommands import OPERATION

if TYPE_CHECKING:
    from ..grammar.parse import Command
    from ..host import NotebookHost


@dataclasses.dataclass(frozen=True)
class Call:
    """A parsed line being run: the notebook host, the line, and the path it runs on."""

    host: NotebookHost
    command: Command
    #: run another parsed line through its row (handler, then view), inside this one
    again: Callable[[Command], Any]
    #: settle a line a person starts later with a click, labelled as the magic labels it
    clicked: Callable[[Command, str], Any]

    @property
    def args(self) -> dict[str, Any]:
        return self.command.args

    @property
    def action(self) -> str:
        return self.command.action

    @property
    def tool(self) -> str:
        return self.command.tool

    @property
    def session(self) -> Any:
        """The host's session (opened now if it is not yet)."""
        return self.host.session


#: a handler: the call → what the pipeline answered
Handler = Callable[[Call], Any]
#: a view: the call and its handler's answer → what the cell shows
View = Callable[[Call, Any], Any]


def as_shown(call: Call, answer: Any) -> Any:
    """The view of a handler whose answer is drawn already (a card, a widget, an Outcome)."""
    return answer


@dataclasses.dataclass(frozen=True)
class Row:
    """One subcommand: its grammar (the declaration its line is parsed and its help
    written from), its handler and its view. `verb` splits one subcommand's rows by its
    first argument (`%design deck push`); `settles` is False only for `last`, which shows
    an outcome already settled."""

    grammar: Subcommand
    handler: Handler
    view: View = as_shown
    verb: str | None = None
    settles: bool = True

    @property
    def action(self) -> str:
        """The parsed line's action this row runs (`call` for a Design operation)."""
        return "call" if self.grammar is OPERATION else self.grammar.name

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.grammar.tool, self.action, self.verb)
