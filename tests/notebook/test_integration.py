"""The magics in an IPython shell against a real reference service: Projects reads, writes,
spills and restores; Design cards approved and denied from code, checked on the service."""

from __future__ import annotations

import os
import stat

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.notebook.views.outcome import Outcome, PendingOutcome
from tests.sign_in_page import click_authorize, pasted_code

SLIDE = "<!doctype html><html><body><h2>Next steps</h2></body></html>"


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def live(live):
    """The conftest's `live`, its progress reports recorded."""
    live.reports = []
    live.host.report_progress = lambda *report: live.reports.append(report)
    return live


def deck_id(shell) -> str:
    projects = shell.run_line_magic("design", "list_projects")
    return next(p["id"] for p in projects.data if p["name"] == "Quarterly Review Deck")


def files_of(shell, project_id: str) -> set[str]:
    shell.user_ns["_pid"] = project_id
    listing = shell.run_line_magic("design", "list_files project_id=$_pid")
    return {f["path"] for f in listing.data}


def test_info_search_and_read(shell, live):
    info = shell.run_line_magic("project", "info")
    assert "data-retention-policy.md" in info.df["path"].tolist()
    assert info.budget is not None
    hits = shell.run_line_magic("project", 'search "data retention" -n 3')
    assert 1 <= len(hits.df) <= 3
    doc = shell.run_line_magic("project", "read data-retention-policy.md")
    assert doc.local_file is None
    assert doc.data["content"]


def test_write_then_read_round_trips_and_history_restores(shell, live):
    shell.run_cell_magic("project", "write notes.md", "first\n").card.approve()
    shell.run_cell_magic("project", "write claude/notes.md", "second\n").card.approve()
    history = shell.run_line_magic("project", "history")
    replaced = history.df[history.df["restorable"]]["id"].iloc[0]
    shell.run_line_magic("project", f"restore {replaced}").card.approve()
    assert shell.run_line_magic("project", "read claude/notes.md").data["content"] == "first\n"


def test_a_large_doc_spills_to_a_private_file_that_pandas_reads(shell, live, tmp_path):
    import pandas as pd

    lines = ["n,text"] + [f"{i},{'x' * 40}" for i in range(7000)]
    (tmp_path / "big.csv").write_text("\n".join(lines) + "\n")
    shell.run_line_magic("project", "write big.csv --from big.csv").card.approve()
    big = shell.run_line_magic("project", "read claude/big.csv")
    assert big.local_file is not None
    assert stat.S_IMODE(os.stat(big.local_file).st_mode) == 0o600
    temp_dir = live.session.temp_dir
    assert os.path.dirname(big.local_file) == str(temp_dir)
    assert stat.S_IMODE(os.stat(temp_dir).st_mode) == 0o700
    assert len(pd.read_csv(big.local_file)) == 7000


def test_a_raw_download_of_mibs_reports_progress(shell, live):
    raw = shell.run_line_magic("project", "read churn-features-sample.parquet")
    assert raw.data["bytes"] == 3 * 1024 * 1024
    assert ("download churn-features-sample.parquet", 3 * 1024 * 1024,
            3 * 1024 * 1024) in live.reports


def test_a_missing_doc_is_a_one_line_usage_error(shell, live):
    with pytest.raises(UsageError) as caught:
        shell.run_line_magic("project", "read no-such-doc.md")
    assert "\n" not in str(caught.value)


def test_consent_then_grant_cards_approved_write_the_file(shell, live):
    catalogue = shell.run_line_magic("design", "list")
    assert "write_files" in catalogue.df["name"].tolist()
    shell.run_line_magic("design", "consent")
    deck = deck_id(shell)
    shell.user_ns.update(deck=deck, files=[{"path": "slides/04-next.html", "data": SLIDE}])
    pending = shell.run_line_magic("design", "write_files project_id=$deck files=$files")
    assert isinstance(pending, PendingOutcome)
    assert pending.card.pending.request.kind == "grant"
    final = pending.card.approve(durable=True)
    assert isinstance(final, Outcome)
    assert not final.is_error
    assert "slides/04-next.html" in files_of(shell, deck)


def test_a_denied_card_writes_nothing(shell, live):
    shell.run_line_magic("design", "consent")
    deck = deck_id(shell)
    shell.user_ns.update(deck=deck, files=[{"path": "slides/05-denied.html", "data": SLIDE}])
    pending = shell.run_line_magic("design", "write_files project_id=$deck files=$files")
    pending.card.deny_button.click()
    assert pending.is_error
    assert "slides/05-denied.html" not in files_of(shell, deck)


def test_without_consent_the_card_asks_for_consent_first(shell, live):
    deck_files = [{"path": "slides/06.html", "data": SLIDE}]
    shell.user_ns.update(files=deck_files)
    shell.run_line_magic("design", "list")
    pending = shell.run_line_magic(
        "design", "write_files project_id=00000000-0000-4000-8000-000000000001 files=$files")
    assert isinstance(pending, PendingOutcome)
    assert pending.card.pending.request.kind == "consent"


