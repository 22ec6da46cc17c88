"""The `%design trace` view without a service: its notices, the refusals of --har and
--curl (each an error with its own next step), and what --har writes."""

from __future__ import annotations

import json

import pytest

from jupyter_design_projects.errors import TraceUnavailable
from jupyter_design_projects.notebook.remedies import as_magic
from jupyter_design_projects.notebook.views.trace import (
    curl_outcome,
    table,
    trace_command,
    write_har,
)
from jupyter_design_projects.transport.trace import HttpTrace


def record(n: int) -> dict:
    return {"n": n, "action": "detail", "method": "GET", "url": f"http://127.0.0.1/{n}",
            "status": 200, "request_headers": {}, "response_headers": {},
            "request_body": "", "response_body": "{}"}


class Held(HttpTrace):
    """An HttpTrace holding given records (as if those exchanges had happened)."""

    def __init__(self, records, *, enabled=True, limit=500, dropped=0):
        super().__init__(enabled, lambda: [], limit=limit)
        self._rows.extend(records)
        self._appended = len(records) + dropped


def test_an_empty_trace_that_is_on_says_nothing_was_recorded_yet():
    assert table(Held([])).notice == "No HTTP exchange recorded yet."


def test_an_empty_trace_that_is_off_says_how_to_turn_it_on():
    assert "%design trace on" in table(Held([], enabled=False)).notice


def test_drops_are_shown_with_the_setting_that_sizes_the_ring():
    notice = table(Held([record(5)], limit=1, dropped=4)).notice
    assert notice == ("It keeps the last 1 exchanges (DesignProjects.trace_limit); "
                      "4 older one(s) dropped.")
    assert table(Held([record(1)])).notice is None


@pytest.mark.parametrize(("asked", "shown"), [("last", 7), (3, 3), (7, 7)])
def test_curl_takes_the_exchange_by_its_number(asked, shown):
    outcome = curl_outcome(Held([record(3), record(7)]), asked)
    assert outcome.data["n"] == shown and outcome.command.endswith(f"http://127.0.0.1/{shown}")


@pytest.mark.parametrize("asked", [2, 4, 8, 0, -1])
def test_curl_refuses_a_number_the_trace_does_not_hold(asked):
    with pytest.raises(TraceUnavailable) as raised:
        curl_outcome(Held([record(3), record(7)]), asked)
    assert raised.value.reason == "out_of_range"
    assert raised.value.detail == f"{asked}: the trace holds exchanges 3–7"
    assert as_magic(raised.value.remedy).startswith("%design trace lists the exchanges")


@pytest.mark.parametrize(("held", "enabled", "reason", "step"), [
    ([], False, "trace_off", "%design trace on, then run the calls again"),
    ([], True, "no_exchanges", "run a %design or %project call, then ask again"),
])
def test_nothing_to_write_or_show_says_why(held, enabled, reason, step, tmp_path):
    for ask in (lambda t: write_har(t, str(tmp_path / "x.har")),
                lambda t: curl_outcome(t, "last")):
        with pytest.raises(TraceUnavailable) as raised:
            ask(Held(held, enabled=enabled))
        assert raised.value.reason == reason and as_magic(raised.value.remedy) == step
    assert not (tmp_path / "x.har").exists()


def test_a_har_path_in_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(TraceUnavailable) as raised:
        write_har(Held([record(1)]), str(tmp_path / "missing" / "x.har"))
    assert raised.value.reason == "no_folder"
    assert as_magic(raised.value.remedy) == "create the folder, or give a path in one that exists"


def test_a_har_path_that_cannot_be_written_is_refused(tmp_path):
    (tmp_path / "taken.har").mkdir()
    with pytest.raises(TraceUnavailable) as raised:
        write_har(Held([record(1)]), str(tmp_path / "taken.har"))
    assert raised.value.reason == "not_writable" and "taken.har" in raised.value.detail


def test_the_har_written_is_the_table_s_to_har(tmp_path):
    trace = Held([record(1), record(2)], dropped=3)
    written = write_har(trace, str(tmp_path / "t.har"))
    assert written.data["entries"] == 2
    document = json.loads((tmp_path / "t.har").read_text())
    assert document == table(trace).to_har() and document["log"]["_dropped"] == 3


def test_on_off_and_clear(tmp_path):
    trace = Held([record(1)], enabled=False)
    assert trace_command(trace, {"switch": "on"}).data == {"enabled": True}
    assert trace.enabled is True
    assert trace_command(trace, {"switch": "off"}).data == {"enabled": False}
    assert trace_command(trace, {"clear": True}).data == {"cleared": 1}
    assert trace.records() == []


def test_the_creator_is_this_package_and_its_version():
    import jupyter_design_projects

    creator = table(Held([record(1)])).to_har()["log"]["creator"]
    assert creator == {"name": "jupyter-design-projects",
                       "version": jupyter_design_projects.__version__}
