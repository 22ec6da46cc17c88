"""One Design call as the person or the model asked for it (never the augmented form),
what a call comes to, and the outcome of a call the rules stopped."""

from __future__ import annotations

import dataclasses

from ..core.refusals import explain
from ..errors import PermissionRefused
from ..errors.remedy import Remedy
from .approval import DesignOutcome, PendingApproval
from .catalogue import PERSON

#: what a call comes to: its outcome, or a card waiting for a person
Result = DesignOutcome | PendingApproval


@dataclasses.dataclass(frozen=True)
class Call:
    """One Design call as the person or the model asked for it (never the augmented form)."""

    operation: str
    arguments: dict
    agent_key: str = PERSON
    consent_asked: bool = False
    grant_retried: bool = False
    #: the service said a plan this client made is gone, and the call was decided again
    plan_retried: bool = False
    #: the journal entry the caller wrote ahead for this call (and settles itself)
    journaled: int | None = None


def refused(operation: str, reason: str, remedy: Remedy | None = None,
            prefix: str = "") -> DesignOutcome:
    """The outcome of a call the rules stopped: `reason` a code, the message in words."""
    error = PermissionRefused(operation, reason, prefix + explain(reason), remedy)
    return DesignOutcome.failed(operation, error)
