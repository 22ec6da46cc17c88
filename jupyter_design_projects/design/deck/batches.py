"""How a deck's missing files are cut into plans: each plan is one `finalize_plan` card,
and a card may list at most MAX_PLAN_PATHS writes and hold at most CARD_LIMIT characters
(measured on the very card the Design client would show, plus room for the project's name
beside its id). A slide and its assets stay in one plan when they fit; paths are at most
80 characters, which staging already enforced."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...core.design_operations import DesignOperation, plan_operation
from ...core.permissions import card_text, explain, facts_of
from ...core.plans import CARD_LIMIT, MAX_PLAN_PATHS
from ...errors import PermissionRefused

Table = Mapping[str, DesignOperation]


def planner(table: Table) -> str:
    """The name of `table`'s plan operation, which every batch's card asks; refused when
    the table has none (no write could then be planned)."""
    name = plan_operation(table)
    if name is None:
        raise PermissionRefused("write_files", "no_plan_operation", explain("no_plan_operation"))
    return name


def plan_arguments(project_id: str, paths: Sequence[str]) -> dict:
    """The finalize_plan arguments of one batch (paths sorted, as the card lists them)."""
    return {"project_id": project_id, "writes": sorted(paths)}


def card_length(project_id: str, paths: Sequence[str], project_name: str | None = None, *,
                table: Table) -> int:
    """The characters of the plan card for these writes, with room for `name (id)`, as
    `table`'s plan operation asks it."""
    facts = facts_of(planner(table), False, False, plan_arguments(project_id, paths), table)
    room = len(project_name) + 3 if project_name else 0
    return len(card_text("plan", facts)) + room


def fits(project_id: str, paths: Sequence[str], project_name: str | None = None, *,
         table: Table) -> bool:
    return (len(paths) <= MAX_PLAN_PATHS
            and card_length(project_id, paths, project_name, table=table) <= CARD_LIMIT)


def plan_batches(project_id: str, units: Sequence[Sequence[str]],
                 project_name: str | None = None, *, table: Table) -> list[tuple[str, ...]]:
    """Pack the units (a slide's files) into as few plans as fit, in order; a unit too
    big for one plan on its own is cut path by path. Packed by count first: when every
    plan so packed fits its card (the usual case), that is the packing the card-by-card
    check gives too (a card only grows as paths are added), with one card measured per
    plan instead of one per unit."""
    by_count = _pack(units, lambda paths: len(paths) <= MAX_PLAN_PATHS)
    if not all(fits(project_id, batch, project_name, table=table) for batch in by_count):
        by_count = _pack(units, lambda paths: fits(project_id, paths, project_name,
                                                   table=table))
    return [tuple(sorted(batch)) for batch in by_count]


def _pack(units: Sequence[Sequence[str]],
          fit: Callable[[list[str]], bool]) -> list[list[str]]:
    batches: list[list[str]] = []
    current: list[str] = []
    for unit in units:
        if fit(current + list(unit)):
            current += list(unit)
            continue
        if current:
            batches.append(current)
            current = []
        if fit(list(unit)):
            current = list(unit)
            continue
        for path in unit:
            if not fit(current + [path]):
                batches.append(current)
                current = []
            current.append(path)
    if current:
        batches.append(current)
    return batches
