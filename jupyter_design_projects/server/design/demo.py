"""The demo Design data `--seed demo` stores: two projects, their files and members, two
design systems (data only; `design_store.seed_demo` writes it)."""

from __future__ import annotations

import uuid
from typing import Any

from ..context import DEMO_USER_EMAIL

#: the namespace the demo's stable ids are derived from
DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")


def demo_id(name: str) -> str:
    return str(uuid.uuid5(DEMO_NAMESPACE, name))


DECK_ID = demo_id("project:Quarterly Review Deck")
PARTNER_ID = demo_id("project:Partner Launch Kit")
DEFAULT_SYSTEM_ID = demo_id("system:Acme Default")
DARK_SYSTEM_ID = demo_id("system:Acme Night")

SYSTEMS: list[dict[str, Any]] = [
    {"id": DEFAULT_SYSTEM_ID, "name": "Acme Default", "is_default": True,
     "tokens": {"color.primary": "#1f4e79", "color.accent": "#f2a541",
                "color.background": "#ffffff", "color.text": "#1b1f24",
                "font.heading": "Inter, sans-serif", "font.body": "Source Serif, serif",
                "radius": "6px", "spacing.unit": "8px"}},
    {"id": DARK_SYSTEM_ID, "name": "Acme Night", "is_default": False,
     "tokens": {"color.primary": "#7fb3e6", "color.accent": "#f2a541",
                "color.background": "#11161c", "color.text": "#e8edf2",
                "font.heading": "Inter, sans-serif", "font.body": "Inter, sans-serif",
                "radius": "4px", "spacing.unit": "8px"}},
]

_STYLE = ("<style>body{font-family:Inter,sans-serif;background:#ffffff;color:#1b1f24;"
          "margin:0;padding:48px}h1{color:#1f4e79}h2{color:#1f4e79}"
          ".kpi{display:inline-block;margin:16px;padding:16px;border-radius:6px;"
          "background:#f2a541}</style>")


def _slide(title: str, body: str) -> str:
    return (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>"
            f"{_STYLE}<script src=\"../support.js\"></script></head>\n<body>\n{body}\n"
            "</body></html>\n")


DECK_FILES = {
    "index.html": (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Quarterly Review Q3"
        f"</title>{_STYLE}</head>\n<body>\n<h1>Quarterly Review: Q3</h1>\n<ol>\n"
        "<li><a href=\"slides/01-title.html\">Title</a></li>\n"
        "<li><a href=\"slides/02-agenda.html\">Agenda</a></li>\n"
        "<li><a href=\"slides/03-metrics.html\">Metrics</a></li>\n</ol>\n</body></html>\n"),
    "slides/01-title.html": _slide(
        "Q3 Review", "<h1>Quarterly Review: Q3</h1>\n<p>Acme Research, product and platform"
        " teams</p>\n<p>Presented by the planning group</p>"),
    "slides/02-agenda.html": _slide(
        "Agenda", "<h2>Agenda</h2>\n<ul><li>Highlights of the quarter</li><li>Metrics and"
        " targets</li><li>Risks and asks</li><li>Plan for Q4</li></ul>"),
    "slides/03-metrics.html": _slide(
        "Metrics", "<h2>Metrics</h2>\n<div class=\"kpi\">Active teams: 42</div>\n"
        "<div class=\"kpi\">Weekly notebooks run: 18,300</div>\n"
        "<div class=\"kpi\">Median time to insight: 3.2 days</div>"),
    "support.js": "// Slide navigation: arrow keys move between slides.\n"
                  "document.addEventListener('keydown', function (e) {\n"
                  "  if (e.key === 'ArrowRight') { history.forward(); }\n"
                  "  if (e.key === 'ArrowLeft') { history.back(); }\n});\n",
}

PARTNER_FILES = {
    "index.html": (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Partner Launch Kit"
        "</title></head>\n<body>\n<h1>Partner Launch Kit</h1>\n<p>Co-marketing assets for the"
        " Globex launch. Shared with Acme Research.</p>\n</body></html>\n"),
    "assets/brief.md": "# Launch brief\n\nAudience: data teams at partner companies.\n"
                       "Launch date: to be confirmed with Globex.\n",
}

PROJECTS: list[dict[str, Any]] = [
    {"id": DECK_ID, "name": "Quarterly Review Deck", "type": "slides",
     "design_system_id": DEFAULT_SYSTEM_ID, "grant_eligible": True, "can_edit": True,
     "sharing_scope": "org", "link_permission": "view", "origin_org": None,
     "files": DECK_FILES,
     "members": [(DEMO_USER_EMAIL, "owner"), ("maria.chen@acme-research.example", "editor"),
                 ("li.wei@acme-research.example", "viewer")]},
    {"id": PARTNER_ID, "name": "Partner Launch Kit", "type": "prototype",
     "design_system_id": None, "grant_eligible": False, "can_edit": True,
     "sharing_scope": "link", "link_permission": "edit", "origin_org": "Globex Partners",
     "files": PARTNER_FILES,
     "members": [("sam.okafor@globex.example", "owner"), (DEMO_USER_EMAIL, "editor")]},
]


def account_uuid(email: str) -> str:
    """The stable account id the reference service gives an email address."""
    return str(uuid.uuid5(DEMO_NAMESPACE, "account:" + email.lower()))
