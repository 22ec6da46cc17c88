"""`python3 tasks.py bench [FIGURE ...] [--quick] [--readme PATH]`: run the figures (all of
them by default), print one table of each against its baseline measured in the same run,
and rewrite the table in bench/README.md with the machine it ran on."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from . import (
    figures_client,
    figures_deck,
    figures_deck_compare,
    figures_deck_push,
    figures_mcp,
    figures_memory,
    figures_service,
    figures_startup,
    figures_sync,
    figures_sync_apply,
    figures_transfer,
)
from .context import ROOT, Context
from .report import Row, block, git_head, kept_lines, machine, rewrite, say, table

Figure = Callable[[Context], list[Row]]

FIGURES: dict[str, Figure] = {
    **figures_client.FIGURES,
    **figures_mcp.FIGURES,
    **figures_startup.FIGURES,
    **figures_transfer.FIGURES,
    **figures_service.FIGURES,
    **figures_sync.FIGURES,
    **figures_sync_apply.FIGURES,
    **figures_deck.FIGURES,
    **figures_deck_compare.FIGURES,
    **figures_deck_push.FIGURES,
    **figures_memory.FIGURES,
}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 tasks.py bench", description=__doc__)
    parser.add_argument("figures", nargs="*", metavar="FIGURE",
                        help=f"any of: {', '.join(FIGURES)} (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="few repetitions and small sizes: a smoke test, not a measurement")
    parser.add_argument("--readme", type=Path, default=ROOT / "bench" / "README.md",
                        help="the README whose table is rewritten (default: bench/README.md)")
    parser.add_argument("--no-readme", action="store_true", help="print only")
    args = parser.parse_args(argv)
    unknown = [name for name in args.figures if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figure {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    return args


def contain(temp: Path) -> None:
    """Every file the run writes (services, sessions, kernels, IPython, Jupyter) goes
    under its temp dir, which is removed at the end."""
    places = {"TMPDIR": "tmp", "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config",
              "XDG_CACHE_HOME": "cache", "XDG_RUNTIME_DIR": "runtime", "IPYTHONDIR": "ipython",
              "JUPYTER_CONFIG_DIR": "jupyter-config", "JUPYTER_DATA_DIR": "jupyter-data",
              "JUPYTER_RUNTIME_DIR": "jupyter-runtime", "MPLCONFIGDIR": "mpl"}
    for variable, name in places.items():
        (temp / name).mkdir(mode=0o700)
        os.environ[variable] = str(temp / name)
    tempfile.tempdir = None


def main(argv: list[str]) -> int:
    args = parse(argv)
    names = args.figures or list(FIGURES)
    where = machine()
    temp = Path(tempfile.mkdtemp(prefix="jdp-bench-"))
    contain(temp)
    rows: list[Row] = []
    failed = False
    try:
        for name in names:
            say(f"{name} …")
            try:
                rows += FIGURES[name](Context(quick=args.quick, temp=temp))
            except Exception as exc:  # one broken figure must not hide the others
                failed = True
                traceback.print_exc()
                rows.append(Row(name, f"failed: {type(exc).__name__}", command=name))
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    print(f"\nmachine: {where}\n")
    print(table(rows))
    if not args.no_readme:
        earlier = kept_lines(args.readme, names) if args.figures else []
        rewrite(args.readme, block(rows, where, git_head(ROOT), argv, earlier))
        say(f"table written to {args.readme}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
