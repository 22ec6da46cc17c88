"""The colours of every notebook rendering (outcomes, errors, meters, cards), declared once
here. Text colours are the extension's own CSS variables (`--jdp-<role>`), each with a
light and a dark value that reads at 4.5:1 or more on that theme's output backgrounds
(WCAG 2.1 1.4.3; `tests/core/test_contrast.py` checks every pair): the labextension's
stylesheet and the docs' dark mode set them from `palette_css`, and a frontend that sets
none (classic Notebook, nbconvert's HTML, a GitHub preview) gets the light value. The
rest (bars, tracks, borders) are JupyterLab theme variables with a light fallback."""

from __future__ import annotations

#: text role -> (light value, dark value)
PALETTE = {
    "error": ("#b71c1c", "#ef9a9a"),
    "title": ("#0d47a1", "#90caf9"),
    #: a refusal or a failure's message: a warning
    "notice": ("#bf360c", "#ffb74d"),
    #: a routine note (a staged slide, an extended sign-in, a fallback): not a warning
    "info": ("#424242", "#e0e0e0"),
    "muted": ("#616161", "#bdbdbd"),
    "ok": ("#1b5e20", "#81c784"),
    #: the JSON tree's keys, strings and numbers
    "json-key": ("#05a", "#90caf9"),
    "json-string": ("#a31515", "#f8bbd0"),
    "json-number": ("#161", "#b5cea8"),
    "json-literal": ("#7b1fa2", "#e1bee7"),
}

#: the backgrounds text is read on: JupyterLab's layout colours 0–2 and the docs' page
BACKGROUNDS = {"light": ("#ffffff", "#eeeeee"), "dark": ("#111111", "#212121", "#424242")}

#: non-text roles: JupyterLab theme variables with a light-theme fallback
SHAPES = {
    "warn": "var(--jp-warn-color1, #f9a825)",
    "full": "var(--jp-error-color1, #c62828)",
    "track": "var(--jp-layout-color3, #e0e0e0)",
    "marker": "var(--jp-ui-font-color1, #555)",
    "border": "var(--jp-border-color1, #9e9e9e)",
}

COLOURS = {**{role: f"var(--jdp-{role}, {light})" for role, (light, _dark) in PALETTE.items()},
           **SHAPES}


def colour(role: str) -> str:
    return COLOURS[role]


def palette_css(dark: bool) -> str:
    """The `--jdp-<role>` declarations of one theme, one per line (for a stylesheet)."""
    return "\n".join(f"  --jdp-{role}: {pair[1] if dark else pair[0]};"
                     for role, pair in PALETTE.items())
