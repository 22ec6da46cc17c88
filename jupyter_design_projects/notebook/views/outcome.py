"""What every magic returns: an `Outcome` (the tool's JSON result, its tables as
DataFrames, a rich rendering and a `tool_result` block) or, while a person still has to
answer an approval card, a `PendingOutcome` that becomes one once the card is answered."""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.results import EMPTY_RESULT, MappedResult, to_tool_result
from ...errors import AwaitingApproval, JdpError
from . import json_tree, tables, theme
from .budget import Budget, meter_html, meter_text

#: characters of text shown in a rendering (the data itself is never cut; the rest is a
#: JSON tree within its own budget, `json_tree`)
SHOWN_CHARS = 20_000


def _shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more)"


class Outcome:
    """The result of one magic: `.data` is the tool's JSON result, `.df` its main table."""

    label: str
    data: Any
    is_error: bool
    error: JdpError | None
    images: list[tuple[str, bytes]]
    notice: str | None
    body: str | None
    budget: Budget | None

    def __init__(
        self,
        label: str,
        data: Any,
        *,
        is_error: bool = False,
        error: JdpError | None = None,
        tables: Mapping[str, list[dict[str, Any]]] | Callable[[], Mapping[str, list[
            dict[str, Any]]]] | None = None,
        images: Sequence[tuple[str, bytes]] = (),
        notice: str | None = None,
        body: str | None = None,
        budget: Budget | None = None,
        tool_result: Callable[[str], dict] | None = None,
        widget: Callable[[Mapping[str, list[dict[str, Any]]]], Any] | None = None,
    ) -> None:
        self.label = label
        self.data = data
        self.is_error = is_error
        self.error = error
        #: the tables, or what builds them on first use (a magic's result is often only
        #: kept, so the rows are made when shown or read, never on the call's path)
        self._tables: Any = tables if callable(tables) else dict(tables or {})
        self.images = list(images)
        self.notice = notice
        self.body = body
        self.budget = budget
        self._tool_result = tool_result
        self._widget_factory = widget
        self._widget = None

    # ------------------------------------------------------------ data

    @property
    def tables(self) -> dict[str, list[dict[str, Any]]]:
        """The result's tables by name (rows with fixed columns), in display order."""
        if callable(self._tables):
            self._tables = dict(self._tables())
        return self._tables

    @property
    def local_file(self) -> str | None:
        """Where a large read was saved (mode 0600, in the session's temp dir), if it was."""
        if isinstance(self.data, Mapping):
            value = self.data.get("local_file")
            return value if isinstance(value, str) else None
        return None

    @property
    def df(self):
        """The main table as a pandas DataFrame (the first of `.tables`). A call that
        failed has none, and the error says why it failed, not only that."""
        if not self.tables and self.is_error:
            raise AttributeError(f"{self.label} failed, so it has no table: "
                                 f"{self.notice or 'its error is in .data'}")
        if not self.tables:
            raise AttributeError(f"{self.label} has no table; use .data")
        return self.frame(next(iter(self.tables)))

    def frame(self, name: str):
        """One named table (catalogue, hits, docs, uploads, history, trace) as a DataFrame."""
        return tables.frame(name, self.tables[name])

    def to_tool_result(self, tool_use_id: str) -> dict[str, Any]:
        """The `tool_result` block an agent loop would receive for this call."""
        if self._tool_result is not None:
            return self._tool_result(tool_use_id)
        if isinstance(self.data, str):
            text = self.data
        else:
            text = json.dumps(self.data, ensure_ascii=False, default=str)
        block = {"type": "text", "text": text or EMPTY_RESULT}
        return to_tool_result(tool_use_id, MappedResult([block], self.is_error))

    @property
    def done(self) -> bool:
        """Always True: an Outcome is final (a `PendingOutcome` is done once answered)."""
        return True

    @property
    def widget(self):
        """The interactive view (the catalogue table), built from the tables on first use."""
        if self._widget is None and self._widget_factory is not None:
            self._widget = self._widget_factory(self.tables)
        return self._widget

    # ------------------------------------------------------------ rendering

    @property
    def notice_role(self) -> str:
        """The notice's colour role: a warning's ("notice") only when the outcome failed
        or was refused; a routine note ("info") otherwise."""
        return "notice" if self.is_error or self.error is not None else "info"

    def error_fields(self) -> str:
        """The error's own fields on one line, as data a person reads ("status: 500 ·
        route: web"): its message and remedy are the notice, shown once above, so a value
        the message already says is left out, as are a value that is not plain data (a
        mapping, a nested list) and a machine code (`denied_on_card`): `.error` has them."""
        if self.error is None:
            return ""
        said = f"{self.error.message} {self.notice or ''}"
        return " · ".join(f"{k}: {shown}" for k, v in self.error.fields.items()
                          if (shown := _plain_value(v)) is not None
                          and not _already_said(shown, said) and not _CODE.fullmatch(shown))

    def _text(self) -> str:
        lines = [f"{self.label}{' (error)' if self.is_error else ''}"]
        if self.notice:
            lines.append(self.notice)
        if self.budget:
            lines.append(meter_text(self.budget))
        for name, rows in self.tables.items():
            lines.append(f"{name}: {len(rows)} rows (.df / .frame({name!r}))")
        if self.local_file:
            lines.append(f"saved to {self.local_file}")
        if self.error is not None:
            if self.error_fields():
                lines.append(f"Details: {self.error_fields()}")
        elif self.body is not None:
            lines.append(_shorten(self.body, 2000))
        elif isinstance(self.data, str):
            lines.append(_shorten(self.data, 2000))
        elif not self.tables:  # the rest: indented JSON within the plain text's budget
            lines.append(json_tree.tree_text(self.data, limits=json_tree.PLAIN_LIMITS))
        for mime, blob in self.images:
            lines.append(f"[{mime} image, {len(blob):,} bytes]")
        return "\n".join(lines)

    def _html(self) -> str:
        colour = theme.colour("error" if self.is_error else "title")
        parts = [f'<div class="jdp-outcome"><div style="font-weight:bold;color:{colour}">'
                 f"{html.escape(self.label)}{' — error' if self.is_error else ''}</div>"]
        if self.notice:
            parts.append(f'<div class="jdp-{self.notice_role}" '
                         f'style="color:{theme.colour(self.notice_role)}">'
                         f"{html.escape(self.notice)}</div>")
        if self.budget:
            parts.append(meter_html(self.budget))
        if self.local_file:
            parts.append(f"<div>Saved to <code>{html.escape(self.local_file)}</code> "
                         "(<code>.local_file</code>)</div>")
        for name, rows in self.tables.items():
            parts.append(f"<div><b>{html.escape(name)}</b> ({len(rows)})</div>")
            parts.append(tables.html_table(rows, _shown_columns(name)))
        for mime, blob in self.images:
            if mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
                encoded = base64.b64encode(blob).decode("ascii")
                parts.append(f'<img alt="preview" style="max-width:100%" '
                             f'src="data:{mime};base64,{encoded}">')
        if self.error is not None:
            if self.error_fields():
                parts.append(f'<div style="color:{theme.colour("muted")};font-size:90%">'
                             f"Details: {html.escape(self.error_fields())}</div>")
        elif self.body is not None:
            parts.append(f'<pre style="white-space:pre-wrap">{html.escape(_shorten(self.body))}'
                         "</pre>")
        elif isinstance(self.data, str):
            parts.append(f'<pre style="white-space:pre-wrap">{html.escape(_shorten(self.data))}'
                         "</pre>")
        elif not self.tables:  # the rest: a collapsible JSON tree
            parts.append(json_tree.tree_html(self.data))
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": self._text(), "text/html": self._html()}
        pngs = [blob for mime, blob in self.images if mime == "image/png"]
        if pngs:
            bundle["image/png"] = base64.b64encode(pngs[0]).decode("ascii")
        if self.widget is not None:
            view = self.widget._repr_mimebundle_()
            bundle.update({k: v for k, v in view.items() if k != "text/plain"})
        return bundle

    def __repr__(self) -> str:
        return f"<Outcome {self.label}{' error' if self.is_error else ''}>"


