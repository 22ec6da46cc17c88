"""The pure path rules of a Project: ./ stripping, 1–255 chars, the claude/ namespace,
canonical UUIDs and safe saved names."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.project_paths import (
    MAX_PATH_CHARS,
    RULE_CONTROL,
    RULE_EMPTY,
    RULE_LETTERS,
    RULE_TOO_LONG,
    is_canonical_uuid,
    normalize,
    resolve_write_path,
    safe_file_name,
)
from jupyter_design_projects.errors import PathRejected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("notes.md", "notes.md"),
        ("./notes.md", "notes.md"),
        ("././team/notes.md", "team/notes.md"),
        ("team/./notes.md", "team/./notes.md"),
        ("a" * MAX_PATH_CHARS, "a" * MAX_PATH_CHARS),
        ("./" + "a" * MAX_PATH_CHARS, "a" * MAX_PATH_CHARS),
    ],
)
def test_normalize_strips_leading_dot_slash(given: str, expected: str) -> None:
    assert normalize(given) == expected


@pytest.mark.parametrize(
    ("given", "rule"),
    [
        ("", RULE_EMPTY),
        ("./", RULE_EMPTY),
        ("././", RULE_EMPTY),
        ("a" * (MAX_PATH_CHARS + 1), RULE_TOO_LONG),
        (None, RULE_EMPTY),
    ],
)
def test_normalize_rejects_empty_and_long_paths(given: str, rule: str) -> None:
    with pytest.raises(PathRejected) as caught:
        normalize(given)
    assert caught.value.rule == rule


@pytest.mark.parametrize(
    ("given", "existing", "expected"),
    [
        ("notes.md", set(), ("claude/notes.md", False)),
        ("./notes.md", set(), ("claude/notes.md", False)),
        ("notes.md", {"notes.md"}, ("notes.md", True)),
        ("notes.md", {"claude/notes.md"}, ("claude/notes.md", True)),
        ("team/notes.md", set(), ("team/notes.md", False)),
        ("team/notes.md", {"team/notes.md"}, ("team/notes.md", True)),
        ("claude/x.md", set(), ("claude/x.md", False)),
        ("a" * 248, set(), ("claude/" + "a" * 248, False)),
        ("a" * 255, {"a" * 255}, ("a" * 255, True)),
    ],
)
def test_resolve_write_path(given: str, existing: set[str], expected: tuple[str, bool]) -> None:
    assert resolve_write_path(given, existing) == expected


@pytest.mark.parametrize(
    ("given", "rule"),
    [
        ("a" * 249, RULE_TOO_LONG),  # claude/ + 249 = 256
        ("a" * 256, RULE_TOO_LONG),
        ("bad\nname.md", RULE_CONTROL),
        ("team/\u202eevil.md", RULE_CONTROL),
        ("zero\u200bwidth.md", RULE_CONTROL),
    ],
)
def test_resolve_write_path_rejects(given: str, rule: str) -> None:
    with pytest.raises(PathRejected) as caught:
        resolve_write_path(given, set())
    assert caught.value.rule == rule


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("0f8fad5b-d9cb-469f-a165-70867728950e", True),
        ("0F8FAD5B-D9CB-469F-A165-70867728950E", False),
        ("{0f8fad5b-d9cb-469f-a165-70867728950e}", False),
        ("urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", False),
        ("0f8fad5bd9cb469fa16570867728950e", False),
        ("0f8fad5b-d9cb-469f-a165-70867728950e\n", False),
        ("../../etc/passwd", False),
        ("", False),
        (None, False),
        (12, False),
    ],
)
def test_only_canonical_lowercase_uuids(value: object, ok: bool) -> None:
    assert is_canonical_uuid(value) is ok


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "etcpasswd"),
        ("my file (final).png", "myfilefinal.png"),
        (".bashrc", "bashrc"),
        ("...", "file"),
        ("", "file"),
        ("日本語.txt", "txt"),
        ("x" * 100 + ".png", "x" * 60 + ".png"),
    ],
)
def test_safe_file_name(name: str, expected: str) -> None:
    assert safe_file_name(name) == expected


def test_safe_file_name_keeps_at_most_64_characters() -> None:
    assert len(safe_file_name("a" * 64)) == 64
    assert len(safe_file_name("a" * 65)) == 64


@pytest.mark.parametrize(("given", "expected"), [
    ("caf\u00e9.md", ("claude/caf\u00e9.md", False)),
    ("Cafe\u0301.md", ("claude/Caf\u00e9.md", False)),           # NFC
    ("\u5e7b\u706f\u7247/01.md", ("\u5e7b\u706f\u7247/01.md", False)),
])
def test_new_paths_in_other_scripts_are_written_in_nfc(given, expected) -> None:
    assert resolve_write_path(given, set()) == expected


def test_a_decomposed_path_replaces_the_doc_of_its_nfc_form() -> None:
    assert resolve_write_path("Cafe\u0301.md", {"Caf\u00e9.md"}) == ("Caf\u00e9.md", True)


@pytest.mark.parametrize(("given", "rule"), [
    ("p\u0430ypal.md", RULE_LETTERS["mixed_script"]),
    ("\u0430\u0440\u0435.md", RULE_LETTERS["whole_script_confusable"]),
    ("a\ue000.md", RULE_CONTROL),
    ("a\u0378.md", RULE_CONTROL),
    ("a\u3164b.md", RULE_CONTROL),
    ("\uff21.md", RULE_LETTERS["not_normalised"]),
    ("a\u2215b.md", RULE_LETTERS["not_a_letter"]),
])
def test_new_paths_that_hide_or_mix_scripts_are_refused(given, rule) -> None:
    with pytest.raises(PathRejected) as caught:
        resolve_write_path(given, set())
    assert caught.value.rule == rule


@pytest.mark.parametrize(("given", "path", "rule"), [
    (None, "None", RULE_EMPTY),
    (5, "5", RULE_EMPTY),
    ("./", "./", RULE_EMPTY),
    ("./" + "a" * (MAX_PATH_CHARS + 1), "./" + "a" * (MAX_PATH_CHARS + 1), RULE_TOO_LONG),
])
def test_a_refused_path_names_the_path_as_given(given, path, rule) -> None:
    with pytest.raises(PathRejected) as caught:
        normalize(given)
    assert (caught.value.path, caught.value.rule) == (path, rule)


@pytest.mark.parametrize(("given", "path", "rule"), [
    # too long once under claude/: the path as given
    ("./" + "a" * (MAX_PATH_CHARS - 2), "./" + "a" * (MAX_PATH_CHARS - 2), RULE_TOO_LONG),
    # what a new path may hold: the path as normalised
    ("./bad\nname.md", "bad\nname.md", RULE_CONTROL),
    ("./team/p\u0430ypal.md", "team/p\u0430ypal.md", RULE_LETTERS["mixed_script"]),
    # an ideographic space is a space, not a letter, though str.split() splits there
    ("team/a\u3000b.md", "team/a\u3000b.md", RULE_LETTERS["not_a_letter"]),
])
def test_a_refused_new_path_names_the_path_it_was_given_or_resolved_to(given, path,
                                                                       rule) -> None:
    with pytest.raises(PathRejected) as caught:
        resolve_write_path(given, set())
    assert (caught.value.path, caught.value.rule) == (path, rule)


def test_a_safe_file_name_keeps_a_leading_capital_x() -> None:
    assert safe_file_name("Xy.png") == "Xy.png"
