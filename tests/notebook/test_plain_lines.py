"""Plain magic lines read from the subcommand table give exactly what argparse gives,
and every other line is left to argparse."""

from __future__ import annotations

import itertools
import random

import pytest

from jupyter_design_projects.errors import BadCommand
from jupyter_design_projects.notebook.grammar import subcommands
from jupyter_design_projects.notebook.grammar.parse import _parser
from jupyter_design_projects.notebook.grammar.plain_lines import PlainLines


def _plain_and_argparse_lines():
    pool = ["x", "12", "0", "-5", "--", "-", "", "-n", "5", "-n5", "--limit", "3", "--from",
            "f.md", "--from=f.md", "--encoding", "latin-1", "--full", "--drop", "--fu",
            "open", "show", "nope", "a b"]
    lines = [list(w) for k in range(3) for w in itertools.product(pool, repeat=k)]
    rng = random.Random(15)
    lines += [rng.choices(pool, k=rng.randint(3, 5)) for _ in range(400)]
    return lines


def test_a_plain_line_reads_as_argparse_reads_it():
    """The table-driven reading of plain lines gives exactly argparse's result, and
    leaves every line argparse would refuse (or read with a quirk) to argparse."""
    lines = _plain_and_argparse_lines()
    read_plain = 0
    for tool, table in subcommands.SUBCOMMANDS.items():
        for name, sub in table.items():
            plain, parser = PlainLines.of(sub), _parser(sub)
            for words in lines:
                read = plain.read(words)
                try:
                    expected = vars(parser.parse_args(words))
                except BadCommand:
                    assert read is None, (tool, name, words)
                    continue
                if read is not None:
                    read_plain += 1
                    assert read == expected, (tool, name, words)
                    assert [type(v) for v in read.values()] == \
                        [type(v) for v in expected.values()], (tool, name, words)
    assert read_plain > 200  # the comparison is not empty: many lines were plain


@pytest.mark.parametrize(
    ("tool", "name", "words", "args"),
    [
        ("project", "search", ["retention", "-n", "5"], {"query": ["retention"], "n": 5}),
        ("project", "search", ["a", "b"], {"query": ["a", "b"], "n": 5}),
        ("project", "read", ["a.md"], {"path": "a.md"}),
        ("project", "write", ["a.md", "--from", "b.md"],
         {"path": "a.md", "local_path": "b.md", "encoding": None, "yes": False}),
        ("project", "delete", ["a.md", "--yes"], {"path": "a.md", "yes": True}),
        ("project", "history", ["--limit", "3"], {"limit": 3}),
        ("project", "restore", ["12"], {"entry_id": 12, "yes": False}),
        ("design", "list", ["--full"], {"full": True}),
        ("design", "login", [], {"code": None, "paste": False}),
    ],
)
def test_the_common_lines_are_read_without_argparse(tool, name, words, args):
    sub = subcommands.SUBCOMMANDS[tool][name]
    assert PlainLines.of(sub).read(words) == args