def test_deny_mode_fails_closed_and_names_the_explicit_command(shell, live):
    live.approval_mode = "deny"
    shell.run_line_magic("design", "list")
    shell.user_ns.update(files=[{"path": "slides/07.html", "data": SLIDE}])
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic(
            "design", "write_files project_id=00000000-0000-4000-8000-000000000001 "
            "files=$files")
    assert "%design consent" in str(raised.value)
    out = shell.run_line_magic("design", "last")
    assert out.is_error
    assert out.to_tool_result("toolu_1")["is_error"] is True


def test_render_preview_shows_a_png(shell, live):
    shell.run_line_magic("design", "consent")
    shell.user_ns["deck"] = deck_id(shell)
    preview = shell.run_line_magic(
        "design", "render_preview project_id=$deck path=slides/03-metrics.html")
    assert preview.images and preview.images[0][0] == "image/png"
    assert "image/png" in preview._repr_mimebundle_()


def test_login_paste_opens_the_sign_in_page_and_the_pasted_code_signs_in(shell, live):
    with pytest.raises(UsageError):
        shell.run_line_magic("design", "login nothing-was-started#x")
    page = shell.run_line_magic("design", "login --paste")
    code = pasted_code(page.data["url"])
    signed_in = shell.run_line_magic("design", f"login '{code.strip()}'")
    assert signed_in.data["signed_in"] is True
    assert shell.run_line_magic("project", "info").data["project"]["name"] == "Team Handbook"


def test_with_no_service_configured_the_embedded_one_starts_says_so_and_stops_on_unload(
        shell, tmp_path, monkeypatch, capsys):
    from jupyter_design_projects.notebook.magics import load, unload

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("JDP_API_BASE_URL", "JDP_WEB_BASE_URL", "JDP_OAUTH_TOKEN_URL",
                 "JDP_CREDENTIALS_FILE", "JDP_ORG_UUID", "CLAUDE_PROJECT_UUID",
                 "CLAUDE_SESSION_JWT", "JDP_SERVICE_FILE"):
        monkeypatch.delenv(name, raising=False)
    info = shell.run_line_magic("project", "info")
    assert "offline reference service" in capsys.readouterr().out
    assert info.data["project"]["name"] == "Team Handbook"
    card = shell.run_line_magic("design", "login")  # the page redirects back: no paste
    click_authorize(card.url)
    assert card.wait(60) is True
    session = shell.magics_manager.registry["DesignProjects"].session
    temp_dir, process = session.temp_dir, session.embedded.process
    assert temp_dir.is_dir()
    unload(shell)
    assert not temp_dir.exists()
    assert process.poll() is not None
    load(shell)


def test_a_written_mib_reports_upload_progress(shell, live):
    body = "# Big\n" + "x" * (1024 * 1024)
    shell.run_cell_magic("project", "write big-notes.md", body).card.approve()
    size = len(body.encode())
    assert ("upload claude/big-notes.md", size, size) in live.reports


@pytest.mark.parametrize(("n", "ok"), [(0, False), (1, True), (15, True), (16, False)])
def test_search_n_is_checked_at_both_ends(shell, live, n, ok):
    if ok:
        hits = shell.run_line_magic("project", f"search retention -n {n}")
        assert len(hits.df) <= n
    else:
        with pytest.raises(UsageError):
            shell.run_line_magic("project", f"search retention -n {n}")


def test_an_approved_plan_lets_its_write_through_without_another_card(shell, live):
    shell.run_line_magic("design", "consent")
    deck = deck_id(shell)
    path = "slides/08-planned.html"
    shell.user_ns.update(deck=deck, writes=[path], files=[{"path": path, "data": SLIDE}])
    plan = shell.run_line_magic("design", "finalize_plan project_id=$deck writes=$writes")
    assert isinstance(plan, PendingOutcome)
    assert plan.card.pending.request.kind == "plan"
    plan.card.approve()
    shell.user_ns["token"] = plan.data["plan_token"]
    written = shell.run_line_magic(
        "design", "write_files project_id=$deck files=$files plan_token=$token")
    assert isinstance(written, Outcome)
    assert not written.is_error
    assert path in files_of(shell, deck)


EXIT_PROBE = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "jupyter_design_projects")
shell.run_line_magic("project", "info")
magics = shell.magics_manager.registry["DesignProjects"]
print(magics.session.temp_dir, flush=True)
sys.exit(0)  # no unload: the interpreter exits with the session open
"""


def test_the_session_temp_dir_is_removed_at_exit(pointed_at_service, tmp_path):
    import pathlib
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", EXIT_PROBE], capture_output=True, text=True,
                          env=dict(os.environ), cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    temp_dir = pathlib.Path(done.stdout.strip().splitlines()[-1])
    assert temp_dir.name.startswith("jdp-session-")
    assert not temp_dir.exists()


def test_login_paste_asks_for_the_code_without_putting_it_in_the_cell(shell, live,
                                                                     monkeypatch):
    import getpass

    from jupyter_design_projects.notebook.host import NotebookHost

    magics = shell.magics_manager.registry["DesignProjects"]
    monkeypatch.setattr(NotebookHost, "stdin_allowed", lambda self: True)
    asked = []

    def paste(prompt: str) -> str:
        asked.append(prompt)
        return pasted_code(magics.host.login_attempt.url)

    monkeypatch.setattr(getpass, "getpass", paste)
    signed_in = shell.run_line_magic("design", "login --paste")
    assert asked and signed_in.data["signed_in"] is True
