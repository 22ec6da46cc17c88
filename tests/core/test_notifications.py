"""What the Design session keeps of each notification (core/notifications.py): the kinds,
redaction by value and by field name before it is kept, the cut, and the bounded store
that counts what it drops."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.notifications import (
    DATA_CHARS,
    NotificationStore,
    record_of,
)
from jupyter_design_projects.core.redaction import REDACTED, Redactor, Secret

AT = "2026-12-06T10:00:00.000Z"
TOKEN = "sk-ant-oat01-abcdefghijklmnop"
redact = Redactor([Secret(TOKEN)])


def log(data: object, level: str = "info", logger: str = "design.operations") -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": level, "logger": logger, "data": data}}


def test_a_log_message_keeps_its_time_level_logger_and_data() -> None:
    record = record_of(log({"event": "files_written", "count": 2}), AT, redact)
    assert record == {"time": AT, "kind": "log", "method": "notifications/message",
                      "level": "info", "logger": "design.operations",
                      "data": {"event": "files_written", "count": 2}, "data_cut": False}


@pytest.mark.parametrize(("message", "kind"), [
    ({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, "list_changed"),
    ({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
     "notification"),
    ({"jsonrpc": "2.0", "id": 4, "method": "ping"}, "request"),
    ({"jsonrpc": "2.0", "id": 4, "result": {}}, "malformed"),
    ("not an object", "malformed"),
])
def test_each_message_has_its_kind(message: object, kind: str) -> None:
    assert record_of(message, AT, redact)["kind"] == kind


def test_a_known_secret_is_redacted_in_values_keys_and_the_logger() -> None:
    record = record_of(log({"said": f"Bearer x {TOKEN}", TOKEN: [TOKEN]},
                           logger=f"as {TOKEN}"), AT, redact)
    assert TOKEN not in repr(record)
    assert record["data"] == {"said": f"Bearer {REDACTED} {REDACTED}",
                              REDACTED: [REDACTED]}
    assert record["logger"] == f"as {REDACTED}"


def test_a_credential_named_field_is_blanked_though_its_value_is_unknown() -> None:
    record = record_of(log({"plan_token": "dpt_never_seen_before_123"}), AT, redact)
    assert record["data"] == {"plan_token": REDACTED}


def test_data_over_the_limit_is_cut_after_redaction() -> None:
    exact = "y" * (DATA_CHARS - 2)  # its JSON text, quotes included, is DATA_CHARS long
    assert record_of(log(exact), AT, redact)["data_cut"] is False
    cut = record_of(log(TOKEN + "x" * DATA_CHARS), AT, redact)
    assert cut["data_cut"] is True
    assert len(cut["data"]) == DATA_CHARS and cut["data"].startswith(f'"{REDACTED}')


def test_control_characters_leave_the_level_and_logger() -> None:
    record = record_of(log("x", level="info\x1b[31m", logger="a\nb"), AT, redact)
    assert record["level"] == "info[31m" and record["logger"] == "ab"


def test_the_store_keeps_its_bound_and_counts_what_it_dropped() -> None:
    store = NotificationStore(kept=3)
    for i in range(3):
        store.add({"data": i})
    assert store.dropped == 0 and "dropped" not in store.dropped_words()
    store.add({"data": 3})
    assert [r["data"] for r in store.records()] == [1, 2, 3]
    assert [r["n"] for r in store.records()] == [2, 3, 4]
    assert store.dropped == 1
    assert "1 older one(s) dropped" in store.dropped_words()


def test_clearing_the_store_keeps_numbering_on() -> None:
    store = NotificationStore(kept=2)
    store.add({})
    store.clear()
    assert store.add({})["n"] == 2 and store.dropped == 0


def test_a_store_keeps_at_least_one() -> None:
    with pytest.raises(ValueError):
        NotificationStore(kept=0)
