"""The reveal.js HTML export as a document: reveal.js shipped in the package and inlined,
the deck's title and author, fragments in order, notes only when asked for, and a
Content-Security-Policy that allows exactly the scripts the file inlines and no remote
address. (tests/browser/test_reveal_export.py opens the file in Chromium.)"""

from __future__ import annotations

import dataclasses
import html.parser
import re
from importlib import resources

import pytest

from jupyter_design_projects.design.deck import reveal_assets
from jupyter_design_projects.design.deck.reveal import RevealSlide, policy, reveal_document
from jupyter_design_projects.design.deck.reveal_assets import (
    FILES,
    csp_hash,
    packaged_assets,
    speaker_view_script,
)
from jupyter_design_projects.errors import ConfigError

SLIDES = (
    RevealSlide("<h1>Scientific open source</h1><p>A talk</p>", notes="<p>Greet the room</p>",
                title="Scientific open source", classes=("jdp-title",)),
    RevealSlide("<h2>Three steps</h2>", fragments=("<p>first</p>", "<p>second</p>",
                                                   "<p>third</p>"),
                notes="<p>Pause after <em>second</em></p>"),
    RevealSlide("<h2>Thanks</h2>"),
)
#: the only remote addresses in the notes plugin: string constants of the Markdown parser
#: it bundles (marked), never loaded: an autolink's scheme and an error message's link
NOTES_PLUGIN_URLS = ["http://", "https://github.com/markedjs/marked."]
URL = re.compile(r"https?://[^\s\"'`<>)]*", re.IGNORECASE)


