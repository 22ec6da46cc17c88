"""The magic lines: shell quoting, `$name` variables, subcommands, --help, bad lines."""

from __future__ import annotations

import pathlib

import pytest

from jupyter_design_projects.errors import BadCommand
from jupyter_design_projects.notebook.grammar.parse import parse_design, parse_project

NS = {
    "q": "retention policy",
    "pid": "p-123",
    "args": {"project_id": "p-9", "depth": 2},
    "files": [{"path": "a.html", "data": "<p>"}],
    "where": pathlib.Path("notes.md"),
    "k": 7,
}


@pytest.mark.parametrize(
    ("line", "cell", "action", "args"),
    [
        ("info", None, "info", {}),
        ("read claude/notes.md", None, "read", {"path": "claude/notes.md"}),
        ("read 'with space.md'", None, "read", {"path": "with space.md"}),
        ('search "retention"', None, "search", {"query": "retention", "n": 5}),
        ("search retention policy -n 3", None, "search", {"query": "retention policy", "n": 3}),
        ("search $q", None, "search", {"query": "retention policy", "n": 5}),
        ("search '$q'", None, "search", {"query": "$q", "n": 5}),
        (r"search \$q", None, "search", {"query": "$q", "n": 5}),
        ("search about-$pid", None, "search", {"query": "about-p-123", "n": 5}),
        ("search x -n 15", None, "search", {"query": "x", "n": 15}),
        ("write notes.md --from local.md", None, "write",
         {"path": "notes.md", "local_path": "local.md", "encoding": None, "yes": False}),
        ("write notes.md --from $where", None, "write",
         {"path": "notes.md", "local_path": "notes.md", "encoding": None, "yes": False}),
        # spec §15, a choice: other text encodings are read only when named
        ("write notes.md --from local.md --encoding latin-1", None, "write",
         {"path": "notes.md", "local_path": "local.md", "encoding": "latin-1",
          "yes": False}),
        ("write notes.md", "# Title\n", "write",
         {"path": "notes.md", "local_path": None, "encoding": None, "yes": False,
          "content": "# Title\n"}),
        ("write notes.md --yes", "# Title\n", "write",
         {"path": "notes.md", "local_path": None, "encoding": None, "yes": True,
          "content": "# Title\n"}),
        ("delete claude/old.md", None, "delete", {"path": "claude/old.md", "yes": False}),
        ("delete claude/old.md --yes", None, "delete", {"path": "claude/old.md", "yes": True}),
        ("history", None, "history", {"limit": 50}),
        ("history -n 5", None, "history", {"limit": 5}),
        ("history -n 1", None, "history", {"limit": 1}),
        ("restore 12", None, "restore", {"entry_id": 12, "yes": False}),
        ("restore $k", None, "restore", {"entry_id": 7, "yes": False}),
        ("restore 12 --yes", None, "restore", {"entry_id": 12, "yes": True}),
        ("search x -n $k", None, "search", {"query": "x", "n": 7}),
    ],
)
def test_project_lines_parse_into_commands(line, cell, action, args):
    command = parse_project(line, cell, NS)
    assert (command.tool, command.action, command.args, command.help) == (
        "project", action, args, None)


@pytest.mark.parametrize(
    ("line", "cell", "command"),
    [
        ("frobnicate", None, "project"),
        ("read", None, "project read"),
        ("read a b", None, "project read"),
        ("search x -n three", None, "project search"),
        ("write notes.md", None, "project write"),
        ("write notes.md --from x.md", "body", "project write"),
        ("info", "body", "project info"),
        ("restore twelve", None, "project restore"),
        ("history -n 0", None, "project history"),
        ("history -n x", None, "project history"),
        ("read 'unclosed", None, "project"),
        ("search $missing", None, "project"),
        ("read $args", None, "project read"),
        ("", "body", "project"),
    ],
)
def test_bad_project_lines_raise_bad_command(line, cell, command):
    with pytest.raises(BadCommand) as caught:
        parse_project(line, cell, NS)
    assert caught.value.command == command


@pytest.mark.parametrize(
    ("line", "cell", "operation", "arguments"),
    [
        ("list_projects", None, "list_projects", {}),
        ('get_project {"project_id": "p-1"}', None, "get_project", {"project_id": "p-1"}),
        ("""get_project '{"project_id": "p-1"}'""", None, "get_project", {"project_id": "p-1"}),
        ("list_files project_id=p-1 depth=2", None, "list_files",
         {"project_id": "p-1", "depth": 2}),
        ("list_files project_id=$pid", None, "list_files", {"project_id": "p-123"}),
        ("write_files project_id=$pid files=$files", None, "write_files",
         {"project_id": "p-123", "files": [{"path": "a.html", "data": "<p>"}]}),
        ("list_files $args", None, "list_files", {"project_id": "p-9", "depth": 2}),
        ('update_sharing scope=null flag=true name="two words"', None, "update_sharing",
         {"scope": None, "flag": True, "name": "two words"}),
        ("create_project name='[1, 2'", None, "create_project", {"name": "[1, 2"}),
        ("write_files", '{"project_id": "p", "files": []}', "write_files",
         {"project_id": "p", "files": []}),
        ("list_projects", "  \n", "list_projects", {}),
    ],
)
def test_design_operation_lines_parse_into_calls(line, cell, operation, arguments):
    command = parse_design(line, cell, NS)
    assert command.action == "call"
    assert command.args == {"operation": operation, "arguments": arguments}


def test_key_equals_variable_passes_the_object_itself():
    marker = object()
    command = parse_design("op value=$m", None, {"m": marker})
    assert command.args["arguments"]["value"] is marker


