"""The knowledge-budget meter: how much of the Project's knowledge budget is used, as a
plain HTML bar with the search threshold marked (pure: numbers in, HTML out)."""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping
from typing import Any

from .theme import colour

#: fill levels (fraction of the budget) at which the meter turns amber, then red
WARN_AT = 0.8
FULL_AT = 0.95


@dataclasses.dataclass(frozen=True)
class Budget:
    knowledge_size: int
    max_knowledge_size: int
    search_threshold: int | None = None
    uses_search: bool | None = None

    @property
    def fraction(self) -> float:
        if self.max_knowledge_size <= 0:
            return 1.0
        return min(1.0, max(0.0, self.knowledge_size / self.max_knowledge_size))

    @property
    def level(self) -> str:
        """ok | warn | full."""
        if self.fraction >= FULL_AT:
            return "full"
        return "warn" if self.fraction >= WARN_AT else "ok"

    @property
    def remaining(self) -> int:
        return max(0, self.max_knowledge_size - self.knowledge_size)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def budget_of(stats: Any) -> Budget | None:
    """A Budget from a knowledge-stats mapping, or None when it lacks the two sizes."""
    if not isinstance(stats, Mapping):
        return None
    size, limit = _int(stats.get("knowledge_size")), _int(stats.get("max_knowledge_size"))
    if size is None or limit is None:
        return None
    uses = stats.get("use_project_knowledge_search")
    return Budget(size, limit, _int(stats.get("project_knowledge_search_threshold")),
                  uses if isinstance(uses, bool) else None)


#: how Claude uses the knowledge, by whether it is over the search threshold: under it,
#: Claude reads it whole and searches nothing (`%project search` still answers)
SEARCH_USE = {True: "over the search threshold: Claude searches it",
              False: "under the search threshold: Claude reads all of it"}


def meter_html(budget: Budget) -> str:
    percent = budget.fraction * 100
    marker = ""
    if budget.search_threshold and budget.max_knowledge_size > 0:
        at = min(100.0, budget.search_threshold / budget.max_knowledge_size * 100)
        marker = (f'<div title="search threshold" style="position:absolute;left:{at:.2f}%;'
                  'top:0;bottom:0;border-left:2px dashed '
                  f'{colour("marker")}"></div>')
    search = ""
    if budget.uses_search is not None:
        search = " · " + SEARCH_USE[budget.uses_search]
    caption = html.escape(
        f"{budget.knowledge_size:,} of {budget.max_knowledge_size:,} tokens "
        f"({percent:.1f}%), {budget.remaining:,} left{search}"
    )
    return (
        '<div class="jdp-budget" style="margin:4px 0">'
        '<div style="position:relative;height:10px;width:100%;max-width:480px;'
        f'background:{colour("track")};border-radius:5px;overflow:hidden">'
        f'<div style="height:100%;width:{percent:.2f}%;background:{colour(budget.level)}">'
        f"</div>{marker}</div>"
        f'<div style="font-size:90%">Knowledge budget: {caption}</div></div>'
    )


def meter_text(budget: Budget) -> str:
    filled = round(budget.fraction * 20)
    return (f"[{'#' * filled}{'.' * (20 - filled)}] {budget.knowledge_size:,} / "
            f"{budget.max_knowledge_size:,} tokens")
