"""`Session` in typed parts (issue 41 item 2): the parts are typed objects, the older
spellings are the parts' methods, the sign-in runs through `session.auth` against the real
reference service, the session module stays within 250 lines, and the lab server calls
no private member of a session."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

import pytest

import jupyter_design_projects.session as session_module
from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.notebook.host import NotebookHost
from jupyter_design_projects.session import Session
from jupyter_design_projects.session.auth import Auth
from jupyter_design_projects.session.notifications import Notifications
from jupyter_design_projects.settings import Settings

PACKAGE = Path(session_module.__file__).parent.parent


def returns(member: object) -> object:
    """The return annotation of a property's, cached property's or method's function."""
    func = (member.fget if isinstance(member, property)
            else member.func if isinstance(member, cached_property) else member)
    return inspect.signature(func).return_annotation


def test_every_public_part_of_the_session_is_typed() -> None:
    parts = {name: member for name, member in vars(Session).items()
             if not name.startswith("_") and isinstance(member, property | cached_property)}
    assert {"auth", "design", "projects", "deck", "history", "trace", "notifications",
            "project", "http", "credentials"} <= set(parts)
    untyped = {name: returns(m) for name, m in parts.items()
               if returns(m) in (inspect.Signature.empty, "Any", "Any | None")}
    assert untyped == {}
    assert returns(Session.__dict__["auth"]) == "Auth"
    assert returns(Session.__dict__["notifications"]) == "Notifications"
    assert returns(NotebookHost.__dict__["session"]) == "Session"


def test_the_session_module_is_at_most_250_lines() -> None:
    source = Path(session_module.__file__).read_text().splitlines()
    assert len(source) <= 250


def test_the_lab_server_calls_no_private_member_of_another_object() -> None:
    reached = []
    for path in sorted((PACKAGE / "labserver").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in ("self", "cls"))):
                reached.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert reached == []


class Recording:
    """Stands for a part: each method called is kept with its arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):
        def call(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return name
        return call


@pytest.fixture
def offline(tmp_path) -> Iterator[Session]:
    """A session to a loopback service that is not there: nothing here sends a request."""
    settings = Settings.resolve({}, {"api_base_url": "http://127.0.0.1:9"})
    with Session(settings, data_dir=tmp_path / "data") as session:
        yield session


def test_each_older_spelling_is_its_parts_method(offline) -> None:
    auth = offline.__dict__["auth"] = Recording()
    notifications = offline.__dict__["notifications"] = Recording()
    attempt = object()
    said = [offline.login_begin(), offline.login_finish(attempt, "code#state"),
            offline.login_start(timeout_s=5.0), offline.login_embedded(7.0),
            offline.auth_status(discover=False), offline.refresh_now(), offline.sign_out(),
            offline.listen_for_notifications(open_session=False),
            offline.design_notifications(listen=False)]
    assert said == ["login_begin", "login_finish", "login_start", "login_embedded", "status",
                    "refresh", "sign_out", "listen", "records"]
    assert auth.calls == [
        ("login_begin", (), {}), ("login_finish", (attempt, "code#state"), {}),
        ("login_start", (), {"timeout_s": 5.0}), ("login_embedded", (7.0,), {}),
        ("status", (), {"discover": False}), ("refresh", (), {}), ("sign_out", (), {})]
    assert notifications.calls == [("listen", (), {"open_session": False}),
                                   ("records", (), {"listen": False})]


def test_the_parts_are_built_once_and_share_the_sessions_credential(offline) -> None:
    assert isinstance(offline.auth, Auth) and offline.auth is offline.auth
    assert offline.credentials is offline.auth.credentials
    assert isinstance(offline.notifications, Notifications)
    assert offline.http is offline._client  # the one client, with the bearer auth now
    assert offline.secrets() == []


def test_the_auth_part_signs_in_refreshes_and_signs_out(session) -> None:
    auth = session.auth
    assert not auth.status(discover=False).signed_in
    auth.login_embedded()
    held = auth.credentials.current()
    assert held is not None and auth.status(discover=False).signed_in
    assert held.access_token in session.secrets()  # redacted wherever the session prints
    refreshed = auth.refresh()
    assert dict(refreshed.last_refresh.fields)["why"] == "asked"
    assert auth.credentials.current().access_token != held.access_token
    assert not auth.sign_out().signed_in
    with pytest.raises(AuthError) as nothing:
        auth.refresh()
    assert nothing.value.reason == "no_token"


def test_the_paste_sign_in_of_the_auth_part_refuses_a_code_of_another_attempt(session) -> None:
    url, attempt = session.auth.login_begin()
    assert url.startswith(session.settings.oauth_authorize_url)
    with pytest.raises(AuthError) as refused:
        session.auth.login_finish(attempt, "some-code#not-its-state")
    assert refused.value.reason == "state_mismatch"
    assert not session.auth.status(discover=False).signed_in


def test_the_call_history_marks_a_calls_exchanges_without_reading_the_traces_rows(
        offline, monkeypatch) -> None:
    """A call's exchanges are the trace's numbers between its start and its end, read as
    the newest number: reading them through `records()` redacted the whole ring twice a
    call (100 ms a call with 500 exchanges kept)."""
    import contextlib

    import httpx

    offline.trace.enabled = True
    monkeypatch.setattr(offline.trace, "records", lambda: pytest.fail("a mark read the rows"))
    span = offline.history.started("projects", "info", {})
    client = offline._client  # the session's traced client, before its bearer
    for _ in range(2):  # nothing listens there: each is traced as a request with no answer
        with contextlib.suppress(httpx.TransportError):
            offline.run(client.get("http://127.0.0.1:9/x"))
    offline.history.ended(span, error=RuntimeError("no service"))
    assert span.record.exchanges == (1, 2)
