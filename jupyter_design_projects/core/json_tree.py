"""The layout of a JSON value as a collapsible tree, within a budget: which nodes are shown
(breadth first and at most `ITEMS_SHOWN` of each record or list, so the first keys of a
level show before anything deeper and the first records of a long list show what they
hold), each node's kind,
its count ("{3 keys}", "[12 items]"), its copyable path (`$.content[0].text`), and what
is left out, always said: a string cut keeps its full length, a record or list the budget
stops keeps how many of its keys or items are not shown, one deeper than the depth limit
keeps its count. The notebook draws it (`notebook/json_tree.py`); the plain text, an
indented JSON with the same marks, is drawn here.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

#: nodes laid out at most (the root counts): past it a record or list says what is left
NODE_BUDGET = 1_000
#: keys or items of one record or list laid out at most (so a long list of records still
#: shows what its first records hold)
ITEMS_SHOWN = 100
#: levels below the root that are laid out; a record or list deeper shows only its count
DEPTH_LIMIT = 20
#: characters of a string (or of a number's or other value's text) shown
STRING_CHARS = 300
#: characters of a key shown
KEY_CHARS = 100
#: the longest path a node carries; a longer one is said to be longer
PATH_CHARS = 300

OBJECT, ARRAY, STRING, NUMBER, BOOLEAN, NULL, OTHER = (
    "object", "array", "string", "number", "boolean", "null", "other")
CONTAINERS = frozenset({OBJECT, ARRAY})

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclasses.dataclass(frozen=True)
class Limits:
    nodes: int = NODE_BUDGET
    items: int = ITEMS_SHOWN
    depth: int = DEPTH_LIMIT
    string_chars: int = STRING_CHARS
    key_chars: int = KEY_CHARS
    path_chars: int = PATH_CHARS


#: the limits every rendering uses unless given others
DEFAULT_LIMITS = Limits()


@dataclasses.dataclass
class Node:
    """One value of the tree."""

    kind: str
    #: the key in its record (str), the index in its list (int), or None for the root
    key: str | int | None
    #: `$`, `$.a`, `$["a b"][0]`; None when longer than the limit
    path: str | None
    depth: int
    #: a record's keys or a list's items in all; a string's characters; else 0
    size: int = 0
    #: a scalar's JSON text, cut to the limit (a string's quotes and escapes included)
    text: str = ""
    #: characters of the value's text not shown (a string, a long number, another value)
    cut: int = 0
    children: list[Node] = dataclasses.field(default_factory=list)
    #: keys or items of this record or list the budget left out
    hidden: int = 0
    #: a record or list deeper than the depth limit: its count only
    too_deep: bool = False
    #: the key as JSON (quoted) or the index, cut to the limit; "" for the root
    key_text: str = ""
    #: characters of the key not shown
    key_cut: int = 0

    @property
    def is_container(self) -> bool:
        return self.kind in CONTAINERS

    @property
    def count(self) -> str:
        """"{3 keys}", "{1 key}", "[12 items]", "{}", "[]"."""
        if self.kind == OBJECT:
            return "{}" if not self.size else f"{{{self.size:,} {_plural(self.size, 'key')}}}"
        if self.kind == ARRAY:
            return "[]" if not self.size else f"[{self.size:,} {_plural(self.size, 'item')}]"
        return ""



@dataclasses.dataclass(frozen=True)
class Tree:
    root: Node
    limits: Limits
    #: nodes laid out (the root included)
    shown: int
    #: keys and items the budget left out, over the whole tree
    hidden: int
    #: records and lists deeper than the depth limit
    too_deep: int
    #: strings (and other texts) cut, keys included
    cut: int

    @property
    def complete(self) -> bool:
        """Whether every value is shown whole."""
        return not (self.hidden or self.too_deep or self.cut)


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def _key_shown(key: str | int | None, limit: int) -> tuple[str, int]:
    if key is None:
        return "", 0
    if isinstance(key, int):
        return str(key), 0
    return _quoted(key, limit)


def _quoted(text: str, limit: int) -> tuple[str, int]:
    """A string as JSON cut to `limit` characters of the string, and how many were cut;
    a character that does not show as itself (a control, bidi or zero-width one, a line
    or paragraph separator, a lone surrogate) is written as its `\\uXXXX` escape."""
    shown = text[:limit]
    quoted = json.dumps(shown, ensure_ascii=False)
    if not _UNSEEN.isdisjoint(map(unicodedata.category, shown)):
        quoted = "".join(_escaped(c) for c in quoted)
    return quoted, len(text) - len(shown)


#: the categories of characters written as their escape: they do not show as themselves
_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def _escaped(char: str) -> str:
    if unicodedata.category(char) not in _UNSEEN:
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def child_path(parent: str | None, key: str | int, limit: int = PATH_CHARS) -> str | None:
    """`parent.key`, `parent["a b"]` or `parent[3]`; None past `limit` characters."""
    if parent is None:
        return None
    if isinstance(key, int):
        step = f"[{key}]"
    elif _NAME.match(key):
        step = f".{key}"
    else:
        step = f"[{json.dumps(key, ensure_ascii=False)}]"
    path = parent + step
    return path if len(path) <= limit else None


def kind_of(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int | float):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, Mapping):
        return OBJECT
    if isinstance(value, list | tuple):
        return ARRAY
    return OTHER


def _scalar_text(kind: str, value: Any, limit: int) -> tuple[str, int]:
    if kind == STRING:
        return _quoted(value, limit)
    if kind == NULL:
        return "null", 0
    if kind == BOOLEAN:
        return ("true" if value else "false"), 0
    if kind == NUMBER:
        if isinstance(value, float) and not math.isfinite(value):
            text = json.dumps(value)  # NaN, Infinity, -Infinity: as Python's JSON writes them
        else:
            try:
                text = repr(value)
            except ValueError:  # an int past Python's digit limit
                return "(an integer too long to write)", 0
    else:
        text = repr(value)
    return text[:limit], max(0, len(text) - limit)


def _items(kind: str, value: Any) -> Iterator[tuple[str | int, Any]]:
    if kind == OBJECT:
        for key, item in value.items():
            yield (key if isinstance(key, str) else str(key)), item
    else:
        yield from enumerate(value)


def layout(value: Any, limits: Limits = DEFAULT_LIMITS) -> Tree:
    """Lay `value` out breadth first within `limits`."""
    root = _node(value, None, "$", 0, limits)
    shown, hidden, too_deep, cut = 1, 0, 0, root.cut
    queue: collections.deque[tuple[Node, Any]] = collections.deque()
    if root.is_container:
        queue.append((root, value))
    while queue:
        node, held = queue.popleft()
        if node.depth >= limits.depth:
            node.too_deep = True
            too_deep += 1
            continue
        for key, item in _items(node.kind, held):
            if shown >= limits.nodes or len(node.children) >= limits.items:
                node.hidden = node.size - len(node.children)
                hidden += node.hidden
                break
            child = _node(item, key, child_path(node.path, key, limits.path_chars),
                          node.depth + 1, limits)
            node.children.append(child)
            shown += 1
            cut += (child.cut > 0) + (child.key_cut > 0)
            if child.is_container and child.size:
                queue.append((child, item))
    return Tree(root, limits, shown, hidden, too_deep, cut)


def _node(value: Any, key: str | int | None, path: str | None, depth: int,
          limits: Limits) -> Node:
    kind = kind_of(value)
    key_text, key_cut = _key_shown(key, limits.key_chars)
    if kind in CONTAINERS:
        return Node(kind, key, path, depth, size=len(value), key_text=key_text,
                    key_cut=key_cut)
    text, cut = _scalar_text(kind, value, limits.string_chars)
    size = len(value) if kind == STRING else 0
    return Node(kind, key, path, depth, size=size, text=text, cut=cut, key_text=key_text,
                key_cut=key_cut)


# ---------------------------------------------------------------- what is left out, in words


def cut_note(node: Node) -> str:
    """A cut string's mark: "… 12,000 more characters (12,300 in all)"."""
    if not node.cut:
        return ""
    if node.kind == STRING:
        return f"… {node.cut:,} more {_plural(node.cut, 'character')} ({node.size:,} in all)"
    return f"… {node.cut:,} more {_plural(node.cut, 'character')}"


