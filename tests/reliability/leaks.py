"""The battery's one leak check: every live token (access, refresh, remote-session), in each
spelling it can take in text (raw, URL-encoded, form-encoded, JSON-escaped, HTML-escaped),
looked for in everything a case produced — the outcome (its data, str, repr, plain text,
HTML and tool_result block), the exception (str, repr, to_dict, its whole traceback with
every frame's locals, chained causes included), the HTTP trace, the captured log records,
and the captured stdout/stderr."""

from __future__ import annotations

import html
import json
import logging
import os
import traceback
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, quote_plus

#: shorter strings are not tokens (and would match by chance)
MIN_TOKEN_CHARS = 12


def spellings(token: str) -> set[str]:
    escaped = json.dumps(token)[1:-1]
    return {token, quote(token, safe=""), quote_plus(token), escaped,
            escaped.replace("/", "\\/"), html.escape(token)}


def _json(value: Any) -> str:
    try:
        return json.dumps(value, default=repr, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def exception_texts(error: BaseException) -> list[str]:
    """str, repr, fields and the traceback with locals (as %xmode Verbose shows it)."""
    texts = [str(error), repr(error)]
    to_dict = getattr(error, "to_dict", None)
    if callable(to_dict):
        texts.append(_json(to_dict()))
    texts.append("".join(traceback.TracebackException.from_exception(
        error, capture_locals=True).format()))
    return texts


def outcome_texts(outcome: Any) -> list[str]:
    """Every way a notebook or a script shows an outcome (Outcome, PendingOutcome,
    DesignOutcome, a plain result dict)."""
    if outcome is None:
        return []
    texts = [repr(outcome), _json(outcome) if isinstance(outcome, (dict, list)) else ""]
    try:
        texts.append(str(outcome))
    except Exception as exc:  # a pending outcome read too early raises: that text counts
        texts.extend(exception_texts(exc))
    for name in ("data", "error", "notice", "body"):
        try:
            value = getattr(outcome, name, None)
        except Exception as exc:
            texts.extend(exception_texts(exc))
            continue
        if isinstance(value, BaseException):
            texts.extend(exception_texts(value))
        elif value is not None:
            texts.append(_json(value))
    bundle = getattr(outcome, "_repr_mimebundle_", None)
    if callable(bundle):
        try:
            texts.append(_json(bundle()))
        except Exception as exc:
            texts.extend(exception_texts(exc))
    tool_result = getattr(outcome, "to_tool_result", None)
    if callable(tool_result):
        try:
            texts.append(_json(tool_result("toolu_reliability")))
        except Exception as exc:
            texts.extend(exception_texts(exc))
    return texts


def log_texts(records: Iterable[logging.LogRecord]) -> list[str]:
    texts = []
    for record in records:
        texts.append(record.getMessage())
        texts.append(repr(record.args))
        if record.exc_info and record.exc_info[1] is not None:
            texts.extend(exception_texts(record.exc_info[1]))
    return texts


class LeakScan:
    """Collects the live tokens of a case (a callable, so tokens rotated during the case are
    included) and fails the test if any spelling of one appears in what the case produced.
    Its repr never shows a token: a failing assertion prints where, not what."""

    def __init__(self, tokens: Callable[[], Iterable[str]]) -> None:
        self._tokens = tokens

    def __repr__(self) -> str:
        return "<LeakScan>"

    def _forms(self) -> list[tuple[int, str]]:
        forms = []
        for index, token in enumerate(sorted({t for t in self._tokens()
                                              if t and len(t) >= MIN_TOKEN_CHARS})):
            forms.extend((index, form) for form in spellings(token))
        assert forms, "the case has no live token to look for"
        return forms

    def check(self, *, outcome: Any = None, error: BaseException | None = None,
              trace: Any = None, records: Iterable[logging.LogRecord] = (),
              output: str = "", extra: Iterable[str] = ()) -> None:
        where: dict[str, list[str]] = {
            "outcome": outcome_texts(outcome),
            "error": exception_texts(error) if error is not None else [],
            "trace": [_json(trace)] if trace is not None else [],
            "log": log_texts(records),
            "output": [output],
            "extra": list(extra),
        }
        forms = self._forms()
        found = sorted({(part, index) for part, texts in where.items() for text in texts
                        for index, form in forms if form in text})
        if found and os.environ.get("JDP_LEAK_DEBUG"):
            for part, texts in where.items():
                for text in texts:
                    for index, form in forms:
                        if form in text:
                            at = text.index(form)
                            print("LEAK", part, index, text[max(0, at - 1500):at].replace(
                                form, "<TOKEN>"))
        assert not found, f"a live token appeared in: {found} (part, token number)"
