"""Every byte of what `tools/list` serves, pinned: the eighteen operations of the shared
table and an extra operation switched on through the faults hook, compared with the
committed `design_tools.golden.json` (names, descriptions, input schemas with their key
order, annotations). The file was captured from the registration that built tools from
the SDK's internals, before it moved to the SDK's public surface (issue 31.7), so a
registration change that alters one schema byte fails here.

After a deliberate change to the table (a description, an input), regenerate it with
`PYTHONPATH=. python tests/server/test_design_tools_golden.py` and review the diff."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).with_name("design_tools.golden.json")
#: the operation beyond the table the golden includes, served as the faults hook serves one
EXTRA = ("probe_extra_operation", "A read-only operation the table does not know.")


def served_tools(folder: Path) -> list[dict[str, Any]]:
    """The `tools` of one tools/list answer of a fresh endpoint, with EXTRA switched on."""
    from test_design_harness import build_harness

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
    served = as_text(served_tools(tmp_path))
    golden = GOLDEN.read_text(encoding="utf-8")
    assert served == golden


def test_the_golden_file_holds_the_table_and_the_extra_operation() -> None:
    from jupyter_design_projects.core.design_operations import DESIGN_OPERATIONS

    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert [tool["name"] for tool in golden] == [op.name for op in DESIGN_OPERATIONS] + [
        EXTRA[0]]
    assert all(tool["inputSchema"]["type"] == "object" for tool in golden)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    with tempfile.TemporaryDirectory() as scratch:
        GOLDEN.write_text(as_text(served_tools(Path(scratch))), encoding="utf-8")
    print(f"wrote {GOLDEN}")