def key_cut_note(node: Node) -> str:
    """A cut key's mark: "key: … 900 more characters"."""
    cut = node.key_cut
    return f"key: … {cut:,} more {_plural(cut, 'character')}" if cut else ""


def hidden_note(node: Node) -> str:
    """The budget's mark in a record or list: "… 3,412 more items not shown"."""
    if node.too_deep:
        return (f"… {node.size:,} {_plural(node.size, 'key' if node.kind == OBJECT else 'item')}"
                " not shown (deeper than the tree goes)")
    if not node.hidden:
        return ""
    word = "key" if node.kind == OBJECT else "item"
    return f"… {node.hidden:,} more {_plural(node.hidden, word)} not shown"


def summary_note(tree: Tree, whole: str) -> str:
    """What the whole tree leaves out, and where the whole value is; "" when nothing."""
    if tree.complete:
        return ""
    said = []
    if tree.hidden:
        words = "key or item" if tree.hidden == 1 else "keys or items"
        said.append(f"{tree.hidden:,} more {words} (the tree shows {tree.limits.items:,} "
                    f"of a record or list, {tree.limits.nodes:,} values in all)")
    if tree.too_deep:
        said.append(f"{tree.too_deep:,} {_plural(tree.too_deep, 'record or list')} deeper "
                    f"than {tree.limits.depth} levels")
    if tree.cut:
        said.append(f"{tree.cut:,} long {_plural(tree.cut, 'text')} cut")
    return f"Not shown: {'; '.join(said)}. The whole value is in {whole}."


# ---------------------------------------------------------------- the plain text


def text_lines(tree: Tree, whole: str) -> list[str]:
    """The tree as indented JSON, each left-out part marked where it is (a `…` line or a
    note after a cut string), then the summary note."""
    lines: list[str] = []
    _text(tree.root, lines, "", last=True)
    note = summary_note(tree, whole)
    return [*lines, note] if note else lines


def _text(node: Node, lines: list[str], indent: str, last: bool) -> None:
    head = indent + (f"{node.key_text}: " if isinstance(node.key, str) else "")
    notes = [n for n in (key_cut_note(node), cut_note(node)) if n]
    said = f"  ({'; '.join(notes)})" if notes else ""
    comma = "" if last else ","
    if not node.is_container:
        lines.append(f"{head}{node.text}{comma}{said}")
        return
    opening, closing = ("{", "}") if node.kind == OBJECT else ("[", "]")
    if not node.size:
        lines.append(f"{head}{opening}{closing}{comma}{said}")
        return
    lines.append(f"{head}{opening}{said}")
    inner = indent + "  "
    more = hidden_note(node)
    for i, child in enumerate(node.children):
        _text(child, lines, inner, last=i == len(node.children) - 1 and not more)
    if more:
        lines.append(inner + more)
    lines.append(f"{indent}{closing}{comma}")
