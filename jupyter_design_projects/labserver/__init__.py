"""The jupyter_server extension: the side panel's API (`handlers`, over one `Panel`), the
gates its Jupyter config sets (`policy`) and, with no service configured, the server's one
reference service (`launcher`), which every kernel this server starts shares with the panel.

Only jupyter_server imports this package (through `_jupyter_server_extension_points` in
the package root), so its jupyter_server and tornado imports never reach `%load_ext`.
"""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from typing import Any

__all__ = ["failures", "handlers", "launcher", "panel", "policy", "proxy", "sign_in"]


def _share_public_address(serverapp: Any, panel: Any) -> None:
    """Name the runtime file where this server keeps its public address (before any
    kernel starts), written first from JUPYTERHUB_PUBLIC_URL when the hub sets it."""
    from .sign_in import PUBLIC_FILE_ENV, PublicAddress, public_base

    address = PublicAddress(Path(serverapp.runtime_dir) / f"jdp-public-{os.getpid()}.txt")
    address.remove()
    os.environ[PUBLIC_FILE_ENV] = str(address.path)
    panel.public_address = address
    atexit.register(address.remove)
    if os.environ.get("JUPYTERHUB_PUBLIC_URL"):
        address.note(public_base("https", "", serverapp.base_url, os.environ))


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from ..data_dir import private_data_dir, user_data_dir
    from ..errors import ConfigError
    from . import policy
    from .handlers import register
    from .launcher import launch
    from .panel import Panel

    try:  # private before anything is kept in it: a loose existing one is tightened
        data_dir = private_data_dir(user_data_dir())
    except ConfigError as error:  # another user's: no service and no panel, said plainly
        serverapp.log.error("jupyter_design_projects: %s", error)
        return
    # the gates the server's config sets hold for the panel and, through the environment,
    # for every kernel it starts
    policy.export(policy.configured(serverapp), os.environ)
    # first: the runtime file must be named in the environment before any kernel starts
    launch(os.environ, Path(serverapp.runtime_dir), data_dir / "reference-service",
           serverapp.log)
    panel = Panel(os.environ, data_dir)
    atexit.register(panel.close)
    _share_public_address(serverapp, panel)
    register(serverapp.web_app, panel)
