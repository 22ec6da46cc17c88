"""What a Design call hands back: a finished `DesignOutcome`, or a `PendingApproval` whose
`ApprovalRequest` (declared in `core.cards`) says exactly what the approval card shows."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import traceback
from collections.abc import Mapping
from typing import Any

from ..core import display
from ..core.cards import ApprovalRequest
from ..core.design_operations import DesignOperation
from ..core.permissions import Facts, card_of, grant_card_of
from ..core.plans import CARD_LIMIT
from ..core.results import MappedResult, from_error, to_tool_result
from ..errors import JdpError


@dataclasses.dataclass(frozen=True, eq=False)
class PendingApproval:
    """A call waiting for a person; `DesignClient.resume` continues it."""

    request: ApprovalRequest
    operation: str
    arguments: dict
    agent_key: str = "notebook"
    #: the consent card already came once for this call (a second needs_consent fails)
    consent_asked: bool = False
    #: a grant card's baseline: the project's grant `created_at` when it was shown (None:
    #: none); the grant watcher waits for a newer one
    grant_baseline: str | None = None
    #: the arguments as the card showed them; `resume` runs these, whatever happens to
    #: `arguments` (a dict the caller may touch) in the meantime
    _sealed: str = dataclasses.field(default="", repr=False)

    @classmethod
    def seal(cls, request: ApprovalRequest, operation: str, arguments: dict, *,
             agent_key: str = "notebook", consent_asked: bool = False,
             grant_baseline: str | None = None) -> PendingApproval:
        sealed = json.dumps(arguments)
        return cls(request, operation, json.loads(sealed), agent_key, consent_asked,
                   grant_baseline, sealed)

    def sealed_arguments(self) -> dict:
        return json.loads(self._sealed) if self._sealed else json.loads(json.dumps(self.arguments))


class DesignOutcome:
    """A finished Design call: mapped content blocks, or the error that stopped it."""

    #: the answer of the client's `list` (`catalogue.CatalogueOutcome`), not a service's
    is_catalogue = False

    def __init__(self, operation: str, mapped: MappedResult,
                 error: JdpError | None = None, row: DesignOperation | None = None) -> None:
        self.operation = operation
        self.blocks = mapped.blocks
        self.is_error = mapped.is_error
        self.error = error
        #: the operation's row in the table of the client that ran it (None: not in it)
        self.row = row
        self._mapped = mapped

    @classmethod
    def failed(cls, operation: str, error: JdpError) -> DesignOutcome:
        # the outcome keeps the error: the finished frames of its traceback may hold a raw
        # answer (a hostile service can echo the token into it), so their locals go
        traceback.clear_frames(error.__traceback__)
        return cls(operation, from_error(error), error)

    @classmethod
    def of_data(cls, operation: str, data: Any,
                row: DesignOperation | None = None) -> DesignOutcome:
        # compact: the text is what an agent reads, and spaces after separators are noise
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return cls(operation, MappedResult([{"type": "text", "text": text}], False), row=row)

    @property
    def summary(self) -> str | None:
        """The one line a person reads for the answer, as its row's `summary` reads it
        (None: an error, no row, or no such line)."""
        if self.is_error or self.row is None or self.row.summary is None:
            return None
        data = self.data
        return self.row.summary(data) if isinstance(data, Mapping) else None

    @property
    def data(self) -> Any:
        """The first text block parsed as JSON when it is JSON, else its text, else None."""
        for block in self.blocks:
            if block.get("type") == "text":
                try:
                    return json.loads(block["text"])
                except (ValueError, RecursionError):
                    return block["text"]
        return None

    @property
    def images(self) -> list[tuple[str, bytes]]:
        out = []
        for block in self.blocks:
            source = block.get("source") if block.get("type") == "image" else None
            if isinstance(source, dict):
                try:
                    out.append((source["media_type"],
                                base64.b64decode(source["data"], validate=True)))
                except (binascii.Error, ValueError, KeyError):
                    continue
        return out

    def to_tool_result(self, tool_use_id: str) -> dict:
        return to_tool_result(tool_use_id, self._mapped)

    def __repr__(self) -> str:
        state = f"error={self.error!r}" if self.error else f"is_error={self.is_error}"
        return f"DesignOutcome({self.operation!r}, {len(self.blocks)} block(s), {state})"


def change_request(kind: str, facts: Facts, reason: str) -> ApprovalRequest:
    """A consent, plan or operation card (the decision already checked it can be shown)."""
    return card_of(kind, facts, reason)


def grant_request(facts: Facts, identity: display.ProjectIdentity) -> ApprovalRequest | None:
    """The grant card for a tokenless write, or None when it would not fit."""
    request = grant_card_of(facts, identity)
    return None if len(request.text) > CARD_LIMIT else request
