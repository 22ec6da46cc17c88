"""The sign-in, step by step, as values and words: what each step of a sign-in recorded
(discovery, the authorize URL, the code exchange, a refresh and why, a sign-out, a
failure) and the status they add up to, with the rules that keep every secret out.

Pure: the clock comes in as `now_ms`. A step holds only what may be shown: the
authorize URL goes through `redacted_authorize_url` (state and code_challenge
shortened, any code or verifier dropped), never a token, code or verifier; a value
from the service is cut to `FIELD_CHARS` (and rendered escaped by whoever draws it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, urlsplit

#: why a token was refreshed, in words (the `why` of a refresh step)
WHY: Mapping[str, str] = {
    "after_401": "the service answered 401 to the token in use",
    "expiring": "the token was about to expire",
    "scope_expansion": "adding the Projects scopes (first Projects call)",
    "asked": "asked by you (Refresh now)",
}
#: what each kind of step is called in the list of steps
KINDS: Mapping[str, str] = {
    "discovery": "discovery",
    "authorize_url": "authorization URL",
    "code_exchange": "code exchange",
    "refresh": "refresh",
    "adopted": "adopted from another process",
    "sign_out": "sign-out",
    "revoke": "revocation at the service",
}
#: query parameters of an authorize URL shown only shortened
SHORTENED_PARAMS = frozenset({"state", "code_challenge"})
#: query parameters never shown at all (an authorize URL has none; a pasted one might)
DROPPED_PARAMS = frozenset({"code", "code_verifier", "access_token", "refresh_token",
                            "id_token", "token", "owner_proof"})
#: how much of a shortened value stays visible
SHOWN_PREFIX = 6
#: the longest value of the service's shown in a step's fields
FIELD_CHARS = 1000
#: how many steps a record keeps (the oldest go first)
STEPS_KEPT = 50


def shortened(value: str) -> str:
    """The first few characters and the length: enough to tell two apart, not to use."""
    if len(value) <= SHOWN_PREFIX:
        return "…" * min(len(value), 1) + f"({len(value)} chars)"
    return f"{value[:SHOWN_PREFIX]}…({len(value)} chars)"


def redacted_authorize_url(url: str) -> str:
    """`url` with state and code_challenge shortened and any code, verifier or token
    parameter dropped; the rest of the query (client, redirect, scopes) as it was."""
    parts = urlsplit(url)
    kept = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in DROPPED_PARAMS:
            continue
        shown = shortened(value) if key in SHORTENED_PARAMS else quote(value, safe=":/")
        kept.append(f"{quote(key)}={shown}")
    return parts._replace(query="&".join(kept), fragment="").geturl()


def cut(value: object, limit: int = FIELD_CHARS) -> str:
    """A value from the service as one short line of text."""
    if isinstance(value, (list, tuple)):
        text = ", ".join(str(v) for v in value)
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclasses.dataclass(frozen=True)
class Step:
    """One thing the sign-in did: when (ms since the epoch), what, whether it worked,
    and what may be shown about it (`fields`: name → short text)."""

    at_ms: int
    kind: str
    ok: bool
    summary: str
    fields: tuple[tuple[str, str], ...] = ()
    #: why it failed (an error's reason), when it did
    reason: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"at": iso(self.at_ms), "kind": self.kind, "ok": self.ok,
                "summary": self.summary, "fields": dict(self.fields),
                "reason": self.reason}


@dataclasses.dataclass(frozen=True)
class AuthStatus:
    """The sign-in as it stands at `now_ms`: the credential held (never its tokens), and
    the steps that led here, oldest first."""

    now_ms: int
    signed_in: bool
    client_id: str
    store: str
    scopes_held: tuple[str, ...] = ()
    #: the scopes the last token request asked for (login, refresh or expansion)
    scopes_asked: tuple[str, ...] = ()
    expires_at_ms: int | None = None
    has_refresh_token: bool = False
    steps: tuple[Step, ...] = ()
    #: the discovery answers fetched for this status (also among `steps`)
    discovery: tuple[Step, ...] = ()
    #: set when the credential could not be read (the store's reason)
    store_problem: str | None = None

    @property
    def can_refresh(self) -> bool:
        return self.signed_in and self.has_refresh_token

    @property
    def last_refresh(self) -> Step | None:
        return next((s for s in reversed(self.steps)
                     if s.kind in ("refresh", "adopted")), None)

    @property
    def failures(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if not s.ok)

    def expiry_line(self) -> str:
        if self.expires_at_ms is None:
            return "Expires: —"
        return (f"Expires: {iso(self.expires_at_ms)} "
                f"({time_left(self.expires_at_ms, self.now_ms)})")

    def refresh_note(self) -> str | None:
        """Why there is no Refresh now (None when there is one)."""
        if not self.signed_in:
            return None
        if not self.has_refresh_token:
            return ("No refresh token: the service gave none with this credential, so it "
                    "cannot be refreshed; sign in again when it expires.")
        return None

    def to_dict(self) -> dict[str, object]:
        last = self.last_refresh
        return {
            "signed_in": self.signed_in, "client_id": self.client_id, "store": self.store,
            "store_problem": self.store_problem,
            "scopes_held": list(self.scopes_held), "scopes_asked": list(self.scopes_asked),
            "expires_at": iso(self.expires_at_ms) if self.expires_at_ms is not None else None,
            "expires_in_s": (None if self.expires_at_ms is None
                             else (self.expires_at_ms - self.now_ms) // 1000),
            "has_refresh_token": self.has_refresh_token,
            "last_refresh": last.to_dict() if last else None,
            "discovery": [s.to_dict() for s in self.discovery],
            "steps": [s.to_dict() for s in self.steps],
        }


def iso(ms: int) -> str:
    """A time in ms since the epoch as UTC, to the second. Pure arithmetic (civil from
    days, H. Hinnant): no clock module in core/."""
    days, seconds = divmod(ms // 1000, 86_400)
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    hours, rest = divmod(seconds, 3600)
    return f"{year:04d}-{month:02d}-{day:02d} {hours:02d}:{rest // 60:02d}:{rest % 60:02d} UTC"


def time_left(expires_at_ms: int, now_ms: int) -> str:
    """'in 59 min 58 s', 'in 12 s', 'expired 3 min 2 s ago'."""
    delta = (expires_at_ms - now_ms) // 1000
    span = _span(abs(delta))
    return f"in {span}" if delta > 0 else ("expires now" if delta == 0 else
                                           f"expired {span} ago")


def _span(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def step_line(step: Step) -> str:
    """One step on one line: time, kind, result, summary, reason."""
    mark = "ok" if step.ok else "FAILED"
    reason = f" ({step.reason})" if step.reason else ""
    return (f"{iso(step.at_ms)[11:19]}  {KINDS.get(step.kind, step.kind)}: {mark} — "
            f"{step.summary}{reason}")


def lines(status: AuthStatus, sign_in_hint: str | None = None) -> list[str]:
    """The status as plain text, one fact a line; `sign_in_hint` words how to sign in."""
    out: list[str] = []
    if status.store_problem:
        out.append(f"The credential store cannot be read: {status.store_problem}")
    if not status.signed_in:
        out.append("Not signed in." + (f" Next: {sign_in_hint}." if sign_in_hint else ""))
    else:
        out.append(f"Signed in (client {status.client_id}), credential in {status.store}.")
        out.append(status.expiry_line())
        out.append("Scopes held: " + (" ".join(status.scopes_held) or "none"))
    if status.scopes_asked:
        out.append("Scopes asked for (last request): " + " ".join(status.scopes_asked))
    last = status.last_refresh
    if last is not None:
        out.append(refresh_line(last))
    elif status.signed_in:
        out.append("Last refresh: none in this session.")
    note = status.refresh_note()
    if note:
        out.append(note)
    for step in status.discovery:
        out.append(f"Discovery: {step.summary}")
        out.extend(f"  {k}: {v}" for k, v in step.fields)
    out.append("Steps:" if status.steps else "Steps: none yet in this session.")
    for step in status.steps:
        out.append("  " + step_line(step))
        out.extend(f"      {k}: {v}" for k, v in step.fields)
    return out


def refresh_line(step: Step) -> str:
    """The last refresh: when, why, and the expiry it gave (or why it failed)."""
    expires = dict(step.fields).get("expires")
    result = (f"; new expiry {expires}" if step.ok and expires else
              "" if step.ok else f" (failed: {step.reason})")
    return f"Last refresh: {iso(step.at_ms)} — {step.summary}{result}"


def fields_of(data: Mapping[str, object], names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The named fields of a metadata document that it has, each cut short."""
    return tuple((n, cut(data[n])) for n in names if n in data and data[n] is not None)
