"""The axe-core audit in a real page: axe.min.js from the labextension's devDependencies
(installed by `tasks.py`, no network at test time) run on chosen nodes with the WCAG 2.1
A and AA rules. Each node is scrolled into view first and the viewport is tall, so axe
measures contrast on it, and the body is given the viewport's height while axe runs
(JupyterLab's body is 0 px high, which makes axe find the contrast rule inapplicable to
every node: no verdict at all)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

AXE_JS = Path(__file__).resolve().parents[2] / "labextension" / "node_modules" / "axe-core" / \
    "axe.min.js"
#: the rule tags of WCAG 2.1 A and AA
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: the impacts the target counts
SEVERE = ("critical", "serious")

#: axe on the elements a selector matches (each scrolled into view and run on its own),
#: or on the whole document less them; each violation as rule, impact, node count and
#: the first node's target and summary; and how many nodes passed the contrast check
RUN = """async ({ selector, exclude, tags }) => {
  const options = { runOnly: { type: 'tag', values: tags },
                    resultTypes: ['violations', 'passes'] };
  const found = [];
  let contrastPasses = 0;
  const keep = result => {
    for (const v of result.violations) {
      found.push({ rule: v.id, impact: v.impact, nodes: v.nodes.length,
                   target: JSON.stringify(v.nodes[0].target),
                   summary: v.nodes[0].failureSummary || '' });
    }
    const passed = result.passes.find(p => p.id === 'color-contrast');
    contrastPasses += passed ? passed.nodes.length : 0;
  };
  const nodes = [...document.querySelectorAll(selector)];
  // JupyterLab's body is 0 px high (the shell is positioned absolutely): axe then finds
  // the contrast rule inapplicable everywhere. Give it the viewport's height meanwhile.
  const height = document.body.style.height;
  document.body.style.height = `${window.innerHeight}px`;
  try {
  if (exclude) {
    keep(await axe.run({ exclude: nodes.map(n => [n]) }, options));
  } else {
    for (const node of nodes) {
      node.scrollIntoView({ block: 'start' });
      await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      keep(await axe.run(node, options));
    }
  }
  } finally {
    document.body.style.height = height;
  }
  return { found, contrastPasses, nodes: nodes.length };
}"""


@dataclasses.dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    nodes: int
    target: str
    summary: str


@dataclasses.dataclass(frozen=True)
class Audit:
    violations: list[Violation]
    #: nodes whose contrast axe measured and passed (0: contrast was not checked)
    contrast_passes: int
    #: the elements audited
    nodes: int

    def severe(self) -> list[Violation]:
        return [v for v in self.violations if v.impact in SEVERE]

    def count(self, impact: str) -> tuple[int, int]:
        """(rules, nodes) failing at `impact`."""
        hits = [v for v in self.violations if v.impact == impact]
        return len({v.rule for v in hits}), sum(v.nodes for v in hits)


def load_axe(page) -> None:
    if not AXE_JS.is_file():
        pytest.fail(f"{AXE_JS} is missing: run `python3 tasks.py test` (it installs the "
                    "labextension's devDependencies, axe-core among them)")
    page.add_script_tag(path=str(AXE_JS))


def audit(page, selector: str, *, exclude: bool = False) -> Audit:
    """axe on each element `selector` matches, or (`exclude`) on the page less them."""
    answer = page.evaluate(RUN, {"selector": selector, "exclude": exclude, "tags": WCAG_TAGS})
    return Audit([Violation(**v) for v in answer["found"]], answer["contrastPasses"],
                 answer["nodes"])
