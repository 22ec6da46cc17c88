"""The inspector's form drawn from a `core.input_forms.FormSpec`: one ipywidgets editor per
field (a dropdown for a choice, a checkbox, a text box for numbers, text and JSON, a
textarea for content, a list with Add and Remove, a record of its fields), each labelled
with its name, a * when required, its limits and its help. `FormEditor.value` is what
`input_forms.arguments_of` takes; `FormEditor.fill` loads a replay's values."""

from __future__ import annotations

import html
import re
from typing import Any

from ...core import input_forms as forms
from ..views.theme import colour

#: the dropdown entry of a choice left out
LEFT_OUT = "— (left out)"


def field_class(shown: str) -> str:
    """The CSS class of a field's editor (`files[0].path` → `jdp-field-files-0-path`)."""
    return "jdp-field-" + "-".join(re.findall(r"[A-Za-z0-9_]+", shown))


def label_html(field: forms.Field, shown: str, *, named: bool = True) -> str:
    """A field's label: its name (unless its editor's own label shows it), * when
    required, its limits and its help, escaped."""
    star = f' <span style="color:{colour("error")}" title="required">*</span>' \
        if field.required else ""
    notes = [*field.limits]
    if field.help:
        notes.insert(0, field.help)
    note = (f'<div style="font-size:90%;color:{colour("muted")}">'
            f'{html.escape(" · ".join(notes))}</div>') if notes else ""
    if not named:  # the editor's own label says the name and "(required)"
        return f"<div>{note}</div>"
    return f"<div><code>{html.escape(shown)}</code>{star}{note}</div>"


def input_name(field: forms.Field, shown: str) -> str:
    """The text of an editor's own <label> (its accessible name): the field's path, and
    "(required)" when it is."""
    return f"{shown} (required)" if field.required else shown


class Editor:
    """One field's editor: `widget`, `value` (the form value) and `fill(value)`."""

    def __init__(self, field: forms.Field, shown: str) -> None:
        import ipywidgets as w

        self.field = field
        self.w = w
        self.label = w.HTML(label_html(field, shown, named=False))
        self.input = self._input()
        # the input's own <label for> names it (ipywidgets' empty one left it nameless)
        self.input.description = input_name(field, shown)
        if field.kind != forms.CHECKBOX:
            self.input.style.description_width = "initial"
        self.widget = w.VBox([self.label, self.input])
        self.widget.add_class(field_class(shown))

    def _input(self) -> Any:
        w, field = self.w, self.field
        if field.kind == forms.CHOICE:
            return w.Dropdown(options=[(LEFT_OUT, None), *((str(c), c) for c in field.choices)],
                              value=None)
        if field.kind == forms.CHECKBOX:
            return w.Checkbox(value=forms.blank(field), indent=False)
        if field.kind == forms.JSON or field.body:
            return w.Textarea(value="", placeholder="JSON" if field.kind == forms.JSON else "")
        return w.Text(value="")

    @property
    def value(self) -> Any:
        kind, raw = self.field.kind, self.input.value
        if kind in (forms.INTEGER, forms.NUMBER):
            text = raw.strip()
            if not text:
                return None
            try:
                return int(text) if kind == forms.INTEGER else float(text)
            except ValueError:
                return raw  # arguments_of names the field: "must be an integer"
        if kind == forms.TEXT and raw == "" and not self.field.required:
            return None
        return raw

    def fill(self, value: Any) -> None:
        if self.field.kind == forms.CHECKBOX:
            self.input.value = bool(value)
        elif self.field.kind == forms.CHOICE:
            self.input.value = value if value in self.field.choices else None
        else:
            self.input.value = "" if value is None else str(value)


class ListEditor:
    """A list field: its items' editors, with Add and one Remove per item."""

    def __init__(self, field: forms.Field, shown: str) -> None:
        import ipywidgets as w

        assert field.item is not None
        self.field, self.shown, self.w = field, shown, w
        self.items: list[Any] = []
        self.add_button = w.Button(description="Add", icon="plus",
                                   layout=w.Layout(width="auto"))
        self.add_button.on_click(lambda _b: self.add())
        self.rows = w.VBox()
        self.widget = w.VBox([w.HTML(label_html(field, shown)), self.rows, self.add_button])
        self.widget.add_class(field_class(shown))

    def add(self) -> Any:
        assert self.field.item is not None
        editor = editor_of(self.field.item, f"{self.shown}[{len(self.items)}]")
        self.items.append(editor)
        self._draw()
        return editor

    def remove(self, index: int) -> None:
        del self.items[index]
        self._draw()

    def _draw(self) -> None:
        w = self.w
        rows = []
        for index, editor in enumerate(self.items):
            remove = w.Button(description="Remove", icon="minus",
                              layout=w.Layout(width="auto"))
            remove.on_click(lambda _b, i=index: self.remove(i))
            rows.append(w.HBox([editor.widget, remove]))
        self.rows.children = rows

    @property
    def value(self) -> list[Any]:
        return [editor.value for editor in self.items]

    def fill(self, value: Any) -> None:
        self.items = []
        for item in value if isinstance(value, list) else []:
            self.add().fill(item)
        self._draw()


class RecordEditor:
    """A record field (or the whole form): its fields' editors, in order."""

    def __init__(self, fields: tuple[forms.Field, ...], shown: str = "",
                 field: forms.Field | None = None) -> None:
        import ipywidgets as w

        prefix = f"{shown}." if shown else ""
        self.editors = {f.name: editor_of(f, prefix + f.name) for f in fields}
        parts = [e.widget for e in self.editors.values()]
        if field is not None:
            parts.insert(0, w.HTML(label_html(field, shown)))
        self.widget = w.VBox(parts, layout=w.Layout(
            border=f"1px dashed {colour('border')}" if field is not None else None,
            padding="4px" if field is not None else None))

    @property
    def value(self) -> dict[str, Any]:
        return {name: editor.value for name, editor in self.editors.items()}

    def fill(self, value: Any) -> None:
        value = value if isinstance(value, dict) else {}
        for name, editor in self.editors.items():
            editor.fill(value.get(name))


def editor_of(field: forms.Field, shown: str) -> Any:
    if field.kind == forms.LIST:
        return ListEditor(field, shown)
    if field.kind == forms.RECORD:
        return RecordEditor(field.fields, shown, field)
    return Editor(field, shown)


class FormEditor(RecordEditor):
    """The whole form of one operation."""

    def __init__(self, spec: forms.FormSpec) -> None:
        super().__init__(spec.fields)
        self.spec = spec

    def arguments(self) -> dict[str, Any]:
        """The call's arguments (InvalidArguments naming the field when one is wrong)."""
        return forms.arguments_of(self.spec, self.value)

    def load(self, arguments: dict[str, Any]) -> None:
        """Fill the form with a call's arguments (a replay)."""
        self.fill(forms.values_of(self.spec, arguments))