def test_whole_word_variable_holding_a_dict_is_the_arguments():
    command = parse_design("op $args", None, NS)
    assert command.args["arguments"] == NS["args"]
    assert command.args["arguments"] is not NS["args"]


@pytest.mark.parametrize(
    ("line", "action", "args"),
    [
        ("list", "list", {"full": False}),
        ("list --full", "list", {"full": True}),
        ("consent", "consent", {}),
        ("revoke", "revoke", {}),
        ("status", "status", {}),
        ("trace", "trace", {"switch": None, "clear": False, "har": None, "curl": None}),
        ("trace on", "trace", {"switch": "on", "clear": False, "har": None, "curl": None}),
        ("trace --har s.har", "trace",
         {"switch": None, "clear": False, "har": "s.har", "curl": None}),
        ("trace --curl", "trace",
         {"switch": None, "clear": False, "har": None, "curl": "last"}),
        ("trace --curl 3", "trace", {"switch": None, "clear": False, "har": None, "curl": 3}),
        ("trace --clear", "trace", {"switch": None, "clear": True, "har": None, "curl": None}),
        ("login", "login", {"code": None, "paste": False}),
        ("login --paste", "login", {"code": None, "paste": True}),
        ("login abc#def", "login", {"code": "abc#def", "paste": False}),
        # a base64url code may begin with "-": the pasted CODE#STATE is still the code
        ("login -abc#def", "login", {"code": "-abc#def", "paste": False}),
        ("login --paste -abc#d-ef", "login", {"code": "-abc#d-ef", "paste": True}),
    ],
)
def test_design_subcommands_parse(line, action, args):
    command = parse_design(line, None, NS)
    assert (command.action, command.args) == (action, args)


@pytest.mark.parametrize(
    ("line", "cell", "command"),
    [
        ("get_project {not json", None, "design get_project"),
        ("get_project [1, 2]", None, "design get_project"),
        ("get_project {\"a\": 1}", "{}", "design get_project"),
        ("op positional", None, "design op"),
        ("op a=1 a=2", None, "design op"),
        ("op '{broken'", None, "design op"),
        ("op extra=1", "{}", "design op"),
        ("op", "[1]", "design op"),
        ("list", "{}", "design list"),
        ("list --fulll", None, "design list"),
        ("", "{}", "design"),
        ("op x=$nope", None, "design"),
    ],
)
def test_bad_design_lines_raise_bad_command(line, cell, command):
    with pytest.raises(BadCommand) as caught:
        parse_design(line, cell, NS)
    assert caught.value.command == command


@pytest.mark.parametrize(
    ("parse", "line", "action"),
    [
        (parse_project, "--help", "usage"),
        (parse_project, "", "usage"),
        (parse_project, "info --help", "info"),
        (parse_project, "read --help", "read"),
        (parse_project, "search -h", "search"),
        (parse_project, "write --help", "write"),
        (parse_project, "delete --help", "delete"),
        (parse_project, "history --help", "history"),
        (parse_project, "restore --help", "restore"),
        (parse_design, "", "usage"),
        (parse_design, "--help", "usage"),
        (parse_design, "list --help", "list"),
        (parse_design, "consent --help", "consent"),
        (parse_design, "revoke --help", "revoke"),
        (parse_design, "status --help", "status"),
        (parse_design, "login --help", "login"),
        (parse_design, "trace --help", "trace"),
        (parse_design, "write_files --help", "call"),
    ],
)
def test_every_subcommand_has_help(parse, line, action):
    command = parse(line, None, NS)
    assert command.action == action
    assert command.help


def test_help_after_double_dash_is_a_search_query():
    command = parse_project("search -- --help", None, NS)
    assert command.help is None
    assert command.args["query"] == "--help"


def test_a_complaint_about_a_variable_never_shows_the_internal_marker():
    with pytest.raises(BadCommand) as caught:
        parse_project("restore $pid", None, NS)
    assert "\x00" not in str(caught.value)
    assert caught.value.command == "project restore"


@pytest.mark.parametrize(
    "line",
    ["search retention -n 5", "  info  ", "read a/b.md", "search x\t-n\t3",
     "search one\ntwo\r\nthree", "search naïve café", "search a\u00a0b", "search a\x0bb",
     "search #hash -n 2", "op a=1 b={x} c=[1,2]", "", "   "],
)
def test_a_plain_line_splits_as_shlex_does(line):
    import shlex

    from jupyter_design_projects.notebook.grammar.parse import split_words

    assert split_words(line, NS, "project") == (shlex.split(line), [])


def test_a_parser_keeps_no_state_from_an_earlier_line():
    """Each subcommand's parser is built once and reused: a bad line, an option given
    once, or a list argument never carries over to the next line."""
    with pytest.raises(BadCommand):
        parse_project("search x -n many", None, NS)
    assert parse_project("search x -n 9", None, NS).args == {"query": "x", "n": 9}
    assert parse_project("search x", None, NS).args == {"query": "x", "n": 5}
    first = parse_design("deck open a b", None, NS).args
    first["target"].append("mutated")
    assert parse_design("deck open c", None, NS).args["target"] == ["c"]
    assert parse_design("deck", None, NS).args["target"] == []
    with pytest.raises(BadCommand) as caught:
        parse_design("list --fulll", None, NS)
    assert caught.value.command == "design list"
    assert parse_design("list", None, NS).args == {"full": False}


def test_an_operations_help_names_that_operation():
    """The OPERATION form's --help is built for the operation asked about."""
    assert "'get_project'" in (parse_design("get_project --help", None, NS).help or "")
    assert "'list_files'" in (parse_design("list_files -h", None, NS).help or "")

