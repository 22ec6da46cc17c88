"""Property tests (hypothesis) of the pure rules every pipeline leans on: the Projects and
Design path rules, containment, argument validation (against the client's own schemas and
against whatever schema a service sends), and the display-string checks of approval cards.
Counterexamples hypothesis found are kept below as ordinary tests (`test_found_*`).
Spec clauses: §16 (Project paths), §4 (Design paths on cards: 80 chars, no traversal, no
reserved names), §6 (4,096-byte strings, 65,536-byte plan tokens), and the threat of
display spoofing (bidi controls, zero-width and invisible characters, look-alikes)."""

from __future__ import annotations

import posixpath
import unicodedata
from pathlib import PurePosixPath

import hypothesis.strategies as st
import pytest
from hypothesis import assume, given

from jupyter_design_projects.core import display
from jupyter_design_projects.core.containment import is_within, lexical_resolve
from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.project_paths import (
    MAX_PATH_CHARS,
    normalize,
    resolve_write_path,
)
from jupyter_design_projects.core.validation import STRING_MAX_BYTES, utf8_length, validate
from jupyter_design_projects.errors import InvalidArguments, PathRejected

#: characters that change what a reader sees without being seen themselves
HIDDEN = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
          "\u2069", "\u200e", "\u200f", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff",
          "\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f", "\u180e", "\ufe0f",
          "\U000e0041", "\u00ad", "\u061c"]
path_alphabet = st.sampled_from(list("ab./\\-_ :") + ["..", "CLAUDE.md", ".claude", "\u202e",
                                                      "\u0430", "\x00", "\n", "é"])
paths = st.lists(path_alphabet, max_size=30).map("".join) | st.text(max_size=300)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)


# ---------------------------------------------------------------- Project paths (§16)


@given(paths)
def test_project_path_normalising_is_idempotent_and_bounded__spec_s16(path):
    try:
        name = normalize(path)
    except PathRejected as rejected:
        assert rejected.rule
        return
    assert 1 <= len(name) <= MAX_PATH_CHARS and not name.startswith("./")
    assert normalize(name) == name


@given(paths, st.sets(st.sampled_from(["a", "claude/a", "notes/x.md", "b"]), max_size=3))
def test_a_new_path_never_hides_characters_and_bare_names_get_the_namespace__spec_s16(
        path, existing):
    try:
        final, replaces = resolve_write_path(path, existing)
    except PathRejected:
        return
    assert replaces == (final in existing)
    if not replaces:
        assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in final)
    assert "/" in final


# ---------------------------------------------------------------- Design paths on cards (§4)


@given(paths)
def test_a_displayable_design_path_is_plain_short_and_stays_inside__spec_s4(path):
    if display.path_rule(path) is not None:
        return
    form = display.normal_form(path)
    assert form is not None and len(path) <= display.MAX_PATH_CHARS
    assert all(0x20 <= ord(c) < 0x7F for c in path) and "\\" not in path
    assert ".." not in form.split("/") and not form.startswith("/")
    assert not display.is_reserved_path(path)
    assert display.normal_form(form) == form
    assert posixpath.normpath("/root/" + form).startswith("/root/")


@given(st.text(alphabet=st.sampled_from("ab./"), max_size=40))
def test_normal_forms_agree_with_posix_normalisation__spec_s4(path):
    form = display.normal_form(path)
    assume(form is not None)
    assert posixpath.normpath(form) == form


# ---------------------------------------------------------------- containment


@given(st.lists(st.sampled_from(["a", "b", "bc", "..", ".", ""]), max_size=8),
       st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=3))
def test_containment_is_by_path_components_not_string_prefix__threat_escape(rel, root_parts):
    root = "/" + "/".join(root_parts)
    candidate = lexical_resolve(root, "/".join(rel))
    expected = PurePosixPath(posixpath.normpath(candidate)).is_relative_to(root)
    assert is_within(root, candidate) == expected


def test_found_sibling_with_a_common_prefix_is_outside__threat_escape():
    assert not is_within("/a/b", "/a/bc")
    assert is_within("/a/b", "/a/b/../b/c")


# ---------------------------------------------------------------- argument validation (§6)

known = st.sampled_from(sorted({name: op.schema for name, op in BY_NAME.items()}))


@given(known, st.dictionaries(st.text(max_size=12), json_values, max_size=5))
def test_validation_of_known_operations_only_ever_says_invalid_arguments__spec_s6(
        operation, arguments):
    schema = {name: op.schema for name, op in BY_NAME.items()}[operation]
    try:
        checked = validate(operation, arguments, schema)
    except InvalidArguments as refused:
        assert refused.operation == operation and refused.field is not None and refused.rule
    else:
        assert checked == arguments and checked is not arguments


schema_parts = st.deferred(lambda: st.fixed_dictionaries({}, optional={
    "type": json_values | st.sampled_from(["string", "integer", "array", "object"]),
    "required": json_values | st.lists(st.text(max_size=4), max_size=3),
    "properties": json_values | st.dictionaries(st.text(max_size=4), schema_parts, max_size=3),
    "enum": json_values, "items": json_values | schema_parts}) | json_values)


