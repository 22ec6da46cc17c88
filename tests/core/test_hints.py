"""core.hints.merge: the server's annotations never lower the client's floor."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.hints import ClientFloor, merge, server_hints

READ = ClientFloor(read_only=True, destructive=False)
WRITE = ClientFloor(read_only=False, destructive=False)
DESTROY = ClientFloor(read_only=False, destructive=True)


@pytest.mark.parametrize(
    ("server", "client", "expected"),
    [
        # known read-only: both sides must agree
        ({"readOnlyHint": True}, READ, (True, False)),
        ({"readOnlyHint": False, "destructiveHint": False}, READ, (False, False)),
        ({"readOnlyHint": False}, READ, (False, True)),
        ({}, READ, (False, True)),
        # known write: the server cannot make it read-only
        ({"readOnlyHint": True}, WRITE, (False, False)),
        ({"readOnlyHint": True, "destructiveHint": False}, DESTROY, (False, True)),
        # known destructive: the server cannot make it harmless
        ({"readOnlyHint": False, "destructiveHint": False}, DESTROY, (False, True)),
        # the server can raise the floor; an absent destructiveHint may destroy
        ({"readOnlyHint": False, "destructiveHint": True}, WRITE, (False, True)),
        ({"readOnlyHint": False}, WRITE, (False, True)),
        ({"readOnlyHint": False, "destructiveHint": False}, WRITE, (False, False)),
        # not listed by the server: the client floor alone
        (None, READ, (True, False)),
        (None, DESTROY, (False, True)),
        # unknown: read-only only on an explicit boolean true
        ({"readOnlyHint": True}, None, (True, False)),
        ({"readOnlyHint": True, "destructiveHint": True}, None, (True, False)),
        ({"readOnlyHint": "true"}, None, (False, True)),
        ({"readOnlyHint": 1}, None, (False, True)),
        ({"readOnlyHint": False, "destructiveHint": False}, None, (False, False)),
        ({"readOnlyHint": False, "destructiveHint": "false"}, None, (False, True)),
        ({"destructiveHint": False}, None, (False, False)),
        ({}, None, (False, True)),
        (None, None, (False, True)),
    ],
)
def test_merge_table(server, client, expected) -> None:
    assert merge(server, client) == expected


@pytest.mark.parametrize("annotations", [None, [], "readOnlyHint", 7])
def test_malformed_annotations_read_as_a_write_that_may_destroy(annotations) -> None:
    assert server_hints(annotations) == (False, True)
