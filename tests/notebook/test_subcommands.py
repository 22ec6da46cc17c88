"""The subcommand table is the one declaration of the magic grammar: the parser, --help,
the usage listing, the magics' help and the README's table all follow it, and its
limits are the core constants."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import (
    INLINE_MAX_BYTES,
    SEARCH_N_DEFAULT,
    SEARCH_N_MAX,
    SEARCH_N_MIN,
    UPLOAD_MAX_BYTES,
)
from jupyter_design_projects.notebook.grammar import subcommands
from jupyter_design_projects.notebook.grammar.parse import parse_design, parse_project
from jupyter_design_projects.projects.journal import HISTORY_DEFAULT

README = Path(__file__).resolve().parents[2] / "README.md"
TABLE = re.compile(r"<!-- magics table: begin -->\n(.*?)\n<!-- magics table: end -->", re.S)
PARSE = {"project": parse_project, "design": parse_design}
DECLARED = [*subcommands.PROJECT, *subcommands.DESIGN]


def test_the_readme_table_of_magics_is_the_declared_one():
    found = TABLE.search(README.read_text())
    assert found, "README.md lost its magics table markers"
    assert found.group(1) == subcommands.readme_table(), (
        "README.md's table of magics differs from notebook/grammar/subcommands.py; paste the "
        "output of subcommands.readme_table() between the markers")


@pytest.mark.parametrize("tool", ["project", "design"])
def test_the_bare_magic_prints_the_declared_usage(tool):
    listing = PARSE[tool]("", None, {}).help
    assert listing == subcommands.usage(tool)
    for usage, summary in subcommands.rows(tool):
        assert any(line.startswith(usage) and line.endswith(summary)
                   for line in listing.splitlines()), usage


@pytest.mark.parametrize("sub", DECLARED, ids=lambda s: f"{s.tool} {s.name}")
def test_each_subcommand_help_is_its_declared_description(sub):
    command = PARSE[sub.tool](f"{sub.name} --help", None, {})
    assert command.action == sub.name
    assert command.help.startswith(f"usage: %{sub.tool} {sub.name}")
    # argparse wraps the description (also after a hyphen): compare without the wrapping
    assert re.sub(r"\s", "", sub.description) in re.sub(r"\s", "", command.help)


@pytest.mark.parametrize("sub", [*DECLARED, subcommands.OPERATION],
                         ids=lambda s: f"{s.tool} {s.name}")
def test_each_synopsis_names_every_declared_argument(sub):
    for arg in sub.args:
        if arg.flags[0].startswith("-"):
            assert arg.flags[0] in sub.synopsis, arg.flags
        else:
            assert str(arg.options.get("metavar", arg.dest.upper())) in sub.synopsis, arg.flags


def test_the_operation_form_runs_any_other_word_and_has_its_help():
    command = parse_design("render_preview --help", None, {})
    assert command.action == "call"
    assert "Run the Design operation 'render_preview'" in " ".join(command.help.split())


@pytest.mark.parametrize("tool", ["project", "design"])
def test_the_magic_help_ends_with_the_declared_usage(shell, tool):
    """What `%project?` shows (IPython's `getdoc`, as a frontend's inspector reads it)."""
    from IPython.core.oinspect import getdoc

    magic = shell.find_line_magic(tool)
    assert getdoc(magic).endswith(subcommands.usage(tool))
    assert getdoc(magic).startswith(magic.__doc__.strip().splitlines()[0])
    assert subcommands.usage(tool).splitlines()[-2] in shell.object_inspect_text(f"%{tool}")


def test_the_search_count_is_the_core_range_and_default():
    assert parse_project("search x", None, {}).args["n"] == SEARCH_N_DEFAULT
    help_text = parse_project("search --help", None, {}).help
    assert f"{SEARCH_N_MIN}-{SEARCH_N_MAX}, default {SEARCH_N_DEFAULT}" in help_text
    assert f"{SEARCH_N_MIN}-{SEARCH_N_MAX}, default {SEARCH_N_DEFAULT}" in \
        subcommands.usage("project")


def test_the_history_count_defaults_to_the_journal_default():
    assert parse_project("history", None, {}).args["limit"] == HISTORY_DEFAULT
    assert f"(default {HISTORY_DEFAULT})" in parse_project("history --help", None, {}).help


def test_the_read_and_write_sizes_are_the_core_limits():
    read = " ".join(parse_project("read --help", None, {}).help.split())
    write = " ".join(parse_project("write --help", None, {}).help.split())
    assert f"{INLINE_MAX_BYTES:,} bytes" in read
    assert f"at most {UPLOAD_MAX_BYTES // 2**20} MiB" in write


def test_a_cell_body_is_refused_where_the_declaration_takes_none():
    from jupyter_design_projects.errors import BadCommand

    with pytest.raises(BadCommand) as caught:
        parse_project("read x.md", "body", {})
    assert caught.value.command == "project read"
    assert parse_project("write x.md", "body", {}).args["content"] == "body"


def test_the_path_arguments_are_the_declared_ones():
    assert {(s.name, n) for s in subcommands.PROJECT for n in s.path_names} == {
        ("read", "path"), ("write", "path"), ("write", "local_path"), ("delete", "path"),
        ("sync", "directory"), ("sync", "force")}


def test_sync_force_keeps_its_paths_apart():
    args = parse_project("sync notes --force 'a b.md' c.md --dry-run", None, {}).args
    assert (args["directory"], args["force"], args["dry_run"]) == ("notes", ["a b.md", "c.md"],
                                                                  True)
    assert parse_project("sync notes", None, {}).args["force"] is None


def test_every_subcommand_is_one_row_of_the_registry():
    """A subcommand plugs in as its declaration in `subcommands` plus its row of the
    registry (grammar, handler, view); `--help` is answered before any row runs, any
    other word after %design is `call` (the OPERATION row), and the deck's verbs are one
    row each."""
    from jupyter_design_projects.notebook.commands.registry import BY_KEY, ROWS

    assert len(BY_KEY) == len(ROWS)  # no two rows for one line
    for tool in ("project", "design"):
        rows = [r for r in ROWS if r.grammar.tool == tool]
        named = {r.grammar.name for r in rows if r.grammar is not subcommands.OPERATION}
        assert named == set(subcommands.SUBCOMMANDS[tool]), tool
        assert all(r.grammar is subcommands.SUBCOMMANDS[tool].get(r.grammar.name,
                                                                  subcommands.OPERATION)
                   for r in rows)
    verbs = {r.verb for r in ROWS if r.grammar.name == "deck"}
    assert verbs == set(subcommands.SUBCOMMANDS["design"]["deck"].args[0].options["choices"])
    assert [r.action for r in ROWS if r.grammar is subcommands.OPERATION] == ["call"]