#: a machine code (`denied_on_card`, `nobody_can_click`): words for a program, not a person
_CODE = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")


def _already_said(value: str, said: str) -> bool:
    """Whether every sentence of `value` is already in `said` (case aside): the refusal's
    explanation repeats the notice's line and its "Next:" step."""
    said = said.casefold()
    return all(part.casefold() in said for part in re.split(r"(?<=\.)\s+", value.strip()))


def _plain_value(value: Any) -> str | None:
    """A field's value in words: a scalar as itself, a list of scalars joined by commas;
    None for an empty value or one that is not plain data (never a Python repr)."""
    if value is None or value == "" or isinstance(value, bool | Mapping):
        return None if not isinstance(value, bool) else ("yes" if value else "no")
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, list | tuple) and value and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ", ".join(map(str, value))
    return None


def _shown_columns(name: str) -> tuple[str, ...]:
    """The catalogue's long columns stay in .df; the HTML shows the short ones."""
    if name == "catalogue":
        return ("name", "summary", "read_only", "destructive", "needs_approval")
    return tables.COLUMNS.get(name, ())


#: the public names of an Outcome (its attributes, properties and methods): what a pending
#: outcome forwards once its card is answered
OUTCOME_NAMES = frozenset(name for name in {*dir(Outcome), *Outcome.__annotations__}
                          if not name.startswith("_"))


class PendingOutcome:
    """A Design call waiting on its approval card; `.card.approve()` / `.deny()` answer it
    from code, and afterwards every attribute is the final `Outcome`'s."""

    def __init__(self, operation: str, card: Any) -> None:
        self.operation = operation
        self.card = card

    @property
    def outcome(self) -> Outcome | None:
        return self.card.outcome

    @property
    def done(self) -> bool:
        return self.card.outcome is not None

    def _final(self) -> Outcome:
        if self.card.outcome is None:
            raise AwaitingApproval(self.operation)
        return self.card.outcome

    @property
    def data(self) -> Any:
        return self._final().data

    def to_tool_result(self, tool_use_id: str) -> dict[str, Any]:
        return self._final().to_tool_result(tool_use_id)

    def __getattr__(self, name: str) -> Any:
        """Every other public attribute of an Outcome (`is_error`, `df`, `frame`,
        `local_file`, `images`, `error`, …) is the final Outcome's; reading one before the
        answer raises AwaitingApproval. A name no Outcome has raises AttributeError, so
        `hasattr`, `getattr` with a default and the completer work while it waits."""
        missing = AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if name.startswith("_") or name in ("card", "operation"):
            raise missing
        if self.card.outcome is not None:
            return getattr(self.card.outcome, name)
        if name not in OUTCOME_NAMES:
            raise missing
        raise AwaitingApproval(self.operation)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *OUTCOME_NAMES})

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        if self.card.outcome is not None:
            return self.card.outcome._repr_mimebundle_(include, exclude)
        # shown once, under the live card: it must stay true after the card is answered
        text = (f"Design {self.operation}: see its approval card above; the result appears "
                "there (and in .data once answered)")
        return {"text/plain": text, "text/html": f"<em>{html.escape(text)}</em>"}

    def __repr__(self) -> str:
        state = "done" if self.done else "awaiting approval"
        return f"<PendingOutcome {self.operation} {state}>"
