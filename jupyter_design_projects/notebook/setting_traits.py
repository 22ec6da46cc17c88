"""The client's settings as traits of the magics class: one `%config DesignProjects.<name>`
trait per setting that `settings.Settings` declares a trait, with its declared type,
default, bounds and help (what `%config DesignProjects` prints); and the configuration
table of docs/configuration.md, derived from the same declarations.

A secret is never a trait (`settings.rows` refuses the declaration). A test builds all of
this from a `Settings` subclass that adds one setting, and finds its trait, help,
environment variable and docs row with no other edit.
"""

from __future__ import annotations

from typing import Any

from traitlets import MetaHasTraits, TraitType
from traitlets.config import Configurable

from ..settings import Row, Settings, rows

#: the markers docs/configuration.md holds the generated table between
TABLE_BEGIN = "<!-- settings table: generated from settings.Settings, do not edit -->"
TABLE_END = "<!-- end of the settings table -->"
#: how the environment writes a bool setting
_BOOL_WORDS = "`1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`"


def trait_of(row: Row) -> TraitType[Any, Any]:
    """The traitlets trait of one setting: its type, default, bounds or choices, and help
    (declared once: `settings.Row.trait`)."""
    return row.trait()


def setting_traits(settings: type = Settings) -> dict[str, TraitType[Any, Any]]:
    """Each setting a trait carries → its trait (never a secret)."""
    return {row.name: trait_of(row) for row in rows(settings) if row.declared.trait}


def traits_class(settings: type = Settings, name: str = "SettingTraits") -> type:
    """A `Configurable` carrying the settings' traits: the magics class's base for them."""
    return MetaHasTraits(name, (Configurable,), {
        "__doc__": "The settings' traits (`settings.Settings`), one per declared trait.",
        **setting_traits(settings)})


class SettingTraits(Configurable):
    """The settings' traits (`settings.Settings`), one per setting that declares a trait;
    the magics class inherits them, so `%config DesignProjects.<name>` sets them."""

    vars().update(setting_traits(Settings))  # the class body is built from the table


#: the settings a trait carries, which the magics pass to `Settings.resolve`
SETTING_TRAITS: tuple[str, ...] = tuple(setting_traits(Settings))


def _default(row: Row) -> str:
    if row.secret:
        return "–"
    if row.kind in (int, float):
        return f"`{row.default}`"
    return f"`{row.default!r}`" if row.default != "" else "empty"


def docs_row(row: Row) -> str:
    """One setting's row of the configuration table."""
    trait = f"`{row.name}`" if row.declared.trait else "–"
    env = f"`{row.declared.env}`" if row.declared.env else "–"
    if row.declared.env and row.kind is bool:
        env += f" ({_BOOL_WORDS})"
    return (f"| `{row.name}` | {trait} | {env} | {_default(row)} | {row.declared.applies} | "
            f"{row.declared.help} |")


def docs_table(settings: type = Settings) -> str:
    """The configuration table docs/configuration.md holds between its markers."""
    head = ["| setting | trait (`%config DesignProjects.…`) | environment | default | "
            "a change applies | meaning |", "|---|---|---|---|---|---|"]
    return "\n".join([*head, *(docs_row(row) for row in rows(settings))])


def with_table(page: str, settings: type = Settings) -> str:
    """The docs page with its generated table replaced by the one the settings derive."""
    before, begin, rest = page.partition(TABLE_BEGIN)
    _, end, after = rest.partition(TABLE_END)
    if not begin or not end:
        raise ValueError("the page lacks the settings table's markers")
    return f"{before}{TABLE_BEGIN}\n{docs_table(settings)}\n{TABLE_END}{after}"
