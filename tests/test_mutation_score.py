"""The mutation report's arithmetic (tests/mutation_score.py): which package a mutant
belongs to, what counts as killed, and the table written between the report's markers."""

from __future__ import annotations

from collections import Counter

import pytest

from tests import mutation_score as ms


@pytest.mark.parametrize(("mutant", "package"), [
    ("jupyter_design_projects.core.pkce.x_verifier__mutmut_3", "core"),
    ("jupyter_design_projects.transport.auth.xǁBearerAuthǁflow__mutmut_1", "transport"),
    ("jupyter_design_projects.projects.client.xǁProjectsClientǁread__mutmut_9",
     "projects/client.py"),
    ("jupyter_design_projects.design.permissions.x_decide__mutmut_2", "design/permissions.py"),
    ("jupyter_design_projects.projects.api.x_exchange__mutmut_1", None),
    ("jupyter_design_projects.design.client.x_call__mutmut_1", None),
    ("other.core.pkce.x__mutmut_1", None),
    ("jupyter_design_projects", None),
])
def test_each_mutant_is_scored_under_its_package_or_not_at_all(mutant, package):
    assert ms.package_of(mutant) == package


def test_results_lines_are_tallied_per_package():
    lines = [
        "    jupyter_design_projects.core.pkce.x_a__mutmut_1: killed",
        "    jupyter_design_projects.core.pkce.x_a__mutmut_2: survived",
        "    jupyter_design_projects.core.scopes.x_b__mutmut_1: no tests",
        "    jupyter_design_projects.transport.http.x_send__mutmut_1: timeout",
        "    jupyter_design_projects.projects.api.x_c__mutmut_1: survived",
        "not a result line",
    ]
    tallies = ms.tally(lines)
    assert tallies["core"] == Counter({"killed": 1, "survived": 1, "no tests": 1})
    assert tallies["transport"] == Counter({"timeout": 1})
    assert tallies["projects/client.py"] == Counter()


@pytest.mark.parametrize(("verdicts", "expected"), [
    (Counter({"killed": 9, "survived": 1}), 0.9),
    (Counter({"killed": 8, "timeout": 1, "no tests": 1}), 0.9),
    (Counter({"killed": 1, "caught by type check": 1, "not checked": 5, "skipped": 2}), 1.0),
    (Counter({"not checked": 3}), None),
    (Counter(), None),
])
def test_the_score_counts_survivors_and_untested_mutants_against(verdicts, expected):
    assert ms.score(verdicts) == expected


def test_the_table_shows_each_package_its_score_and_target():
    tallies = {name: Counter() for name in ms.TARGETS}
    tallies["core"] = Counter({"killed": 9, "survived": 1, "not checked": 2})
    text = ms.table(tallies)
    assert "| core | 12 | 9 | 1 | 0 | 2 | 90.0% | 90% |" in text
    assert "| transport | 0 | 0 | 0 | 0 | 0 | — | 80% |" in text


def test_the_table_replaces_only_what_is_between_the_markers():
    text = f"# Title\n\nbefore\n{ms.START}\nold table\n{ms.END}\nafter\n"
    out = ms.replace_between_markers(text, "new table")
    assert out == f"# Title\n\nbefore\n{ms.START}\nnew table\n{ms.END}\nafter\n"
    with pytest.raises(ValueError):
        ms.replace_between_markers("no markers", "x")


@pytest.mark.parametrize(("mutant", "expected"), [
    ("jupyter_design_projects.transport.auth.xǁBearerAuthǁasync_auth_flow__mutmut_3",
     ("transport/auth.py", "BearerAuth.async_auth_flow", 3)),
    ("jupyter_design_projects.core.pkce.x_verifier__mutmut_12", ("core/pkce.py", "verifier", 12)),
    ("jupyter_design_projects.core.design_operations.x__string__mutmut_1",
     ("core/design_operations.py", "_string", 1)),
])
def test_a_mutant_name_gives_its_module_and_function(mutant, expected):
    assert ms.function_of(mutant) == expected


def test_survivors_are_listed_by_module_and_function():
    lines = [
        "    jupyter_design_projects.core.pkce.x_verifier__mutmut_1: survived",
        "    jupyter_design_projects.core.pkce.x_verifier__mutmut_4: no tests",
        "    jupyter_design_projects.core.pkce.x_verifier__mutmut_5: killed",
        "    jupyter_design_projects.projects.api.x_exchange__mutmut_1: survived",
    ]
    found = ms.survivors(lines)
    assert found == {"core/pkce.py": {"verifier": [1, 4]}}
    assert ms.survivor_list(found) == "- `core/pkce.py`: `verifier` (2)"
    assert ms.survivor_list({}) == "(none)"


def test_runs_are_merged_a_kill_over_a_survivor_over_no_verdict():
    core = "jupyter_design_projects.core.pkce.x_a__mutmut_"
    first = [f"    {core}1: survived", f"    {core}2: not checked", f"    {core}3: killed",
             f"    {core}4: not checked", "not a result line"]
    second = [f"    {core}1: timeout", f"    {core}2: survived", f"    {core}3: survived",
              f"    {core}4: skipped"]
    assert sorted(ms.merged([first, second])) == [
        f"{core}1: timeout", f"{core}2: survived", f"{core}3: killed", f"{core}4: not checked"]
    assert ms.tally(ms.merged([first, second]))["core"] == Counter(
        {"timeout": 1, "survived": 1, "killed": 1, "not checked": 1})
