"""The grant watcher's test (spec §8): whether the service now holds a durable grant for a
project newer than the one a grant card was shown against, by the grants' RFC 3339
`created_at` stamps, read by pure arithmetic (core reads no clock and imports no
datetime)."""

from __future__ import annotations

import re
from collections.abc import Mapping


def grant_appeared(grants: Mapping[str, str], project_id: str, baseline: str | None) -> bool:
    """The grant watcher's test (spec §8): does the service now hold a grant for the project
    newer than `baseline`, the grant's `created_at` when the card was shown (None: there
    was none)? Unreadable timestamps never count as newer."""
    created = grants.get(project_id)
    if created is None:
        return False
    if baseline is None:
        return True
    now, then = _instant(created), _instant(baseline)
    return now is not None and then is not None and now > then


_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?"
                      r"(?:([Zz])|([+-])(\d{2}):(\d{2}))$")


def _instant(stamp: str) -> float | None:
    """An RFC 3339 timestamp as seconds since the epoch (UTC), or None. Pure arithmetic:
    core reads no clock and imports no datetime."""
    match = _RFC3339.match(stamp)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    shifted = year - (month <= 2)  # days from civil (H. Hinnant), 1970-01-01 = 0
    era = shifted // 400
    yoe = shifted - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    offset = 0
    if match.group(9):
        sign = 1 if match.group(9) == "+" else -1
        offset = sign * (int(match.group(10)) * 3600 + int(match.group(11)) * 60)
    fraction = float(match.group(7) or 0)
    return days * 86400 + hour * 3600 + minute * 60 + second + fraction - offset
