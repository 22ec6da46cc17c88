"""The JSON tree a result shows as when it is neither a table nor an image: its HTML
(details/summary, paths as titles, top levels open), its plain text, its budget said, and
hostile keys and values kept as text. Also where it is used: an outcome's rest, `%design
rpc`'s answer and the inspector's result area."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import pytest

from jupyter_design_projects.core.json_tree import Limits
from jupyter_design_projects.design.raw_rpc import RawExchange
from jupyter_design_projects.notebook.commands.rpc_view import RpcOutcome
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.views.json_tree import (
    PLAIN_LIMITS,
    JsonTree,
    tree_html,
    tree_text,
)
from jupyter_design_projects.notebook.views.outcome import Outcome
from jupyter_design_projects.notebook.widgets.inspector import whole_result
from tests.hostile_content import payloads

#: the only tags and attributes the tree writes
TAGS = {"div", "span", "details", "summary"}
ATTRIBUTES = {"class", "style", "title", "open"}


class Parsed(HTMLParser):
    """Every tag with its attributes, and the text between them, as a browser reads it."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def titles(self) -> list[str | None]:
        return [attrs.get("title") for _tag, attrs in self.tags if "title" in attrs]

    def details(self) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == "details"]


NESTED = {
    "content": [{"type": "text", "text": "hello"}, {"type": "image", "n": 2}],
    "meta": {"ok": True, "nothing": None, "ratio": 0.25, "count": -3,
             "deeper": {"deepest": {"x": 1}}},
    "empty_record": {}, "empty_list": [],
    "unicode": "héllo ✓ 日本語 😀",
}


def test_a_nested_result_is_a_tree_of_details_with_every_path_as_a_title():
    shown = tree_html(NESTED)
    parsed = Parsed(shown)
    titles = parsed.titles()
    for path in ("$", "$.content", "$.content[0]", "$.content[0].text", "$.meta.ok",
                 "$.meta.deeper.deepest.x", "$.empty_record", "$.unicode"):
        assert path in titles, path
    text = "".join(parsed.text)
    for said in ('"hello"', "true", "null", "0.25", "-3", "{}", "[]", "[2 items]",
                 "{5 keys}", '"héllo ✓ 日本語 😀"'):
        assert said in text, said


def test_the_top_two_levels_are_open_and_deeper_ones_closed():
    parsed = Parsed(tree_html(NESTED))
    states = [("open" in attrs) for attrs in parsed.details()]
    summaries = [attrs["title"] for tag, attrs in parsed.tags if tag == "summary"]
    state_of = dict(zip(summaries, states, strict=True))
    # the root (level 0) and "content"/"meta" (level 1) open; level 2 and below closed
    assert state_of["$"] and state_of["$.content"] and state_of["$.meta"]
    assert not state_of["$.content[0]"] and not state_of["$.meta.deeper"]
    assert not state_of["$.meta.deeper.deepest"]


def test_empty_records_and_lists_are_leaves_not_details():
    parsed = Parsed(tree_html({"e": {}, "l": []}))
    assert [a["title"] for t, a in parsed.tags if t == "summary"] == ["$"]


def test_the_plain_text_is_the_indented_json():
    assert tree_text(NESTED) == json.dumps(NESTED, indent=2, ensure_ascii=False)


def test_a_long_string_is_cut_with_its_full_length_said():
    text = "z" * 1_000
    shown = "".join(Parsed(tree_html({"t": text})).text)
    assert '"' + "z" * 300 + '"' in shown and "z" * 301 not in shown
    assert "… 700 more characters (1,000 in all)" in shown
    assert "Not shown: 1 long text cut. The whole value is in the outcome's `.data`." in shown


def test_at_the_node_budget_nothing_is_said_and_one_over_the_rest_is_counted():
    at = Limits(nodes=5)
    shown = "".join(Parsed(tree_html([1, 2, 3, 4], limits=at)).text)
    assert "not shown" not in shown.lower() and "Not shown" not in shown
    over = "".join(Parsed(tree_html([1, 2, 3, 4, 5], limits=at)).text)
    assert "… 1 more item not shown" in over
    assert "Not shown: 1 more key or item (the tree shows 100 of a record or list, 5 " \
        "values in all)." in over
    assert "5" not in over.split("[5 items]")[1].split("…")[0]  # the fifth item is not drawn


def test_a_ten_megabyte_answer_makes_a_small_page_that_says_what_is_left_out():
    answer = {"result": {"content": [{"type": "text", "text": "w" * 100, "n": i}
                                     for i in range(80_000)]}}
    assert len(json.dumps(answer)) > 10_000_000
    shown = tree_html(answer)
    assert len(shown) < 1_000_000
    text = "".join(Parsed(shown).text)
    assert re.search(r"… [\d,]+ more items not shown", text)
    assert "The whole value is in the outcome's `.data`." in text
    plain = tree_text(answer, limits=PLAIN_LIMITS)
    assert len(plain) < 100_000 and "more items not shown" in plain


