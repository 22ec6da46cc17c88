"""A result that is neither a table nor an image, drawn as a collapsible JSON tree: HTML
`<details>`/`<summary>` (no script, so it opens in JupyterLab, in a saved notebook
reopened, in nbconvert's HTML and on the docs site), every key and value escaped, each
node's path (`$.content[0].text`) as its title to copy, the top two levels open and the
rest closed. The layout and its budget are `core.json_tree`'s: what it leaves out is said
where it is and once under the tree, with where the whole value is kept."""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from ...core import json_tree as layout_rules
from ...core.json_tree import BOOLEAN, DEFAULT_LIMITS, NULL, NUMBER, STRING, Limits, Node
from .theme import colour

#: containers this many levels deep (the root is level 0) are drawn open; deeper, closed
OPEN_LEVELS = 2
#: the plain text's budget (a terminal shows every line of it)
PLAIN_LIMITS = Limits(nodes=200, string_chars=200)
#: where an outcome keeps the whole value (the rendering is cut, `.data` never is)
WHOLE = "the outcome's `.data`"

_VALUE_ROLE = {STRING: "json-string", NUMBER: "json-number", BOOLEAN: "json-literal",
               NULL: "json-literal"}
_INDENT = (f"margin-left:1.1em;padding-left:.6em;"
           f"border-left:1px solid {colour('track')}")


def tree_html(value: Any, *, whole: str = WHOLE, limits: Limits = DEFAULT_LIMITS,
              open_levels: int = OPEN_LEVELS) -> str:
    """`value` as the collapsible tree, within `limits`, its containers above level
    `open_levels` open; `whole` says where the whole value is when some is not shown."""
    tree = layout_rules.layout(value, limits)
    parts = ['<div class="jdp-json-tree" style="font-family:var(--jp-code-font-family,'
             'monospace);font-size:var(--jp-code-font-size,13px);line-height:1.45;'
             'white-space:pre-wrap;overflow-wrap:anywhere">']
    _node_html(tree.root, parts, open_levels)
    note = layout_rules.summary_note(tree, whole)
    if note:
        parts.append(f'<div class="jdp-json-note" style="color:{colour("muted")};'
                     f'margin-top:.3em">{html.escape(note)}</div>')
    parts.append("</div>")
    return "".join(parts)


def tree_text(value: Any, *, whole: str = WHOLE, limits: Limits = DEFAULT_LIMITS) -> str:
    """`value` as indented JSON within `limits`, what is left out marked where it is."""
    return "\n".join(layout_rules.text_lines(layout_rules.layout(value, limits), whole))


def _title(node: Node) -> str:
    path = node.path if node.path is not None else (
        "(its path is longer than the tree writes out)")
    return f' title="{html.escape(path, quote=True)}"'


def _key_html(node: Node) -> str:
    if node.key is None:
        return ""
    role = "json-key" if isinstance(node.key, str) else "muted"
    cut = layout_rules.key_cut_note(node)
    said = (f' <span class="jdp-json-cut" style="color:{colour("muted")}">'
            f"({html.escape(cut)})</span>") if cut else ""
    return (f'<span class="jdp-json-key" style="color:{colour(role)}">'
            f"{html.escape(node.key_text)}</span>{said}: ")


def _node_html(node: Node, parts: list[str], open_levels: int) -> None:
    if not node.is_container:
        role = _VALUE_ROLE.get(node.kind, "info")
        cut = layout_rules.cut_note(node)
        said = (f' <span class="jdp-json-cut" style="color:{colour("muted")}">'
                f"({html.escape(cut)})</span>") if cut else ""
        parts.append(f'<div class="jdp-json-leaf jdp-json-{node.kind}"{_title(node)}>'
                     f'{_key_html(node)}<span style="color:{colour(role)}">'
                     f"{html.escape(node.text)}</span>{said}</div>")
        return
    count = (f'<span class="jdp-json-count" style="color:{colour("muted")}">'
             f"{html.escape(node.count)}</span>")
    if not node.size:  # {} or []: nothing to open
        parts.append(f'<div class="jdp-json-leaf jdp-json-{node.kind}"{_title(node)}>'
                     f"{_key_html(node)}{count}</div>")
        return
    opened = " open" if node.depth < open_levels else ""
    parts.append(f'<details class="jdp-json-node jdp-json-{node.kind}"{opened}>'
                 f'<summary{_title(node)} style="cursor:pointer">{_key_html(node)}{count}'
                 f'</summary><div style="{_INDENT}">')
    for child in node.children:
        _node_html(child, parts, open_levels)
    more = layout_rules.hidden_note(node)
    if more:
        parts.append(f'<div class="jdp-json-more" style="color:{colour("muted")}">'
                     f"{html.escape(more)}</div>")
    parts.append("</div></details>")


@dataclasses.dataclass(frozen=True)
class JsonTree:
    """A value shown as the tree (HTML) and as indented JSON (plain text); `.value` is the
    whole value, never cut."""

    value: Any
    #: where the whole value is, said when some of it is not shown
    whole: str = "`.value`"
    #: a title above the tree (None: none)
    label: str | None = None
    limits: Limits = DEFAULT_LIMITS
    plain_limits: Limits = PLAIN_LIMITS
    open_levels: int = OPEN_LEVELS

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        text = tree_text(self.value, whole=self.whole, limits=self.plain_limits)
        shown = tree_html(self.value, whole=self.whole, limits=self.limits,
                          open_levels=self.open_levels)
        if self.label is not None:
            text = f"{self.label}\n{text}"
            shown = (f'<div class="jdp-outcome"><div style="font-weight:bold;color:'
                     f'{colour("title")}">{html.escape(self.label)}</div>{shown}</div>')
        return {"text/plain": text, "text/html": shown}

    def __repr__(self) -> str:
        kind = layout_rules.kind_of(self.value)
        return f"<JsonTree {kind}>"

