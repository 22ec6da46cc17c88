"""How a replay's changes apply to a call's arguments: a key without "/" replaces that
argument (null drops it), and a key with "/" is a JSON Pointer (RFC 6901, the leading "/"
optional) naming one value inside an argument (`{"files/0/path": "b.html"}`) that is
replaced (null drops the member or array item; "-" as the last step appends to an array).

A pointer must name something that is there: its parent must exist, and its last step
must name an existing member, an index in range, or "-". A typo is refused, never added
beside the real field. Pure: the arguments are copied, never changed in place.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


class EditRejected(ValueError):
    """A change that names nothing in the arguments: `key` as given, `why` in words."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"{key}: {why}")
        self.key = key
        self.why = why


def is_pointer(key: str) -> bool:
    """Whether a change's key is a JSON Pointer (it holds a "/") rather than an argument."""
    return "/" in key


def pointer_steps(key: str) -> list[str]:
    """The steps of a pointer, unescaped (~1 is "/", ~0 is "~"); the leading "/" is
    optional. An empty step, or a "~" not followed by 0 or 1, is refused."""
    body = key[1:] if key.startswith("/") else key
    steps = body.split("/")
    for step in steps:
        if step == "":
            raise EditRejected(key, "has an empty step")
        rest = step.replace("~0", "").replace("~1", "")
        if "~" in rest:
            raise EditRejected(key, "has a ~ that is not ~0 or ~1")
    return [step.replace("~1", "/").replace("~0", "~") for step in steps]


def _index(key: str, step: str, items: list[Any], *, last: bool) -> int:
    """The array index `step` names (its decimal form without leading zeros), in range;
    as the last step "-" is the end (an append)."""
    if last and step == "-":
        return len(items)
    if not step.isdigit() or (len(step) > 1 and step.startswith("0")) or not step.isascii():
        raise EditRejected(key, f"{step!r} is not an array index")
    index = int(step)
    if index >= len(items):
        raise EditRejected(key, f"index {index} is past the end (the array has "
                                f"{len(items)} item{'s' * (len(items) != 1)})")
    return index


def _apply_pointer(arguments: dict[str, Any], key: str, value: Any) -> None:
    steps = pointer_steps(key)
    parent: Any = arguments
    for depth, step in enumerate(steps[:-1]):
        if isinstance(parent, dict):
            if step not in parent:
                raise EditRejected(key, f"there is no {'/'.join(steps[:depth + 1])!r}")
            parent = parent[step]
        elif isinstance(parent, list):
            parent = parent[_index(key, step, parent, last=False)]
        else:
            raise EditRejected(key, f"{'/'.join(steps[:depth])!r} holds no fields or items")
    last = steps[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise EditRejected(key, f"there is no {'/'.join(steps)!r} (a new field is set "
                                    "by giving its whole parent)")
        if value is None:
            del parent[last]
        else:
            parent[last] = value
    elif isinstance(parent, list):
        index = _index(key, last, parent, last=True)
        if index == len(parent):
            if value is None:
                raise EditRejected(key, "null cannot be appended (it drops an item)")
            parent.append(value)
        elif value is None:
            del parent[index]
        else:
            parent[index] = value
    else:
        raise EditRejected(key, f"{'/'.join(steps[:-1])!r} holds no fields or items")


def apply_edits(arguments: Mapping[str, Any], edits: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with `edits` applied one by one, in the order given (so a pointer may
    reach into an argument an earlier key replaced). A whole argument set to null is
    dropped; EditRejected names the first change that names nothing."""
    changed = copy.deepcopy(dict(arguments))
    for key, value in edits.items():
        if is_pointer(key):
            _apply_pointer(changed, key, copy.deepcopy(value))
        elif value is None:
            changed.pop(key, None)
        else:
            changed[key] = copy.deepcopy(value)
    return changed