class Parsed(html.parser.HTMLParser):
    """The parts of the document the tests read: meta tags, scripts, sections, fragments,
    notes, in document order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.metas: list[dict[str, str | None]] = []
        self.scripts: list[str] = []
        self.order: list[str] = []  # tag names in document order
        self.fragments: list[str] = []
        self.asides: list[str] = []
        self.sections: list[dict[str, str | None]] = []
        self.title = ""
        self._in: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.order.append(tag)
        if tag == "meta":
            self.metas.append(attributes)
        elif tag == "section":
            self.sections.append(attributes)
        elif tag in ("script", "title") or (tag == "aside" and attributes.get("class") == "notes"):
            self._in = tag
            if tag == "script":
                self.scripts.append("")
            if tag == "aside":
                self.asides.append("")
        elif tag == "div" and attributes.get("class") == "fragment":
            self._in = "fragment"
            self.fragments.append("")

    def handle_endtag(self, tag):
        if tag in ("script", "title", "aside") or (tag == "div" and self._in == "fragment"):
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "title":
            self.title += data
        elif self._in == "fragment":
            self.fragments[-1] += data
        elif self._in == "aside":
            self.asides[-1] += data

    def meta(self, **match: str) -> list[dict[str, str | None]]:
        return [m for m in self.metas if all(m.get(k) == v for k, v in match.items())]

    def csp(self) -> str:
        [tag] = self.meta(**{"http-equiv": "Content-Security-Policy"})
        return tag["content"] or ""


@pytest.fixture(scope="module")
def assets():
    return packaged_assets()


@pytest.mark.parametrize("name", FILES)
def test_the_package_carries_each_reveal_js_file(name):
    folder = resources.files("jupyter_design_projects.design.deck") / reveal_assets.FOLDER
    assert folder.joinpath(name).is_file()
    assert folder.joinpath(name).read_bytes().strip()


def test_the_export_inlines_reveal_js_its_stylesheet_and_the_chosen_theme(assets):
    light = reveal_document(SLIDES, title="t")
    dark = reveal_document(SLIDES, title="t", theme="dark")
    assert assets.script in light and assets.stylesheet in light
    assert assets.themes["light"] in light and assets.themes["dark"] not in light
    assert assets.themes["dark"] in dark
    assert Parsed(light).scripts[0] == assets.script
    assert assets.version in light and "Permission is hereby granted" in light


def test_themes_ship_without_web_fonts_or_remote_loads(assets):
    for css in assets.themes.values():
        assert "@font-face" not in css and "@import" not in css
        assert re.findall(r"url\((?!data:)", css) == []
        assert len(css) < 20_000  # the 570 KB of embedded fonts are left out


def test_title_and_author_are_in_the_head_escaped():
    parsed = Parsed(reveal_document(SLIDES, title="Talk <b>&</b>", author="Ada & Grace"))
    assert parsed.title == "Talk <b>&</b>"
    assert [m["content"] for m in parsed.meta(name="author")] == ["Ada & Grace"]


def test_no_author_meta_without_an_author():
    assert Parsed(reveal_document(SLIDES, title="t")).meta(name="author") == []


def test_fragments_keep_their_order_after_their_slide_body():
    text = reveal_document(SLIDES, title="t")
    parsed = Parsed(text)
    assert parsed.fragments == ["first", "second", "third"]
    at = [text.index(marker) for marker in (
        "Three steps", "<p>first</p>", "<p>second</p>", "<p>third</p>", "Thanks")]
    assert at == sorted(at)


def test_each_slide_is_a_numbered_section_with_its_label_and_classes():
    sections = Parsed(reveal_document(SLIDES, title="t")).sections
    assert [s["data-jdp-slide"] for s in sections] == ["1", "2", "3"]
    assert [s["aria-label"] for s in sections] == ["Scientific open source", "Slide 2",
                                                   "Slide 3"]
    assert [s.get("class") for s in sections] == ["jdp-title", None, None]


def test_without_notes_the_file_holds_no_notes_and_no_notes_plugin(assets):
    text = reveal_document(SLIDES, title="t", notes=False)
    parsed = Parsed(text)
    assert "Greet the room" not in text and "Pause after" not in text
    assert parsed.asides == [] and 'class="notes"' not in text
    assert assets.notes_plugin not in text and "RevealNotes" not in text
    assert csp_hash(assets.speaker_script) not in parsed.csp()


def test_with_notes_each_slide_carries_its_notes_and_the_plugin_is_inlined(assets):
    text = reveal_document(SLIDES, title="t", notes=True)
    parsed = Parsed(text)
    assert parsed.asides == ["Greet the room", "Pause after second"]
    assert assets.notes_plugin in parsed.scripts
    assert "plugins: [RevealNotes]" in parsed.scripts[-1]


def test_the_policy_comes_first_and_allows_exactly_the_inlined_scripts(assets):
    for notes in (False, True):
        text = reveal_document(SLIDES, title="t", notes=notes)
        parsed = Parsed(text)
        csp = parsed.csp()
        assert parsed.order[:2] == ["html", "head"] and parsed.order[3] == "meta"
        assert parsed.metas[1]["http-equiv"] == "Content-Security-Policy"
        [sources] = [d for d in csp.split("; ") if d.startswith("script-src ")]
        expected = {csp_hash(s) for s in parsed.scripts}
        if notes:
            expected.add(csp_hash(assets.speaker_script))
        assert set(sources.split()[1:]) == expected
        assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources
        assert len(parsed.scripts) == (3 if notes else 2)


@pytest.mark.parametrize(("notes", "frames"), [(False, "frame-src 'none'"),
                                               (True, "frame-src 'self'")])
def test_the_policy_allows_no_remote_source_of_any_kind(notes, frames):
    directives = policy(["x"], notes).split("; ")
    assert directives[0] == "default-src 'none'"
    assert {"img-src data:", "font-src data:", "style-src 'unsafe-inline'", frames,
            "base-uri 'none'", "form-action 'none'", "object-src 'none'"} <= set(directives)
    assert not any(re.search(r"https?:|\*|'self'", d) for d in directives
                   if not d.startswith("frame-src"))


def test_without_notes_the_file_names_no_remote_address_at_all():
    assert URL.findall(reveal_document(SLIDES, title="t", notes=False)) == []


def test_with_notes_the_only_addresses_are_the_notes_plugins_parser_constants(assets):
    text = reveal_document(SLIDES, title="t", notes=True)
    assert URL.findall(text) == NOTES_PLUGIN_URLS
    assert URL.findall(assets.notes_plugin) == NOTES_PLUGIN_URLS


@pytest.mark.parametrize("tag", ["meta", "META", "base", "link", "iframe", "IFrame", "frame"])
def test_document_level_tags_and_frames_in_slide_content_are_shown_as_text(tag):
    payload = f'<{tag} http-equiv="refresh" href="x">'
    slide = RevealSlide(f"<p>a</p>{payload}", fragments=(payload,), notes=payload)
    parsed = Parsed(reveal_document([slide], title="t", notes=True))
    assert [m for m in parsed.metas if m.get("http-equiv") == "refresh"] == []
    assert tag.lower() not in parsed.order[parsed.order.index("body"):]


@pytest.mark.parametrize("text", ["<metadata>", "<linkage>", "<baseline>", "<p>meta</p>",
                                  "<svg><metadata/></svg>"])
def test_other_tags_that_start_alike_are_kept(text):
    assert text in reveal_document([RevealSlide(text)], title="t")


def test_an_unknown_theme_is_refused():
    with pytest.raises(ValueError):
        reveal_document(SLIDES, title="t", theme="neon")


def test_a_script_that_would_end_its_element_early_is_refused(assets):
    broken = dataclasses.replace(assets, script="var a = '</SCRIPT>';")
    with pytest.raises(ValueError):
        reveal_document(SLIDES, title="t", assets=broken)


def test_css_cannot_end_its_style_element_early():
    parsed = Parsed(reveal_document(SLIDES, title="t", theme_css="</style><script>x</script>"))
    assert "x" not in parsed.scripts


def test_missing_files_name_the_build_step(monkeypatch):
    monkeypatch.setattr(reveal_assets, "FOLDER", "not-built")
    with pytest.raises(ConfigError) as caught:
        packaged_assets()
    assert caught.value.setting == "HTML export"
    assert caught.value.reason == reveal_assets.NOT_BUILT


# ---------------------------------------------------------------- the speaker view's script


def plugin(template: str) -> str:
    return "open();w.document.write(`" + template + "`);more()"


@pytest.mark.parametrize(("template", "script"), [
    ("<p>x</p><script>a()</script>", "a()"),
    (r"<script>/\\?/.test(u)<\/script>", r"/\?/.test(u)"),
    (r"<script>var s = '\x41\u0042\u{43}\t'; \`q\` \$</script>", "var s = 'ABC\t'; `q` $"),
    ("<script>a\\\nb</script>", "ab"),
])
def test_the_speaker_script_is_the_template_literals_value(template, script):
    assert speaker_view_script(plugin(template)) == script


@pytest.mark.parametrize("source", [
    "no speaker view here",
    plugin("<script>a</script>") + plugin("<script>b</script>"),
    plugin("<p>no script</p>"),
    plugin("<script>a</script><script>b</script>"),
    plugin("<script>${evil}</script>"),
    "w.document.write(`<script>a</script>",
])
def test_a_notes_plugin_of_another_shape_is_refused(source):
    with pytest.raises(ValueError):
        speaker_view_script(source)


def test_the_shipped_plugins_speaker_script_is_found(assets):
    script = assets.speaker_script
    assert "reveal-notes" in script and "setupIframes" in script
    assert "</script" not in script
