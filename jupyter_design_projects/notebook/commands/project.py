"""The `%project` handlers and views: each subcommand's handler asks the pipeline, its view
draws the answer (the rows pairing them are in `registry`)."""

from __future__ import annotations

import contextlib
from typing import Any

from ..views import outcomes
from .call import Call


def method(call: Call) -> Any:
    """info, read, search: one call of the Projects tool."""
    action = call.action
    call_args = {k: v for k, v in call.args.items() if v is not None}
    if action == "info":
        call_args = {}
    session = call.session
    # the bar stays hidden unless the transfer is a MiB or more
    transfer = action in ("read", "write")
    progress = call.host.progress() if transfer else contextlib.nullcontext()
    with progress:
        return session.run(session.projects.call(f"project_{action}", call_args))


def method_view(call: Call, data: Any) -> Any:
    return outcomes.project_outcome(call.action, data)


def history(call: Call) -> Any:
    return call.session.projects.history(call.args["limit"])


def history_view(call: Call, rows: Any) -> Any:
    return outcomes.history_outcome(rows)


def change(call: Call) -> Any:
    """write, delete, restore: a card first, or `--yes` (`change_card`). A restore of an
    entry its rule does not allow (a create, say) is refused before any card."""
    from ..widgets.change_card import change_command

    return change_command(call.host, call.action, call.args)


def sync(call: Call) -> Any:
    """`%project sync DIR`: the plan, one card for the batch (`sync_view`)."""
    from ..widgets.sync_view import sync_command

    return sync_command(call.host, call.args)
