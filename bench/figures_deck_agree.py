"""Issue 42 item 6: the three renderings of each slide agree. For each slide of the two
licensed talks in tests/fixtures/talks/, in both built-in looks: its preview (the reference
service's own browser code, device scale 2), its PDF page (pypdfium2) and its reveal.js
screenshot (Chromium, 1280x720), compared pairwise by `tests/deck_staged.similarity`
(1 - the mean absolute difference of grey levels / 255, both pictures resized to 320x180).
The browser test `tests/browser/test_deck_agree.py` fails a slide under AGREE_MIN; this
prints the figures and writes them between the markers in docs/decks.md.
`python3 tasks.py bench deck_agree`."""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

from .context import ROOT, Context
from .report import Row

TALKS = ROOT / "tests" / "fixtures" / "talks"
TALK_FILES = {"rise-readme": "README.ipynb", "decorators": "Decorators.ipynb"}
DOC = ROOT / "docs" / "decks.md"
BEGIN, END = "<!-- deck-agree:begin -->", "<!-- deck-agree:end -->"
HEADER = ("| talk | look | slides | preview ↔ PDF: mean (least) | preview ↔ reveal.js | "
          "PDF ↔ reveal.js | least, slide |\n|---|---|---|---|---|---|---|")


def measured(browser, scratch: Path) -> list[tuple[str, str, list]]:
    from jupyter_design_projects.design.deck import Deck
    from tests.deck_staged import agreement

    found = []
    for talk, notebook in TALK_FILES.items():
        for theme in ("light", "dark"):
            folder = scratch / f"{talk}-{theme}"
            shutil.copytree(TALKS / talk, folder)
            deck = Deck(client=None, project_id="p")
            deck.use_theme(theme)
            deck.add_notebook(folder / notebook, code=True)
            found.append((talk, theme, agreement(deck, browser, folder, theme)))
    return found


def table(found: list[tuple[str, str, list]]) -> str:
    lines = [HEADER]
    for talk, theme, rows in found:
        cells = []
        for column in (1, 2, 3):
            scores = [row[column] for row in rows]
            cells.append(f"{statistics.mean(scores):.3f} ({min(scores):.3f})")
        worst = min(rows, key=lambda row: min(row[1:]))
        lines.append(f"| {talk} | {theme} | {len(rows)} | " + " | ".join(cells)
                     + f" | {min(worst[1:]):.3f}, `{Path(worst[0]).name}` |")
    return "\n".join(lines)


def write_block(text: str, doc: Path = DOC) -> None:
    old = doc.read_text(encoding="utf-8")
    start, end = old.index(BEGIN) + len(BEGIN), old.index(END)
    doc.write_text(old[:start] + "\n" + text + "\n" + old[end:], encoding="utf-8")


def deck_agree(ctx: Context) -> list[Row]:
    from playwright.sync_api import sync_playwright

    from jupyter_design_projects.design.deck import export as exporting
    from tests.deck_staged import AGREE_MIN

    from .report import git_head, machine

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=exporting.find_browser(),
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            found = measured(browser, ctx.scratch("deck-agree"))
        finally:
            browser.close()
    text = table(found)
    print("\n" + text + "\n")
    least = min(min(row[1:]) for _, _, rows in found for row in rows)
    if not ctx.quick:
        write_block(f"Measured by `python3 tasks.py bench deck_agree` at commit "
                    f"{git_head(ROOT)} on {machine()}.\n\n{text}")
    return [Row("the three renderings of each slide of 2 talks in 2 looks: least similarity "
                "(table in docs/decks.md)", f"{least:.3f}", target=f"≥ {AGREE_MIN}",
                met=least >= AGREE_MIN, command="deck_agree")]


FIGURES = {"deck_agree": deck_agree}
