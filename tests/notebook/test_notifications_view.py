"""The Design session's notifications as a person sees them: `%design inspect` opens the
event stream, a write from its form is logged by the service and shows in its
Notifications pane, in `%design trace` (a second table) and from Python; the HAR leaves
them out and says so; and a hostile log message is rendered escaped."""

from __future__ import annotations

import html
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.notebook.commands.run import inspect
from jupyter_design_projects.notebook.widgets.notifications_pane import notifications_html
from jupyter_design_projects.server.design.demo import DECK_ID
from tests.hostile_content import payloads
from tests.notebook.hostile_notifications import hostile_stream, hostile_views
from tests.notebook.inspector_forms import fill_write

WAIT_S = 20.0


def written_from_the_inspector(live: Any, path: str) -> Any:
    inspector = inspect(live.host, "design")
    fill_write(inspector, DECK_ID, path)
    inspector.run_button.click()
    pending = inspector.last
    pending.card.approve()  # consent
    assert not pending.card.approve().is_error  # the project's grant, then the write
    return inspector


def logged(pane: Any, event: str) -> dict[str, Any]:
    """The first record of `event`, waiting (bounded) for the pane to be told of it."""
    arrived = threading.Event()
    pane.stream.on_record.append(lambda record: arrived.set())
    for _ in range(50):
        found = [r for r in pane.stream.records()
                 if isinstance(r["data"], dict) and r["data"].get("event") == event]
        if found:
            return found[0]
        assert arrived.wait(WAIT_S), pane.stream.status
        arrived.clear()
    raise AssertionError(f"no {event} among {pane.stream.records()}")


def test_a_write_from_the_inspector_shows_its_log_in_the_pane_trace_and_python(
        shell, live, tmp_path: Path) -> None:
    shell.run_line_magic("design", "trace on")
    inspector = written_from_the_inspector(live, "slides/11-logged.html")
    pane = inspector.notifications
    assert pane is not None and pane.stream.status.startswith("listening since")
    record = logged(pane, "files_written")
    assert (record["kind"], record["level"], record["logger"]) == (
        "log", "info", "design.operations")
    assert record["data"]["paths"] == ["slides/11-logged.html"]
    assert "files_written" in pane.html.value  # redrawn as it arrived
    assert "slides/11-logged.html" in pane.html.value

    trace = shell.run_line_magic("design", "trace")
    notes = trace.tables["notifications"]
    assert any(n["kind"] == "log" and "files_written" in n["data"] for n in notes)
    assert "Notifications:" in (trace.notice or "")
    assert any(r["method"] == "GET" and r["action"] == "design notifications"
               for r in trace.tables["trace"])  # the stream's GET is an exchange

    kept = live.host.session.design_notifications()
    assert [r["n"] for r in kept] == sorted(r["n"] for r in kept)
    assert any(r["data"] == record["data"] for r in kept)

    har_path = tmp_path / "s.har"
    written = shell.run_line_magic("design", f"trace --har {har_path}")
    document = json.loads(har_path.read_text())
    assert "notification(s) the Design session's event stream carried are not entries" in \
        document["log"]["comment"]
    assert "notification(s) of the Design session are not in it" in written.body
    assert all(e["request"]["method"] in ("GET", "POST", "DELETE", "PUT")
               for e in document["log"]["entries"])

    held = len(pane.stream.records())
    cleared = shell.run_line_magic("design", "trace --clear")
    assert held >= 1 and cleared.data["notifications"] == held
    assert pane.stream.records() == [] and pane.stream.store.dropped == 0
    assert shell.run_line_magic("design", "trace").tables.get("notifications", []) == []


def test_the_trace_never_opens_a_design_session_to_listen(shell, live) -> None:
    shell.run_line_magic("design", "trace on")
    table = shell.run_line_magic("design", "trace")
    assert "notifications" not in table.tables
    assert "not listening" in (table.notice or "")
    assert not live.host.session.design.session.state.has_session_id
    assert all(r["action"] != "design initialize" for r in table.tables["trace"])


def test_a_hostile_log_message_is_rendered_escaped() -> None:
    url = "http://127.0.0.1:9"
    for payload, view in zip(payloads(url).values(), hostile_views(url)[::2], strict=True):
        assert html.escape(payload) in view  # the level and logger cells, escaped whole
        # nothing of the payload's markup survives: each "<" in the pane is the pane's own
        assert view.count("<") == notifications_html(hostile_stream("plain")).count("<")


def test_python_listening_passes_the_design_gates_first(live, monkeypatch) -> None:
    import dataclasses

    from jupyter_design_projects.errors import GateClosed

    session = live.host.session
    monkeypatch.setattr(session, "settings",
                        dataclasses.replace(session.settings, essential_traffic_only=True))
    with pytest.raises(GateClosed) as closed:
        session.design_notifications()
    assert closed.value.gate == "essential_traffic_only"
    assert not session.design.session.state.has_session_id
