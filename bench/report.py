"""The harness's one table: a `Row` per figure (value, baseline, ratio, target, whether it
is met, the command that reruns it), printed as Markdown and written into bench/README.md
between two marker lines, with the machine it ran on."""

from __future__ import annotations

import dataclasses
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

BEGIN = "<!-- bench:table:begin -->"
END = "<!-- bench:table:end -->"
HEADER = ("| figure | value | baseline (same run) | ratio | target | met | rerun |\n"
          "|---|---|---|---|---|---|---|")


@dataclasses.dataclass(frozen=True)
class Row:
    figure: str
    value: str
    baseline: str = "–"
    ratio: str = "–"
    target: str = "–"
    #: True, False, or None when the figure has no target
    met: bool | None = None
    #: the figure's name for `python3 tasks.py bench NAME`
    command: str = ""

    def line(self) -> str:
        met = {True: "yes", False: "**no**", None: "–"}[self.met]
        rerun = f"`python3 tasks.py bench {self.command}`" if self.command else ""
        cells = (self.figure, self.value, self.baseline, self.ratio, self.target, met, rerun)
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def ms(value: float) -> str:
    return f"{value:.3f} ms" if value < 10 else f"{value:.1f} ms"


def mib(n_bytes: float) -> str:
    return f"{n_bytes / 1024 / 1024:.1f} MiB"


def ratio(value: float, baseline: float) -> str:
    return f"{value / baseline:.2f}×" if baseline else "–"


def machine() -> str:
    """One line: CPU model and count, memory, OS, Python, and the date."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{mem_kib / 1024 / 1024:.1f} GiB RAM"
    except (OSError, ValueError, IndexError):
        memory = "RAM unknown"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu}, {os.cpu_count()} CPUs, {memory}, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}, load average "
            f"{load:.2f} at start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def git_head(root: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def table(rows: list[Row], earlier: tuple[str, ...] | list[str] = ()) -> str:
    return "\n".join([HEADER, *earlier, *(row.line() for row in rows)])


def block(rows: list[Row], machine_line: str, head: str, argv: list[str],
          earlier: list[str]) -> str:
    command = " ".join(["python3 tasks.py bench", *argv]).strip()
    note = (f"\n\nRows of figures not named in that command are kept from an earlier run "
            f"({len(earlier)} rows).") if earlier else ""
    return (f"{BEGIN}\nRun `{command}` at commit {head} on: {machine_line}.{note}\n\n"
            f"{table(rows, earlier)}\n{END}")


def kept_lines(readme: Path, rerun: list[str]) -> list[str]:
    """The table lines of figures not rerun now (a run of one figure keeps the others)."""
    if not readme.exists():
        return []
    found = PATTERN.search(readme.read_text())
    if found is None:
        return []
    lines = [line for line in found.group(0).splitlines() if line.startswith("| ")]
    return [line for line in lines[1:]
            if not any(f"`python3 tasks.py bench {name}`" in line for name in rerun)]


PATTERN = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)


def rewrite(readme: Path, text: str) -> None:
    """Replace the block between the markers (or append one) and write the file."""
    old = readme.read_text() if readme.exists() else "# Benchmarks\n"
    pattern = PATTERN
    new = pattern.sub(lambda _m: text, old) if pattern.search(old) else (
        old.rstrip("\n") + "\n\n" + text + "\n")
    readme.write_text(new)


def say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
