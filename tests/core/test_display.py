"""Display safety: what an approval card may show exactly as it is."""

import pytest

from jupyter_design_projects.core import display

SAFE_PATHS = [
    ("index.html", "index.html"),
    ("./slides/01-title.html", "slides/01-title.html"),
    ("a/./b.html", "a/b.html"),
    ("my deck/page one.html", "my deck/page one.html"),
    ("CLAUDE.mdx", "CLAUDE.mdx"),
    ("notclaude.md", "notclaude.md"),
    # letters, marks and digits of any script, in NFC (issue 22 item 2)
    ("caf\u00e9.html", "caf\u00e9.html"),
    ("Cafe\u0301.html", "Caf\u00e9.html"),           # decomposed: its NFC form
    ("\u5e7b\u706f\u7247/01.html", "\u5e7b\u706f\u7247/01.html"),  # 幻灯片/01.html
    ("\u0441\u043b\u0430\u0439\u0434.html", "\u0441\u043b\u0430\u0439\u0434.html"),  # слайд.html
    ("\u30c7\u30fc\u30bf/\u0969.html", "\u30c7\u30fc\u30bf/\u0969.html"),  # データ, Devanagari 3
    ("\u0926\u0947\u0935.html", "\u0926\u0947\u0935.html"),  # देव: vowel sign marks
    ("\u0391\u03b8\u03ae\u03bd\u03b1.html", "\u0391\u03b8\u03ae\u03bd\u03b1.html"),  # Αθήνα
]


@pytest.mark.parametrize(("path", "normal"), SAFE_PATHS)
def test_safe_path_has_one_normal_form(path, normal):
    assert display.path_rule(path) is None
    assert display.normal_form(path) == normal


HOSTILE_PATHS = [
    ("evil\u202egnp.html", "invisible_character"),          # Trojan Source right-to-left override
    ("a\u2066b.html", "invisible_character"),               # bidi isolate
    ("a\u200bb.html", "invisible_character"),               # zero-width space
    ("a\u200db.html", "invisible_character"),               # zero-width joiner
    ("a\U000e0041.html", "invisible_character"),            # tag character
    ("a\ufe0f.html", "invisible_character"),                # variation selector
    ("\uff0e\uff0e\uff0fsecret", "not_a_letter"),    # fullwidth dots and slash
    ("\u2025/secret", "not_a_letter"),               # two-dot leader (NFKC: "..")
    ("a\u2215b", "not_a_letter"),                    # division slash
    ("a\u2044b", "not_a_letter"),                    # fraction slash
    ("\u0430pple.html", "mixed_script"),          # Cyrillic a in a Latin word
    ("\u0430\u0440\u0435.html", "whole_script_confusable"),  # Cyrillic "аре" reads "ape"
    ("\u03bf\u03c1.html", "whole_script_confusable"),  # Greek "ορ" reads "op"
    ("\uff21.html", "not_normalised"),             # fullwidth A
    ("a\ufb01le.html", "not_normalised"),          # the "fi" ligature
    ("a\ue000.html", "invisible_character"),       # private use
    ("a\u0378.html", "invisible_character"),       # unassigned
    ("a\u3164b.html", "invisible_character"),      # Hangul filler (a letter by category)
    ("a\u00a0b.html", "not_a_letter"),             # no-break space
    ("\u0301a.html", "invisible_character"),       # a mark with no letter
    ("a\u0085b", "control_character"),             # C1 control
    ("a\tb", "control_character"),
    ("a\x7fb", "control_character"),
    ("a\nb", "control_character"),
    ("../up.html", "traversal"),
    ("a/../../up.html", "traversal"),
    ("/abs.html", "absolute"),
    ("a\\b.html", "backslash"),
    ("a//b.html", "empty_segment"),
    ("a/", "empty_segment"),
    ("", "empty"),
    (".", "empty"),
    ("CLAUDE.md", "reserved"),
    ("docs/claude.MD", "reserved"),
    ("CLAUDE.md.", "reserved"),
    ("CLAUDE.md ", "edge_space"),
    ("deep/er/CLAUDE.md:stream", "reserved"),
    (".claude/settings.json", "reserved"),
    (".Claude/x", "reserved"),
    ("a/.CLAUDE./x", "reserved"),
    (" lead.html", "edge_space"),
    (42, "not_a_string"),
]


@pytest.mark.parametrize(("path", "rule"), HOSTILE_PATHS)
def test_hostile_path_is_refused_with_its_rule(path, rule):
    assert display.path_rule(path, 1024) == rule
    assert display.normal_form(path) is None


