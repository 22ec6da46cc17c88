"""What a Projects change card shows of its content: whole lines cut to the card's budget
with the cut said, a replace's unified diff, a delete's first lines."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core import change_preview as preview
from jupyter_design_projects.core.plans import CARD_LIMIT


@pytest.mark.parametrize(("text", "limit", "shown", "total", "cut"), [
    ("", 10, 0, 0, False),
    ("abc\n", 4, 1, 1, False),
    ("abc\ndef\n", 8, 2, 2, False),
    ("abc\ndef\n", 7, 1, 2, True),  # one character short: the second line is left out
    ("abcdef\n", 3, 0, 1, True),  # one long line: a part of it, still said as cut
])
def test_an_excerpt_keeps_whole_lines_within_its_limit(text, limit, shown, total, cut) -> None:
    part = preview.excerpt(text, limit)
    assert (part.shown, part.total, part.cut) == (shown, total, cut)
    assert len(part.text) <= limit and text.startswith(part.text)
    assert bool(part.note) == cut


def test_a_diff_names_both_sides_and_each_changed_line() -> None:
    diff = preview.unified_diff("a\nb\n", "a\nc\n", "kb/x.md")
    assert diff.splitlines() == ["--- a/kb/x.md", "+++ b/kb/x.md", "@@ -1,2 +1,2 @@",
                                 " a", "-b", "+c"]


def test_a_missing_final_newline_is_said() -> None:
    assert "\\ No newline at end of file" in preview.unified_diff("a", "b", "x.md")


def test_a_long_diff_is_cut_at_the_card_budget_and_says_so() -> None:
    diff = preview.unified_diff("".join(f"{i}\n" for i in range(2000)),
                                "".join(f"{i}!\n" for i in range(2000)), "x.md")
    shown = preview.diff_shown(diff)
    assert shown.cut and len(shown.text) <= CARD_LIMIT
    assert shown.note == f"cut: {shown.shown:,} of {shown.total:,} lines shown"
    assert not preview.whole_diff(diff).cut  # the collapsible section holds all of it


@pytest.mark.parametrize(("lines", "cut"), [(preview.LOST_LINES, False),
                                            (preview.LOST_LINES + 1, True)])
def test_a_delete_shows_its_first_lines(lines, cut) -> None:
    lost = preview.lost_lines("".join(f"line {i}\n" for i in range(lines)))
    assert lost.shown == preview.LOST_LINES and lost.cut is cut
