"""The grant watcher end to end (spec §8): a grant card waits in the notebook while a person
gives the grant on the reference service's Design settings page in Debian's chromium; the
card says "approved elsewhere" and the write lands, with no click on the card."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from jupyter_design_projects.notebook.views.outcome import PendingOutcome
from jupyter_design_projects.notebook.widgets.cards import APPROVED_ELSEWHERE
from jupyter_design_projects.server.design.demo import DECK_ID

#: the watcher looks every 2 s; this bounds the whole wait for the card to settle
SETTLE_S = 60.0
UI_MS = 30_000


@pytest.fixture
def shell(reference_service, tmp_path, monkeypatch) -> Iterator[Any]:
    """An IPython shell with the extension loaded, its magics pointed at this test's
    reference service and showing cards."""
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.notebook.magics import load, unload

    for name, value in {
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "JDP_API_BASE_URL": reference_service.base_url,
        "JDP_CREDENTIALS_FILE": str(reference_service.credentials_file),
        "JDP_ORG_UUID": reference_service.org_uuid,
        "CLAUDE_PROJECT_UUID": reference_service.project_uuid,
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_SESSION_JWT", raising=False)
    ip = InteractiveShell.instance()
    load(ip)
    magics = ip.magics_manager.registry["DesignProjects"]
    magics.approval_mode = "widget"
    try:
        yield ip
    finally:
        magics.close()
        unload(ip)


@pytest.mark.browser
def test_grant_given_in_design_settings_continues_the_waiting_card_spec_s8(
        shell, chromium, reference_service):
    shell.run_line_magic("design", "consent")
    shell.user_ns.update(deck=DECK_ID, files=[{"path": "slides/elsewhere.html",
                                               "data": "<h1>Approved elsewhere</h1>"}])
    pending = shell.run_line_magic("design", "write_files project_id=$deck files=$files")
    assert isinstance(pending, PendingOutcome)
    card = pending.card
    assert card.pending.request.kind == "grant"

    context = chromium.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(UI_MS)
        page.goto(reference_service.settings_link())  # the owner's link (then a cookie)
        expect(page.locator('[data-jdp="consent"]')).to_have_text("given")
        page.locator(f'[data-jdp="grant-{DECK_ID}"]').click()
        expect(page.locator(f'[data-jdp="revoke-{DECK_ID}"]')).to_be_visible()
    finally:
        context.close()

    final = card.wait(SETTLE_S)
    assert final is not None and not final.is_error
    assert card.history == [f"grant: {APPROVED_ELSEWHERE}"]
    listing = shell.run_line_magic("design", "list_files project_id=$deck depth=5")
    assert "slides/elsewhere.html" in {entry["path"] for entry in listing.data}
