"""How the side panel's API shows what it could not read: a failure object
`{"error": kind, "message": one sentence naming the next step}` (docs/panel-api.md), and
the display rules every service-provided string passes before it is returned."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from typing import Any

from ..core.display import text_rule
from ..core.redaction import Secret, redact
from ..errors import (
    AuthError,
    CredentialStoreError,
    InvalidProjectsArgument,
    JdpError,
    NoAttachedProject,
    ProjectsAuthFailed,
    ProjectsTransportFailed,
    ScopeExpansionFailed,
    ServiceStartFailed,
    TransportError,
    guidance,
)

log = logging.getLogger(__name__)

STARTING = "service_starting"
UNREACHABLE = "service_unreachable"
NOT_SIGNED_IN = "not_signed_in"
NO_PROJECT = "no_attached_project"
OFF_BY_POLICY = "off_by_policy"

#: what a person does to sign in, in the panel's words
SIGN_IN_HERE = ("Next: click Sign in in this panel (or run %design login in a notebook).")
#: scope-expansion reasons that mean "sign in again"
_SIGN_IN_AGAIN = frozenset({"no_token", "no_refresh_token", "refresh_refused"})
#: the HTTP status of a failed answer, by kind (a part of `status` is always 200)
_STATUS = {STARTING: 503, "invalid_argument": 400, "not_found": 404, OFF_BY_POLICY: 403}
#: characters a body text keeps among the controls
_KEPT_CONTROLS = frozenset("\n\t")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})


def fail(kind: str, message: str) -> dict[str, str]:
    return {"error": kind, "message": message}


def starting() -> dict[str, str]:
    return fail(STARTING, "The offline reference service is starting; this panel updates "
                          "by itself when it is ready.")


def off_by_policy(tool: str, gate: str) -> dict[str, str]:
    """`tool` ("Design" or "Projects") is closed by `gate`: the panel neither polls it nor
    offers its buttons, and says which setting to change."""
    from ..settings import GATES

    state = "on" if gate == "essential_traffic_only" else "off"
    return {"error": OFF_BY_POLICY, "tool": tool, "setting": gate,
            "message": f"{tool} is off by policy: {gate} is {state} (the environment "
                       f"variable {GATES[gate]}, or c.DesignProjects.{gate} in the Jupyter "
                       "server's config). Change it and restart JupyterLab to use it here."}


def http_status(part: dict[str, Any]) -> int:
    """The HTTP status of an answer that is a failure object (502: the service's own)."""
    return _STATUS.get(part["error"], 502)


def failure(exc: BaseException, secrets: Iterable[Secret], base_url: str) -> dict[str, str]:
    """The failure object for an error met while reading from or acting on the service."""
    if isinstance(exc, ProjectsAuthFailed) and isinstance(exc.__cause__, AuthError):
        exc = exc.__cause__  # the sign-in guidance reads the credential error itself
    if isinstance(exc, NoAttachedProject):
        return fail(NO_PROJECT, "No Project is attached: set CLAUDE_PROJECT_UUID to the "
                                "Project's UUID in the environment that starts JupyterLab, "
                                "then restart it.")
    if isinstance(exc, ServiceStartFailed):
        return fail(exc.kind, f"The offline reference service did not start ({exc.reason}): "
                              "see reference-service.log in its data directory, then restart "
                              "JupyterLab.")
    if (isinstance(exc, (TransportError, ProjectsTransportFailed))
            and type(exc) in (TransportError, ProjectsTransportFailed)
            and guidance.is_connection_failure(exc)):
        return fail(UNREACHABLE, f"No answer from {base_url}: is the service running?")
    if isinstance(exc, ScopeExpansionFailed):
        # "no_token" with a detail is a store that could not be read, not a missing sign-in
        said = redact(guidance.with_next(exc.message, exc.next_step), secrets)
        if exc.reason in _SIGN_IN_AGAIN and (not exc.detail or exc.reason != "no_token"):
            return fail(NOT_SIGNED_IN, f"{redact(exc.message, secrets)} {SIGN_IN_HERE}")
        return fail(exc.kind, said)
    if isinstance(exc, AuthError):
        return fail(NOT_SIGNED_IN, f"Not signed in, or the sign-in has expired. {SIGN_IN_HERE}")
    if isinstance(exc, InvalidProjectsArgument):
        return fail("invalid_argument", redact(exc.message, secrets))
    if isinstance(exc, (JdpError, CredentialStoreError)):
        next_step = exc.next_step
        if next_step and "login_begin" in next_step:  # a Python call means nothing here
            return fail(exc.kind, f"{redact(exc.message, secrets)} {SIGN_IN_HERE}")
        return fail(exc.kind, redact(guidance.with_next(exc.message, next_step), secrets))
    log.error("jupyter-design-projects panel: unexpected %s", type(exc).__name__)
    return fail("internal_error", f"Unexpected {type(exc).__name__} in the Jupyter server "
                                  "extension: see the Jupyter server's log.")


def is_failure(part: object) -> bool:
    return isinstance(part, dict) and isinstance(part.get("error"), str)


def shown(value: Any, max_chars: int = 120) -> str:
    """A short service-provided string (a name, a path) as the panel may show it, or the
    display rule it broke."""
    broken = text_rule(value, max_chars)
    return str(value) if broken is None else f"[not shown: {broken}]"


def body_text(value: Any) -> str:
    """Long service-provided text (instructions, a doc, a search hit) with every control,
    format (bidi, zero-width), private-use and unassigned character removed; newlines and
    tabs stay. The panel renders it as text, never as HTML."""
    if not isinstance(value, str):
        return ""
    return "".join(c for c in value if c in _KEPT_CONTROLS
                   or unicodedata.category(c) not in _REFUSED_CATEGORIES)
