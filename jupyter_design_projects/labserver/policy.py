"""The gates (`settings.GATES`) as the Jupyter server's own config sets them, so the side
panel and every kernel the server starts honour one policy.

`c.DesignProjects.<gate>` in `jupyter_server_config.py` (or `--DesignProjects.<gate>=False`
on the command line) is read by a traitlets `Configurable` whose traits are made from the
gate declarations in settings.py, and written into the server's environment as the gate's
variable before any kernel starts: the panel reads that environment, and the kernels
inherit it. A gate set in the config wins over the same variable set in the environment.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from ..settings import GATES, Settings, rows

#: the config section: the same class name the kernels' `%config` uses
SECTION = "DesignProjects"


def _policy_class() -> type:
    """The gates' traits, each the one its declaration makes (`settings.Row.trait`: the
    same type, default and help as the kernels' `%config` trait)."""
    from traitlets.config import LoggingConfigurable

    traits = {row.name: row.trait() for row in rows(Settings) if row.name in GATES}
    return type(SECTION, (LoggingConfigurable,), traits)


def configured(parent: Any) -> dict[str, bool]:
    """The gates the Jupyter config of `parent` (the server app) sets, by name."""
    config = parent.config
    section = config[SECTION] if SECTION in config else {}
    named = [gate for gate in GATES if gate in section]
    if not named:
        return {}
    policy = _policy_class()(parent=parent)
    return {gate: bool(getattr(policy, gate)) for gate in named}


def export(gates: dict[str, bool], environ: MutableMapping[str, str]) -> None:
    """Write each configured gate into `environ` as its variable ("1" or "0")."""
    for gate, value in gates.items():
        environ[GATES[gate]] = "1" if value else "0"