@pytest.mark.parametrize(("path", "shown"), [
    ("index.html", "index.html"),
    ("caf\u00e9.html", "caf\u00e9.html  [caf\\u00e9.html]"),
    ("\u5e7b/\U0001d7d8.html", "\u5e7b/\U0001d7d8.html  [\\u5e7b/\\U0001d7d8.html]"),
])
def test_a_card_shows_a_non_ascii_path_beside_its_escaped_form(path, shown):
    assert display.with_escape(path) == shown


def test_path_of_80_chars_is_shown():
    assert display.path_rule("p/" + "a" * 78) is None


def test_path_of_81_chars_is_refused():
    assert display.path_rule("p/" + "a" * 79) == "too_long"


@pytest.mark.parametrize("path", ["CLAUDE.md", "a\\.claude\\x", "x/Claude.md.", ".claude"])
def test_reserved_paths_are_found_at_any_depth_and_case(path):
    assert display.is_reserved_path(path)


@pytest.mark.parametrize("path", ["claude.html", "docs/claude-notes.md", "x/.claudex"])
def test_lookalike_names_are_not_reserved(path):
    assert not display.is_reserved_path(path)


@pytest.mark.parametrize("name", ["Quarterly Review Deck", "Проект запуска", "デザイン案 2",
                                  "Café menu", "देवनागरी", "Q3: Review & Plan (v2)",
                                  # one letter that reads as no Latin letter is enough
                                  "\u0410\u0441\u0435\u0431", "\u0391\u0398\u0397\u039d\u0391",
                                  "2026", "ACE", "Ace"])
def test_plain_names_in_one_script_are_shown(name):
    assert display.text_rule(name) is None


@pytest.mark.parametrize(("name", "rule"), [
    ("Acme\u202eKCED", "invisible_character"),
    ("Acme\u2066Deck", "invisible_character"),
    ("Ac\u200bme", "invisible_character"),
    ("Acme\U000e0041", "invisible_character"),
    ("Acme\ufe0f", "invisible_character"),
    ("Acme\u3164Deck", "invisible_character"),     # Hangul filler
    ("Acme\u2800Deck", "invisible_character"),     # braille blank
    ("Acme\u00a0Deck", "unusual_space"),
    ("\u0410cme Deck", "mixed_script"),            # Cyrillic A in a Latin name
    ("Acm\u03b5", "mixed_script"),                 # Greek epsilon
    ("\u0410\u0441\u0435", "whole_script_confusable"),  # Cyrillic "Асе" reads as "Ace"
    ("\u0421\u0410\u0422 2026", "whole_script_confusable"),  # Cyrillic "САТ 2026"
    ("\u0391\u039a\u039c\u0395", "whole_script_confusable"),  # Greek "ΑΚΜΕ"
    ("\u13aa\u13df\u13b7\u13ac", "whole_script_confusable"),  # Cherokee "ᎪᏟᎷᎬ"
    ("\uff21cme", "not_normalised"),               # fullwidth A
    ("a\u2025b", "not_normalised"),
    ("Cafe\u0301", "not_normalised"),              # decomposed accent
    ("a\u0301\u0301\u0301", "invisible_character"),  # stacked marks
    ("\u0301abc", "invisible_character"),          # a mark with no letter
    (" Acme", "edge_space"),
    ("", "empty"),
    ("x" * 121, "too_long"),
    (None, "not_a_string"),
])
def test_hostile_names_are_refused(name, rule):
    assert display.text_rule(name) == rule


def test_name_of_120_chars_is_shown():
    assert display.text_rule("x" * 120) is None


@pytest.mark.parametrize("url", [
    "https://design.example/p/0f4b6c1e",
    "https://design.example:8443/p/x?view=1#top",
    "https://127.0.0.1:8765/design/p/x",
    "https://localhost/p/x",
])
def test_safe_urls_are_shown(url):
    assert display.url_rule(url) is None


@pytest.mark.parametrize(("url", "rule"), [
    ("http://design.example/p/x", "not_https"),
    # loopback too: a grant card's URL is https or the card is not shown (docs/choices.md)
    ("http://127.0.0.1:8765/design/p/x", "not_https"),
    ("http://localhost/p/x", "not_https"),
    ("http://[::1]:8080/x", "not_https"),
    ("javascript:alert(1)", "bad_host"),
    ("https://a.example\\@evil.net/", "backslash"),
    ("https://a.example@evil.net/", "userinfo"),
    ("https://user:pw@a.example/", "userinfo"),
    ("https://a.example/\u202ep", "non_printable_ascii"),
    ("https://\u0430cme.example/", "non_printable_ascii"),
    ("https://a.example/ x", "non_printable_ascii"),
    ("https://a.example:99999/", "unparsable"),
    ("https:///nohost", "bad_host"),
    ("https://a_b!.example/", "bad_host"),
    ("https://a.example/" + "x" * 300, "bad_length"),
    (None, "not_a_string"),
])
def test_unsafe_urls_are_refused(url, rule):
    assert display.url_rule(url) == rule


