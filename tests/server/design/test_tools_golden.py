"""Every byte of what `tools/list` serves, pinned: the operations of the shared table when the
golden was captured and an extra operation switched on through the faults hook, compared
with the committed `design_tools.golden.json` (names, descriptions, input schemas with their
key order, annotations). The file was captured from the registration that built tools from
the SDK's internals, before it moved to the SDK's public surface (issue 31.7), so a
registration change that alters one schema byte fails here.

A row added to the table later is served beside them with no edit here (issue 31.3: a new
row needs no other edit); after a deliberate change to a pinned row, regenerate it with
`python -m tests.server.design.test_tools_golden` (from the checkout) and review the diff."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).with_name("design_tools.golden.json")
#: the operation beyond the table the golden includes, served as the faults hook serves one
EXTRA = ("probe_extra_operation", "A read-only operation the table does not know.")


def served_tools(folder: Path) -> list[dict[str, Any]]:
    """The `tools` of one tools/list answer of a fresh endpoint, with EXTRA switched on."""
    from tests.server.design.harness import build_harness

    with build_harness(folder) as harness:
        assert harness.ctx.extra_design_operation is not None
        assert harness.ctx.extra_design_operation(*EXTRA)
        answer = harness.mcp().initialize().request("tools/list")
        assert answer.status_code == 200, answer.text
        tools: list[dict[str, Any]] = answer.json()["result"]["tools"]
        return tools


def as_text(tools: list[dict[str, Any]]) -> str:
    """The tools as the golden file holds them: key order kept, one key a line."""
    return json.dumps(tools, indent=1, ensure_ascii=False) + "\n"


def test_tools_list_serves_the_golden_schemas_byte_for_byte(tmp_path: Path) -> None:
    served = served_tools(tmp_path)
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    pinned = [tool["name"] for tool in golden]
    by_name = {tool["name"]: tool for tool in served}
    # every pinned tool, byte for byte (key order included), in the golden's order
    assert [name for name in by_name if name in pinned] == pinned
    for tool in golden:
        assert as_text([by_name[tool["name"]]]) == as_text([tool]), tool["name"]
    assert as_text([by_name[name] for name in pinned]) == GOLDEN.read_text(encoding="utf-8")


def test_a_row_the_golden_predates_is_served_and_nothing_else_is(tmp_path: Path) -> None:
    """A new row of the operation table is served with no other edit (issue 31.3); the
    golden pins the rows it holds, and nothing but the table's rows is served beyond it."""
    from jupyter_design_projects.core.design_operations import DESIGN_OPERATIONS

    pinned = {tool["name"] for tool in json.loads(GOLDEN.read_text(encoding="utf-8"))}
    unpinned = [tool["name"] for tool in served_tools(tmp_path) if tool["name"] not in pinned]
    assert unpinned == [op.name for op in DESIGN_OPERATIONS if op.name not in pinned]


def test_the_golden_file_holds_table_rows_and_the_extra_operation() -> None:
    from jupyter_design_projects.core.design_operations import DESIGN_OPERATIONS

    golden = [tool["name"] for tool in json.loads(GOLDEN.read_text(encoding="utf-8"))]
    assert golden[-1] == EXTRA[0]
    table = [op.name for op in DESIGN_OPERATIONS]
    # the pinned rows are rows of the table, in its order (a newer row may follow them)
    assert [name for name in table if name in golden] == golden[:-1]
    assert all(tool["inputSchema"]["type"] == "object"
               for tool in json.loads(GOLDEN.read_text(encoding="utf-8")))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        GOLDEN.write_text(as_text(served_tools(Path(scratch))), encoding="utf-8")
    print(f"wrote {GOLDEN}")
