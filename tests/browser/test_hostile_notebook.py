"""Nothing a service sends runs or phones home where a notebook shows it (issue 32.5): the
magics run in an IPython shell against a reference service whose hostile-content switch
puts payloads in every string it serves (tool descriptions and titles, schema
descriptions, project names, paths, doc content, snippets, member emails, error messages
that echo input); every HTML the outcomes, tables, DataFrames, cards and the catalogue
widget produce is then loaded in Chromium with script on, as a notebook output runs, and
the loopback beacon every payload points at stays at zero. The same payloads put into a
page unescaped do reach the beacon, so the harness sees a load when one happens."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError

from tests.hostile_content import (
    Beacon,
    all_payloads,
    beacon,
    page_of,
    payloads,
    render,
    set_hostile,
)

pytestmark = [pytest.mark.browser, pytest.mark.service]

DECK = "Quarterly Review Deck"
#: keys the second kind of pass keeps clean, so reads by path find the doc or file
PATH_KEYS = ("path", "file_name")
SLIDE = "<!doctype html><html><body><h2>Hi</h2></body></html>"


@pytest.fixture
def shell(reference_service, tmp_path, monkeypatch) -> Iterator[Any]:
    """An IPython shell with the extension loaded, pointed at this test's service; cards
    are widgets answered from code."""
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_design_projects.notebook.magics import load, unload

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name, value in reference_service.client_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLAUDE_SESSION_JWT", raising=False)
    monkeypatch.chdir(tmp_path)
    ip = InteractiveShell.instance()
    load(ip)
    magics = ip.magics_manager.registry["DesignProjects"]
    magics.approval_mode = "widget"
    try:
        yield ip
    finally:
        magics.close()
        unload(ip)


def widget_html(widget: Any) -> Iterator[str]:
    """The HTML of every HTML widget inside `widget` (what ipywidgets puts in the page)."""
    import ipywidgets

    if isinstance(widget, ipywidgets.HTML | ipywidgets.HTMLMath):
        yield widget.value
    for child in getattr(widget, "children", ()):
        yield from widget_html(child)


class Surfaces:
    """The HTML every call shows (outcome, DataFrames, card and widget values) and the
    one-line errors of the calls that failed."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.html: list[str] = []
        self.errors: list[str] = []

    def keep(self, shown: Any) -> Any:
        """Every HTML `shown` renders: its bundle, its tables' DataFrames, a card's
        header, status and final outcome, a widget's HTML values."""
        if shown is None:
            return None
        card = getattr(shown, "card", None)
        if card is not None:  # a pending outcome: its card as the notebook shows it
            self.html += list(widget_html(card.widget))
            if card.outcome is not None:
                self.keep(card.outcome)
            return shown
        bundle = shown._repr_mimebundle_()
        self.html.append(bundle.get("text/html", ""))
        for name in getattr(shown, "tables", {}) or {}:
            self.html.append(shown.frame(name)._repr_html_())
        found = getattr(shown, "widget", None)
        if found is not None and hasattr(found, "pick"):  # the catalogue's picker
            self.html.append(found.table.value)
            for row in found.rows:
                found.pick(row["name"])
                self.html.append(found.detail.value)
        return shown

    def line(self, magic: str, line: str) -> Any:
        try:
            return self.keep(self.shell.run_line_magic(magic, line))
        except UsageError as error:
            self.errors.append(str(error))
            return None

    def answered(self, pending: Any, choice: str = "deny") -> Any:
        """A pending outcome's card answered ("deny", "approve" or "durable": approved for
        the project), and the card as it then reads."""
        card = getattr(pending, "card", None)
        if card is None:
            return pending
        if choice == "deny":
            card.deny()
        else:
            card.approve(**({"durable": True} if choice == "durable" else {}))
        return self.keep(pending)


def visit_every_surface(shell: Any, seen: Surfaces, deck_id: str) -> None:
    """Each Projects and Design surface once, Design after consent (the consent card
    first, then a grant card and a plan card, both denied)."""
    seen.line("project", "info")
    seen.line("project", 'search "retention" -n 5')
    seen.line("project", "read data-retention-policy.md")
    seen.line("project", "read no-such-doc.md")
    seen.line("design", "trace on")
    seen.line("design", "list")
    seen.line("design", "list --full")
    seen.line("design", "list_design_systems")
    seen.line("design", "get_claude_design_prompt")
    shell.user_ns.update(deck=deck_id, files=[{"path": "slides/99-x.html", "data": SLIDE}])
    seen.line("design", "list_projects")
    seen.line("design", "get_project project_id=$deck")
    seen.line("design", "list_files project_id=$deck")
    seen.line("design", "read_file project_id=$deck path=index.html")
    seen.line("design", "read_file project_id=$deck path=no-such-file.html")
    seen.answered(seen.line("design", "write_files project_id=$deck files=$files"))
    shell.user_ns["writes"] = ["slides/99-x.html"]
    seen.answered(seen.line("design", "finalize_plan project_id=$deck writes=$writes"))
    seen.line("design", "status")
    seen.line("design", "trace")
    seen.line("design", "trace --curl")
    seen.line("design", "trace off")
    seen.line("project", "sync pulled --pull --dry-run")
    seen.answered(seen.line("project", "sync pulled --pull"))