@given(st.text(alphabet="abc_", min_size=1, max_size=10), schema_parts,
       st.dictionaries(st.text(max_size=4), json_values, max_size=4))
def test_any_schema_a_service_sends_gives_a_verdict_never_a_crash__threat_hostile_server(
        operation, schema, arguments):
    try:
        validate(operation, arguments, schema if isinstance(schema, dict) else None)
    except InvalidArguments as refused:
        assert refused.rule


def test_found_a_required_list_that_is_a_number_is_ignored__threat_hostile_server():
    assert validate("custom_op", {}, {"required": 5}) == {}
    assert validate("custom_op", {}, {"required": [None]}) == {}


def test_found_a_property_schema_that_is_not_an_object_is_ignored__threat_hostile_server():
    assert validate("custom_op", {"a": 1}, {"properties": {"a": 0}}) == {"a": 1}


def test_found_a_type_list_holding_a_list_is_ignored__threat_hostile_server():
    assert validate("custom_op", {"a": 1}, {"properties": {"a": {"type": [[]]}}}) == {"a": 1}


def test_found_an_enum_that_is_not_a_list_is_ignored__threat_hostile_server():
    assert validate("custom_op", {"a": 1}, {"properties": {"a": {"enum": 0}}}) == {"a": 1}


@given(st.text(alphabet=st.sampled_from("aé€😀"), min_size=1000, max_size=4200))
def test_strings_are_capped_at_exactly_4096_utf8_bytes__spec_s6(text):
    try:
        validate("list_projects", {"cursor": text}, BY_NAME["list_projects"].schema)
    except InvalidArguments as refused:
        assert refused.field == "cursor"
        assert utf8_length(text) > STRING_MAX_BYTES
    else:
        assert utf8_length(text) <= STRING_MAX_BYTES


@pytest.mark.parametrize(("size", "accepted"), [(STRING_MAX_BYTES, True),
                                                (STRING_MAX_BYTES + 1, False)])
def test_found_the_string_cap_boundary_in_multibyte_text__spec_s6(size, accepted):
    text = "€" * (size // 3) + "a" * (size % 3)
    assert utf8_length(text) == size
    try:
        validate("list_projects", {"cursor": text}, BY_NAME["list_projects"].schema)
    except InvalidArguments:
        assert not accepted
    else:
        assert accepted


# ---------------------------------------------------------------- display strings


@given(st.text(max_size=150))
def test_an_accepted_display_text_is_visible_short_and_stable__threat_display_spoofing(text):
    if display.text_rule(text) is not None:
        return
    assert len(text) <= display.MAX_TEXT_CHARS and text == text.strip()
    assert unicodedata.normalize("NFKC", text) == text
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp")
                   for c in text)


@given(st.text(alphabet=st.characters(codec="ascii", categories=["L", "N", "Zs", "P"]),
               min_size=1, max_size=60),
       st.sampled_from(HIDDEN), st.integers(0, 60))
def test_any_hidden_character_anywhere_is_refused__threat_display_spoofing(text, hidden, at):
    assume(display.text_rule(text) is None)
    at = min(at, len(text))
    spoofed = text[:at] + hidden + text[at:]
    assert display.text_rule(spoofed) is not None
    assert display.path_rule(spoofed) is not None


@given(st.text(alphabet=st.sampled_from("abcdeopxy"), min_size=2, max_size=20),
       st.integers(0, 19))
def test_a_single_look_alike_letter_makes_mixed_scripts__threat_display_spoofing(text, at):
    look_alikes = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e",
                   "p": "\u0440", "x": "\u0445", "y": "\u0443"}
    at = min(at, len(text) - 1)
    assume(text[at] in look_alikes and any(c not in look_alikes for c in text))
    spoofed = text[:at] + look_alikes[text[at]] + text[at + 1:]
    assert display.text_rule(spoofed) == "mixed_script"


@given(st.text(alphabet=st.sampled_from("aceopxy"), min_size=1, max_size=20),
       st.text(alphabet=st.sampled_from(" 0123456789-"), max_size=3))
def test_a_name_wholly_in_look_alike_letters_is_refused__threat_display_spoofing(text, tail):
    look_alikes = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e",
                   "p": "\u0440", "x": "\u0445", "y": "\u0443"}
    spoofed = "".join(look_alikes[c] for c in text) + tail.rstrip()
    assert display.text_rule(text + tail.rstrip()) is None
    assert display.text_rule(spoofed) == "whole_script_confusable"


@pytest.mark.parametrize("name", ["Quarterly \u202eReview", "Deck\u200b", "A" * 121,
                                  "Quarterly R\u0435view", "\u3164", "Deck\ufe0f"])
def test_found_hostile_names_are_refused__threat_display_spoofing(name):
    assert display.text_rule(name) is not None
