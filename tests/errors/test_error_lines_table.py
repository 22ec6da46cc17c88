"""Every error's failure line, walked row by row through the guidance table: one sentence
(or more) saying what went wrong, then exactly one "Next:" after a full stop, and no
command named before it (a line that names a step of its own and another after "Next:"
names two)."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

from jupyter_design_projects import errors
from jupyter_design_projects.core.permissions import REFUSALS
from jupyter_design_projects.errors import GUIDANCE, JdpError, guidance
from jupyter_design_projects.errors.base import declared_fields
from jupyter_design_projects.errors.transport import REASONS
from jupyter_design_projects.notebook import remedies
from jupyter_design_projects.notebook.views import outcomes as views

#: the roots of the tree's branches: never raised, only caught
BRANCH_ROOTS = {"JdpError", "DesignError", "ProjectsError"}
#: a value for each field, by name (a field not listed gets "x")
SAMPLES: dict[str, Any] = {
    "operation": "write_files", "field": "files[0].content", "rule": "is required",
    "suggestion": None, "action": "design list", "detail": "", "status": 500,
    "retry_after": None, "origin": "https://evil.example", "limit": 1024, "seconds": 30.0,
    "content_type": "text/html", "code": -32602, "rpc_message": "Invalid params",
    "project_id": "p-1", "prompt": "", "explanation": REFUSALS["consent_not_given"],
    "body": "{}", "route": "api", "method": "search",
    "available": ["a.md"], "knowledge_size": 10, "estimate": 5, "max_knowledge_size": 20,
    "sizes": [(3, 4)], "cause": "HTTP 500", "log_tail": "", "setting": "approval_mode",
    "what": "session", "tool": "Projects", "gate": "allow_projects_tool", "path": "a.md",
    "file_uuid": "f-1", "deleted_doc_uuid": "d-1", "store": "file", "local_path": "x.bin",
    "reason": "denied_on_card", "directory": "docs", "knowledge_after": 30, "over": 10,
}
#: for the fields whose value picks a different line (or step), every value it may take
VARIANTS: dict[tuple[str, str], list[Any]] = {
    ("GateClosed", "gate"): [*guidance.GATE_OPENERS, "allow_projects_tool"],
    ("ScopeExpansionFailed", "reason"): list(guidance.SCOPE_EXPANSION_REASONS),
    ("UnknownOperation", "reason"): list(guidance.UNKNOWN_OPERATION_REASONS),
    ("UploadRejected", "rule"): list(guidance.UPLOAD_RULES),
    ("TraceUnavailable", "reason"): list(guidance.TRACE_REASONS),
    ("TransportError", "reason"): sorted(REASONS),
    ("ProjectsTransportFailed", "reason"): sorted(REASONS),
    ("PermissionRefused", "explanation"): [f"it was refused. {remedies.APPROVAL_MODE_DENY}",
                                           *REFUSALS.values()],
    ("InvalidArguments", "field"): ["files[0].content", "project_id", "project", "plan_token",
                                    "operation"],
    ("InvalidProjectsArgument", "field"): ["query", "entry_id"],
    ("ProjectsChangeDenied", "reason"): ["denied_on_card", "nobody_can_approve",
                                         "nobody_can_click"],
    ("SyncRefused", "rule"): list(guidance.SYNC_RULES),
    ("BadCommand", "command"): ["design login", ""],
}
#: a command named in a line (its step belongs after "Next:", once)
COMMAND = re.compile(r"%(design|project|config|load_ext)\b")

CLASSES = sorted((obj for obj in vars(errors).values()
                  if inspect.isclass(obj) and issubclass(obj, JdpError)),
                 key=lambda cls: cls.__name__)


def made(cls: type[JdpError], **overrides: Any) -> JdpError:
    """An instance of `cls` with sample fields, built by the root's constructor (the way
    `with_message` builds one), so every class is made the same way."""
    fields = {name: overrides.get(name, SAMPLES.get(name, "x"))
              for name in declared_fields(cls)}
    error = cls.__new__(cls)
    JdpError.__init__(error, **fields)
    return error


def cases() -> list[Any]:
    out = []
    for cls in CLASSES:
        if cls.__name__ in BRANCH_ROOTS:
            continue
        varied = [(field, values) for (name, field), values in VARIANTS.items()
                  if issubclass(cls, getattr(errors, name)) and field in declared_fields(cls)]
        if not varied:
            out.append(pytest.param(cls, {}, id=cls.__name__))
            continue
        for field, values in varied:
            out += [pytest.param(cls, {field: v}, id=f"{cls.__name__}-{field}={str(v)[:24]}")
                    for v in values]
    return out


def test_every_row_of_the_table_is_walked():
    walked = {param.values[0].__name__ for param in cases()}
    assert walked | BRANCH_ROOTS == set(GUIDANCE)


@pytest.mark.parametrize(("cls", "fields"), cases())
def test_a_failure_line_names_one_next_step_after_a_full_stop(cls, fields):
    error = made(cls, **fields)
    line = views.failure_line(error, "design")
    assert line.count("Next:") == 1, line
    said, _, step = line.partition(" Next: ")
    assert said.endswith((".", "?")), line
    assert step.endswith("."), line
    assert step.removesuffix(".") == remedies.as_magic(error.remedy).rstrip(".")
    # an agent reads the error as its dict (the tool_result): the step is in it too
    assert error.to_dict()["next_step"] == error.next_step
    subject = f"%{error.command}: " if cls is errors.BadCommand else ""
    assert not COMMAND.search(said.removeprefix(subject)), f"a command before Next: {line}"
    # from plain Python the same error names a call, never a magic
    assert not COMMAND.search(str(error).removeprefix(subject)), str(error)


def test_a_branch_root_is_never_raised_on_purpose():
    """The three roots have no next step of their own, so no code raises them."""
    from pathlib import Path

    package = Path(errors.__file__).parents[1]
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        for root in BRANCH_ROOTS:
            assert not re.search(rf"raise {root}\(", text), f"{source} raises {root}"


def test_a_tool_error_of_the_service_names_the_operations_fields():
    from jupyter_design_projects.notebook.views.outcome import Outcome

    failed = Outcome("design get_project", "No such project: 'nope'", is_error=True)
    line = views.failure_line(failed, "design")
    assert line == ("Design get_project failed: No such project: 'nope'. Next: %design "
                    "get_project --help (its fields), then run the call again. (The failed "
                    "outcome: %design last.)")