def consent_and_deck(shell: Any) -> str:
    """Consent given through its card (the service still clean); the deck project's id."""
    pending = shell.run_line_magic("design", "consent")
    if getattr(pending, "card", None) is not None:
        pending.card.approve()
    listed = shell.run_line_magic("design", "list_projects")
    return next(p["id"] for p in listed.data if p["name"] == DECK)


def passes(url: str) -> list[tuple[str, tuple[str, ...]]]:
    """Every payload at once, then each on its own (a short one fits where a name or a
    path has a length limit), each with paths tainted and with paths clean."""
    each = [(all_payloads(url), keep) for keep in ((), PATH_KEYS)]
    return each + [(payload, keep) for payload in payloads(url).values()
                   for keep in ((), PATH_KEYS)]


def pages_of(fragments: list[str], size: int = 1_000_000) -> list[str]:
    """The distinct fragments, in pages of about `size` characters."""
    pages: list[list[str]] = [[]]
    filled = 0
    for fragment in dict.fromkeys(fragments):
        if filled > size:
            pages.append([])
            filled = 0
        pages[-1].append(fragment)
        filled += len(fragment)
    return [page_of(page) for page in pages]


def test_every_notebook_surface_of_a_hostile_service_runs_nothing_and_loads_nothing(
        shell, reference_service, chromium, tmp_path, loopback_beacon):
    deck_id = consent_and_deck(shell)
    seen = Surfaces(shell)
    spot = loopback_beacon
    for payload, keep in passes(spot.url):
        set_hostile(reference_service.base_url, payload, keep=keep)
        visit_every_surface(shell, seen, deck_id)
    # a foreign folder synced: file names and content carry payloads (a name holds
    # no "/", so its payload fetches nothing: it only tries to run)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "<img src=x onerror=window.__pwned=1>.md").write_text(
        all_payloads(spot.url))
    (foreign / "notes.md").write_text(all_payloads(spot.url))
    seen.line("project", "sync foreign --to foreign/ --dry-run")
    seen.answered(seen.line("project", "sync foreign --to foreign/"))
    assert "&lt;img src=x onerror=window.__pwned=1&gt;.md" in "".join(seen.html)
    # a grant approved on a card that names the project: the status then names it
    set_hostile(reference_service.base_url, payloads(spot.url)["onerror"])
    granted = seen.line("design", "write_files project_id=$deck files=$files")
    seen.answered(granted, "durable")
    status = seen.line("design", "status")
    set_hostile(reference_service.base_url, None)
    escaped = html.escape(payloads(spot.url)["onerror"])
    assert escaped in status._repr_mimebundle_()["text/html"]
    shown = "".join(seen.html)
    # the payloads did reach what a person sees (escaped), each of them
    for name, payload in payloads(spot.url).items():
        assert html.escape(payload) in shown, name
    assert "/script')</script>" in " ".join(seen.errors)  # errors echo them as text
    rendered = render(chromium, pages_of(seen.html), spot)
    assert rendered.hits == []
    assert set(rendered.pwned) == {None}
    assert rendered.navigated == []
    assert rendered.js_links == 0
    assert rendered.requested == []


def test_tool_names_with_payloads_are_refused_and_the_refusal_is_escaped(
        shell, reference_service, chromium):
    seen = Surfaces(shell)
    clean = shell.run_line_magic("design", "list --full")
    assert "refused_names" not in clean.data
    with beacon() as spot:
        set_hostile(reference_service.base_url, all_payloads(spot.url), names=True)
        listed = seen.line("design", "list --full")
        set_hostile(reference_service.base_url, None)
        # every tool is refused for its name, and the outcome says so (nothing silent)
        assert listed.tables["catalogue"] == []
        assert listed.data["refused_names"] == len(clean.data["operations"])
        assert listed.notice is not None
        rendered = render(chromium, [page_of(seen.html + [html.escape(e)
                                                          for e in seen.errors])], spot)
    assert rendered.hits == [] and rendered.pwned == [None]


def test_the_same_payloads_unescaped_do_reach_the_beacon(chromium):
    """The control: each payload put into a page as it is runs script or loads from the
    beacon (all but the Markdown image, which needs a Markdown renderer)."""
    spot: Beacon
    with beacon() as spot:
        each = payloads(spot.url)
        rendered = render(chromium, [page_of([payload]) for payload in each.values()], spot)
    reached = {hit.strip("/").removesuffix("-image") for hit in rendered.hits}
    assert reached >= set(each) - {"markdown"}
    assert 1 in rendered.pwned
    assert rendered.js_links == 1
