"""Sign-in on the real hub of hub_harness.py, as a person does it from a browser that
reaches the hub's public URL only: sign out in a kernel of theirs, then the Design panel's
Sign in (the redirect comes back to `<hub>/user/<name>/jupyter-design-projects/oauth/
callback`) or Sign in with a code (the popup shows `code#state`, pasted into the panel).

`sign_in` returns every URL the person was shown on the way (each popup's address, the
redirect URI its page names, the code page's address) so a test can check that none is
on the server's loopback. `service_url` is what a stranger on the host could learn (the
port a person's embedded service listens on), read here as root from the person's
Jupyter server: its `JDP_SERVICE_FILE`, which names the service's base URL.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.browser.hub_harness import Hub, processes_of
from tests.browser.panel_driver import DESIGN, KERNEL_MS, LIVE_MS, open_panel, role

UI_MS = 30_000

#: in a person's kernel: sign out of their server's service (the panel sees it at its
#: next refresh); prints the state afterwards
SIGN_OUT = """
from jupyter_design_projects import Session
with Session.open() as session:
    print("signed_in", session.sign_out().signed_in)
"""


def sign_out(hub: Hub, name: str) -> str:
    """`name` signed out, from a kernel of theirs; the kernel's output."""
    return hub.in_kernel(name, SIGN_OUT)


def not_signed_in(page: Any) -> tuple[Any, Any]:
    """The Design panel, refreshed until it says "not signed in"; (panel, state)."""
    panel = open_panel(page, DESIGN)
    role(panel, "refresh").click()
    state = panel.locator('[data-jdp="state"][data-kind="not_signed_in"]')
    expect(state).to_be_visible(timeout=LIVE_MS)
    return panel, state


def sign_in(hub: Hub, page: Any, name: str, *, paste: bool = False) -> list[str]:
    """`name` signed in from `page` (logged in to the hub, JupyterLab open): the redirect
    path, or the pasted code with `paste`. Returns the URLs the person was shown."""
    panel, state = not_signed_in(page)
    with page.context.expect_page(timeout=UI_MS) as opened:
        role(state, "sign-in-paste" if paste else "sign-in").click()
    tab = opened.value
    tab.set_default_timeout(UI_MS)
    expect(tab.locator("h1")).to_have_text("Sign in to the reference service")
    shown = [tab.url, tab.locator("#redirect").inner_text().strip()]
    tab.locator("#authorize").click()
    if paste:
        code = tab.locator("#code").inner_text(timeout=UI_MS).strip()
        shown.append(tab.url)
        tab.close()
        box = role(panel, "paste-code-form")
        role(box, "paste-code").fill(code)
        role(box, "finish-sign-in").click()
        expect(role(panel, "outcome")).to_have_text("Signed in.", timeout=KERNEL_MS)
    else:
        expect(tab.locator("#message")).to_contain_text("You are signed in")
        shown.append(tab.url)
        tab.close()
    expect(role(panel, "consent")).to_be_visible(timeout=LIVE_MS)
    return shown


def service_url(hub: Hub, name: str) -> str:
    """The base URL (`http://127.0.0.1:<port>`) of `name`'s embedded service, from the
    service file their Jupyter server names in its environment (read as root)."""
    for pid in processes_of({hub.users[name].uid}):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        named = [e.split(b"=", 1)[1] for e in environ if e.startswith(b"JDP_SERVICE_FILE=")]
        if named and Path(named[0].decode()).exists():
            return str(json.loads(Path(named[0].decode()).read_text())["base_url"])
    raise AssertionError(f"no service file for {name}'s server")
