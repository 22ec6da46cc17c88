"""The mutation score per package from mutmut's results: `python3 tasks.py mutation` runs it
after `mutmut run` and writes the table into docs/testing-mutation.md (stdlib only)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "testing-mutation.md"
START, END = "<!-- mutation-score:start -->", "<!-- mutation-score:end -->"
#: the packages the report scores, with the share of mutants each must kill
TARGETS: dict[str, float] = {
    "core": 0.90,
    "transport": 0.80,
    "projects/client.py": 0.80,
    "projects/doc_changes.py": 0.80,
    "design/permissions.py": 0.80,
}
#: mutmut's verdicts that count as caught
KILLED = frozenset({"killed", "timeout", "caught by type check"})
#: verdicts that are no verdict yet: left out of the score, reported beside it
UNTESTED = frozenset({"not checked", "skipped"})


def package_of(mutant: str) -> str | None:
    """The scored package of a mutant name (`jupyter_design_projects.core.pkce.x_f__mutmut_3`
    -> "core"), None for one outside the targets."""
    parts = mutant.split(".")
    if len(parts) < 3 or parts[0] != "jupyter_design_projects":
        return None
    if parts[1] in ("core", "transport"):
        return parts[1]
    module = f"{parts[1]}/{parts[2]}.py"
    return module if module in TARGETS else None


def tally(lines: list[str]) -> dict[str, Counter[str]]:
    """Verdicts per package from `mutmut results --all true` lines (`name: verdict`)."""
    out: dict[str, Counter[str]] = {name: Counter() for name in TARGETS}
    for line in lines:
        name, sep, verdict = line.strip().partition(": ")
        package = package_of(name) if sep else None
        if package is not None:
            out[package][verdict.strip()] += 1
    return out


def score(verdicts: Counter[str]) -> float | None:
    """Killed over every mutant with a verdict (a survivor or a mutant no test runs counts
    against); None when none has one yet."""
    judged = sum(n for verdict, n in verdicts.items() if verdict not in UNTESTED)
    if judged == 0:
        return None
    return sum(verdicts[v] for v in KILLED) / judged


def table(tallies: dict[str, Counter[str]]) -> str:
    rows = ["| package | mutants | killed | survived | no test runs it | not run yet | score "
            "| target |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, verdicts in tallies.items():
        value = score(verdicts)
        shown = "—" if value is None else f"{value:.1%}"
        rows.append(
            f"| {name} | {sum(verdicts.values())} | {sum(verdicts[v] for v in KILLED)} "
            f"| {verdicts['survived']} | {verdicts['no tests']} "
            f"| {sum(verdicts[v] for v in UNTESTED)} | {shown} | {TARGETS[name]:.0%} |")
    return "\n".join(rows)


def function_of(mutant: str) -> tuple[str, str, int]:
    """(module path, function, mutant number) of a mutant name:
    `jupyter_design_projects.transport.auth.xǁBearerAuthǁflow__mutmut_3` ->
    ("transport/auth.py", "BearerAuth.flow", 3)."""
    qualified, _, number = mutant.rpartition("__mutmut_")
    module, _, mangled = qualified.rpartition(".")
    name = mangled.removeprefix("x").strip("ǁ").replace("ǁ", ".").removeprefix("_")
    path = "/".join(module.split(".")[1:]) + ".py"
    return path, name, int(number)


def survivors(lines: list[str]) -> dict[str, dict[str, list[int]]]:
    """The mutants not killed (survived, or run by no test), by module and function."""
    out: dict[str, dict[str, list[int]]] = {}
    for line in lines:
        mutant, sep, verdict = line.strip().partition(": ")
        if not sep or verdict.strip() not in ("survived", "no tests") \
                or package_of(mutant) is None:
            continue
        path, name, number = function_of(mutant)
        out.setdefault(path, {}).setdefault(name, []).append(number)
    return out


def survivor_list(found: dict[str, dict[str, list[int]]]) -> str:
    lines = []
    for path in sorted(found):
        lines.append(f"- `{path}`: " + "; ".join(
            f"`{name}` ({len(numbers)})" for name, numbers in sorted(found[path].items())))
    return "\n".join(lines) or "(none)"


def merged(runs: list[list[str]]) -> list[str]:
    """One `name: verdict` line per mutant from the results of several runs (each run's
    `mutmut results --all true` lines, e.g. one run per package in its own checkout): a
    verdict that counts as caught wins, then any other verdict, then no verdict yet."""
    def rank(verdict: str) -> int:
        return 2 if verdict in KILLED else 0 if verdict in UNTESTED else 1

    best: dict[str, str] = {}
    for lines in runs:
        for line in lines:
            name, sep, verdict = line.strip().partition(": ")
            verdict = verdict.strip()
            if sep and (name not in best or rank(verdict) > rank(best[name])):
                best[name] = verdict
    return [f"{name}: {verdict}" for name, verdict in best.items()]


def replace_between_markers(text: str, body: str) -> str:
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"{REPORT.name} has no {START} ... {END} block")
    return f"{head}{START}\n{body}\n{END}{tail}"


def main(saved: list[str]) -> None:
    """The table from this checkout's `mutants/` (mutmut results), or merged from the saved
    results of several runs (`mutation_score.py RESULTS_FILE ...`)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    if saved:
        lines = merged([Path(name).read_text().splitlines() for name in saved])
        measured = f"Merged from {len(saved)} runs' results, written on commit `{commit}`."
    else:
        mutmut = Path(sys.executable).with_name("mutmut")
        lines = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.splitlines()
        measured = f"Measured on commit `{commit}`."
    body = (f"{measured}\n\n{table(tally(lines))}\n\n"
            "Mutants not killed, by function (how many; `mutmut results` names each, "
            "`mutmut show NAME` shows its diff):\n\n" + survivor_list(survivors(lines)))
    print(body)
    REPORT.write_text(replace_between_markers(REPORT.read_text(), body))
    print(f"[mutation] wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
