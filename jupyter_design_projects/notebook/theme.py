"""The colours of every notebook rendering (outcomes, errors, meters, cards), as
JupyterLab theme CSS variables with a light-theme fallback for frontends that define none
(classic Notebook, nbconvert's HTML, a GitHub preview). Declared once here."""

from __future__ import annotations

#: role -> CSS colour; JupyterLab's light and dark themes both define these variables
COLOURS = {
    "error": "var(--jp-error-color1, #c62828)",
    "title": "var(--jp-brand-color1, #1f4e79)",
    #: a refusal or a failure's message: a warning
    "notice": "var(--jp-warn-color0, #6d4c41)",
    #: a routine note (a staged slide, an extended sign-in, a fallback): not a warning
    "info": "var(--jp-ui-font-color1, #424242)",
    "muted": "var(--jp-ui-font-color2, #757575)",
    "ok": "var(--jp-success-color1, #2e7d32)",
    "warn": "var(--jp-warn-color1, #f9a825)",
    "full": "var(--jp-error-color1, #c62828)",
    "track": "var(--jp-layout-color3, #e0e0e0)",
    "marker": "var(--jp-ui-font-color1, #555)",
    "border": "var(--jp-border-color1, #9e9e9e)",
    #: the JSON tree's keys, strings and numbers, as the code editor colours them
    "json-key": "var(--jp-mirror-editor-property-color, #0055aa)",
    "json-string": "var(--jp-mirror-editor-string-color, #ba2121)",
    "json-number": "var(--jp-mirror-editor-number-color, #008000)",
    "json-literal": "var(--jp-mirror-editor-keyword-color, #008000)",
}


def colour(role: str) -> str:
    return COLOURS[role]