@pytest.mark.parametrize("name", sorted(payloads("http://127.0.0.1:9")))
def test_a_hostile_key_or_value_stays_text(name):
    payload = payloads("http://127.0.0.1:9")[name]
    value = {payload: payload, "list": [payload, {payload: [payload]}]}
    shown = tree_html(value)
    parsed = Parsed(shown)
    for tag, attrs in parsed.tags:
        assert tag in TAGS, tag
        assert set(attrs) <= ATTRIBUTES, attrs
        assert payload not in (attrs.get("style") or "") and "url(" not in (
            attrs.get("style") or "")
    assert "<script" not in shown.lower()  # (a javascript: URL is text: no tag has an href)
    tags_only = re.sub(r'"[^"]*"', '""', shown)  # attribute values hold no raw quote
    assert not re.search(r"<[^>]*\son\w+\s*=", tags_only)  # no event attribute on a tag
    quoted = json.dumps(payload, ensure_ascii=False)
    assert quoted in "".join(parsed.text)  # shown as the text it is
    path = f"$[{quoted}]"  # its path, to copy, is the same text
    assert path in parsed.titles() or len(path) > 300


def test_json_tree_shows_a_label_and_its_plain_text():
    bundle = JsonTree({"a": [1]}, label="The whole result")._repr_mimebundle_()
    assert bundle["text/plain"].splitlines()[0] == "The whole result"
    assert "The whole result" in bundle["text/html"] and "jdp-json-tree" in bundle["text/html"]


# ---------------------------------------------------------------- where it is used


def test_an_outcome_shows_the_rest_as_the_tree_and_text_as_text():
    rest = Outcome("design get_thing", {"a": {"b": [1, 2]}})
    bundle = rest._repr_mimebundle_()
    assert "jdp-json-tree" in bundle["text/html"] and 'title="$.a.b[1]"' in bundle["text/html"]
    assert json.dumps({"a": {"b": [1, 2]}}, indent=2) in bundle["text/plain"]
    text = Outcome("design note", "<b>plain</b> text")._repr_mimebundle_()["text/html"]
    assert "jdp-json-tree" not in text and "&lt;b&gt;plain&lt;/b&gt; text" in text


def test_an_outcome_with_a_table_or_a_body_draws_no_tree():
    table = Outcome("t", [{"a": 1}], tables={"items": [{"a": 1}]})
    body = Outcome("b", {"a": 1}, body="Wrote a.")
    for outcome in (table, body):
        assert "jdp-json-tree" not in outcome._repr_mimebundle_()["text/html"]


def exchange(body) -> RawExchange:
    return RawExchange("tools/list", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       {"Authorization": "Bearer [redacted-oauth-token]"}, 200,
                       {"content-type": "application/json"}, json.dumps(body), body)


def test_an_rpc_answer_is_a_tree_that_says_where_the_whole_answer_is():
    answer = {"jsonrpc": "2.0", "id": 1,
              "result": {"tools": [{"name": f"t{i}"} for i in range(2_000)]}}
    shown = RpcOutcome(exchange(answer))._repr_mimebundle_()
    page = shown["text/html"]
    assert 'title="$.result.tools[0].name"' in page
    assert html.escape("The whole value is in the outcome's `.data[\"answer\"][\"body\"]`.") \
        in page
    assert "more items not shown" in shown["text/plain"]
    assert '.data["answer"]["body"]' in shown["text/plain"]


def test_an_rpc_answer_that_is_not_json_is_its_text_cut_and_said():
    raw = RawExchange("x", {}, {}, 502, {}, "<h1>bad gateway</h1>" + "e" * 30_000, None)
    page = RpcOutcome(raw)._repr_mimebundle_()["text/html"]
    assert "&lt;h1&gt;bad gateway&lt;/h1&gt;" in page and "<h1>" not in page
    assert "more characters not shown (30,020 in all)" in page


def test_the_inspector_adds_the_whole_result_under_a_summary_line():
    written = views.project_outcome("write", {"path": "a.md", "replaced": False,
                                              "bytes": 3, "journal_id": 2})
    tree = whole_result(written)
    assert isinstance(tree, JsonTree) and tree.value == written.data
    html_ = tree._repr_mimebundle_()["text/html"]
    assert 'title="$.journal_id"' in html_ and "The whole result" in html_
    assert whole_result(Outcome("rest", {"a": 1})) is None  # the outcome draws the tree
    assert whole_result(Outcome("t", [{"a": 1}], tables={"items": [{"a": 1}]})) is None
    assert whole_result(Outcome("e", {"a": 1}, body="x", is_error=True)) is None
    assert whole_result(Outcome("s", "text", body="text")) is None
