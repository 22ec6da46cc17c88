"""What a refusal says: each reason code the permission decision (`core.permissions`) and
the Design client refuse with, as the sentence that names the next step, and the reason of
the service's own refusal of a plan token, read back from its answer (PROTOCOL §3)."""

from __future__ import annotations

import re
from typing import Any

from .cards import APPROVE, APPROVE_FOR_PROJECT, DENY
from .plans import CARD_LIMIT, MAX_TARGETS, SHOWN_PATH_CHARS

#: how the service refuses a plan token (PROTOCOL §3): a tool error whose text begins so
_PLAN_REFUSED = re.compile(r"Plan token refused \(([a-z_]+)\)")
#: the refusals that say the service no longer holds the plan: the client forgets it and
#: decides the call again (once)
PLAN_GONE = frozenset({"unknown", "spent", "expired"})


def plan_refusal(text: Any) -> str | None:
    """The reason of the service's plan-token refusal `text` (missing, unknown, expired,
    spent, other_project, not_covered …), or None when the text is not one."""
    if not isinstance(text, str):
        return None
    match = _PLAN_REFUSED.match(text)
    return match.group(1) if match else None



#: what each refusal means and what to do next, by reason code (the code stays the
#: error's `reason`; the sentence becomes its message)
REFUSALS = {
    "consent_not_given": "you have not given consent for agents to use your Design "
    "projects, and no approval card can be shown here. Give consent, then run the call "
    "again.",
    "nobody_can_approve": "it needs a person's approval, and nobody can answer an "
    "approval card here (no notebook frontend, or stdin not allowed, as under nbclient or "
    f'papermill). Run it where a person can click "{APPROVE}"; ordinary writes to a '
    f'project approved once with "{APPROVE_FOR_PROJECT}" then need no card, even here.',
    "denied_on_card": f'you chose "{DENY}" on its approval card, so nothing was sent. Run '
    "the call again to be asked again.",
    "unsafe_project_id": "its project_id cannot be shown exactly on an approval card "
    "(letters, digits, '_' and '-' only, at most 128). Pass the id as list_projects gives it.",
    "unsafe_detail": "an argument cannot be shown exactly on an approval card (invisible, "
    "control or look-alike characters, mixed scripts, or too long). Correct it and run "
    "the call again.",
    "targets_not_enumerable": "its target paths cannot be listed, so no plan or project "
    "grant covers it: it can be approved only as one call, sent as written, and that needs "
    "a plan token of its own or a durable grant for the project (approve an ordinary write "
    f'"{APPROVE_FOR_PROJECT}" first). Give the paths as a list, or pass a plan token.',
    "scope_not_paths": 'a plan must list its paths (scope "paths"); a project-wide scope is '
    "never approved. List the writes and deletes in finalize_plan.",
    "too_many_writes": "an approval card lists at most 20 writes. Split the change into "
    "batches of at most 20 writes.",
    "too_many_deletes": "an approval card lists at most 20 deletes. Split the change into "
    "batches of at most 20 deletes.",
    "too_many_targets": f"a call names at most {MAX_TARGETS} paths in each list (the "
    f"service refuses more). Split the change into batches of at most {MAX_TARGETS}.",
    "card_too_long": f"its approval card would be longer than {CARD_LIMIT:,} characters, and "
    "cards are never truncated. Split the change into smaller batches or use shorter paths.",
    "reserved_target": "CLAUDE.md and .claude/ are reserved at any depth and in any case: "
    "no plan or project grant covers them, so each batch naming one is put to a person "
    "as one call.",
    "grant_needs_main_context": "a durable project grant is used or given only in the main "
    "context, not in a sub-agent. Run the write from the main context.",
    "no_plan_operation": "approving it registers a plan, and this client's operation table "
    "has no plan operation (one approved as Approval.PLAN, such as finalize_plan).",
    "plan_mismatch": "the service's plan did not match what the card showed, so it was not "
    "used. Run the call again for a fresh plan.",
    "path_not_a_string": "a path is not a string. Give every path as a string.",
    "path_empty": "a path is empty. Give project-relative paths such as slides/01.html.",
    "path_too_long": f"a path is longer than the {SHOWN_PATH_CHARS:,} characters an "
    "approval card shows. Use shorter paths.",
    "path_control_character": "a path contains a control character. Remove it.",
    "path_invisible_character": "a path contains an invisible, bidi, private-use or "
    "unassigned character, which a card cannot show. Remove it.",
    "path_not_a_letter": "a path contains a character of another script that is not a "
    "letter, mark or digit (a look-alike of '.', '/' or a space). Use letters and ASCII "
    "punctuation.",
    "path_not_normalised": "a path contains a compatibility form (fullwidth, ligature …) "
    "of a letter, which reads as another path. Write the plain letter.",
    "path_mixed_script": "a path segment mixes look-alike scripts (Latin with Cyrillic or "
    "Greek …), so it can pass for another path. Write each segment in one script.",
    "path_whole_script_confusable": "a path segment is written in letters of another "
    "script that read as Latin ones. Write it in Latin letters.",
    "path_backslash": "a path contains a backslash. Separate segments with '/'.",
    "path_absolute": "a path is absolute. Use a project-relative path (no leading '/').",
    "path_empty_segment": "a path has an empty segment ('//' or a trailing '/'). Remove it.",
    "path_traversal": "a path contains '..'. Use paths inside the project.",
    "path_edge_space": "a path segment starts or ends with a space. Remove the space.",
    "path_reserved": "CLAUDE.md and .claude/ are reserved at any depth and in any case: "
    "no plan or project grant covers them, so each batch naming one is put to a person "
    "as one call.",
}


def explain(reason: str) -> str:
    """The sentence for a refusal's reason code, naming the next step."""
    return REFUSALS.get(reason, f"it was refused ({reason}).")