@pytest.mark.parametrize(("value", "rule"), [
    ("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60", None),
    ("proj_1", None),
    ("-x", "unsafe_id"),
    ("a/b", "unsafe_id"),
    ("a\u200b", "unsafe_id"),
    ("x" * 129, "unsafe_id"),
    (7, "not_a_string"),
])
def test_ids_are_short_ascii_tokens(value, rule):
    assert display.id_rule(value) == rule


@pytest.mark.parametrize(("value", "rule"), [
    ("org", None), ("link", None), ("private", None),
    ("Org", "unsafe_scope"), ("org\u202e", "unsafe_scope"), ("", "unsafe_scope"),
])
def test_sharing_scopes_are_short_words(value, rule):
    assert display.scope_rule(value) == rule


GOOD_PROJECT = {"id": "p1", "name": "Quarterly Review Deck", "url": "https://design.example/p/p1",
                "sharing": {"scope": "org", "link_permission": "view"}}


def test_project_identity_of_a_clean_answer():
    identity = display.project_identity("p1", GOOD_PROJECT)
    assert identity == display.ProjectIdentity("p1", "Quarterly Review Deck", "org", "view",
                                               "https://design.example/p/p1")


@pytest.mark.parametrize(("change", "rule"), [
    ({"name": "Acme\u202eKCED"}, "name_invisible_character"),
    ({"name": "\u0410cme"}, "name_mixed_script"),
    ({"url": "https://a.example\\@evil.net/"}, "url_backslash"),
    ({"url": "http://evil.example/"}, "url_not_https"),
    ({"sharing": {"scope": "org\u200b"}}, "scope_unsafe_scope"),
    ({"sharing": {"scope": "org", "link_permission": "Edit!"}}, "link_permission_unsafe_scope"),
    ({"sharing": None}, "sharing_missing"),
    ({"id": "p2"}, "project_id_mismatch"),
])
def test_project_identity_refuses_an_unsafe_answer(change, rule):
    assert display.project_identity("p1", {**GOOD_PROJECT, **change}) == rule


def test_project_identity_refuses_a_non_object():
    assert display.project_identity("p1", ["p1"]) == "not_an_object"


def test_c1_controls_up_to_9f_are_control_characters():
    assert display.path_rule("a\x9fb.html") == "control_character"
    assert display.path_rule("a\x7fb.html") == "control_character"


@pytest.mark.parametrize(("segment", "reserved"), [
    ("CLAUDE.md:a:b", True), (".claude. ", True), (".claudeX", False), ("CLAUDE.mdX", False)])
def test_a_reserved_segment_is_read_up_to_its_first_colon(segment, reserved):
    assert display.is_reserved_segment(segment) is reserved


def test_a_path_that_is_not_a_string_is_not_reserved():
    assert display.is_reserved_path(5) is False
    assert display.is_reserved_path(None) is False


def test_normal_and_written_forms_hold_paths_of_up_to_1024_characters():
    for form in (display.normal_form, display.written_form):
        assert form("a" * 1024) == "a" * 1024
        assert form("a" * 1025) is None


def test_a_scope_that_is_not_a_string_says_so():
    assert display.scope_rule(5) == "not_a_string"


@pytest.mark.parametrize(("url", "rule"), [
    ("https://a.example/~me", None),
    ("https://a.example/\x7f", "non_printable_ascii"),
    ("https://[::1]:8080/x", None),
    ("https://a.example/" + "x" * (display.MAX_URL_CHARS - 18), None),
    ("https://a.example/" + "x" * (display.MAX_URL_CHARS - 17), "bad_length"),
])
def test_url_rule_at_its_edges(url, rule):
    assert display.url_rule(url) == rule


def test_project_identity_without_an_id_or_link_permission():
    answer = {"name": "Deck", "url": "https://design.example/p/p1",
              "sharing": {"scope": "private"}}
    assert display.project_identity("p1", answer) == display.ProjectIdentity(
        "p1", "Deck", "private", None, "https://design.example/p/p1")
