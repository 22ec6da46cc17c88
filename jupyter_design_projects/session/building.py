"""How a `Session` builds its parts, one function per part, each handed the session and
reading only its public members (`shape.SessionShape`: `settings`, `data_dir`, `temp_dir`,
`loop`, `can_ask`, `progress` and the parts built before); the session hands its own httpx
client and transport in. The session holds each part as a `cached_property`, so a part is
built once, when first asked for, and its imports are paid then."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

    from ..core.redaction import Secret
    from ..design.call_history import CallHistory
    from ..design.client import DesignClient
    from ..design.deck.facade import DeckFacade
    from ..design.deck.records import PushRecords
    from ..design.write_journal import DesignJournal
    from ..projects.client import ProjectsClient
    from ..projects.facade import ProjectFacade
    from ..projects.journal import Journal
    from ..projects.sync_state import SyncState
    from ..transport.trace import HttpTrace
    from .auth import Auth
    from .notifications import Notifications
    from .shape import SessionShape

# ---------------------------------------------------------------------- transport


def secrets(session: SessionShape) -> list[Secret]:
    """Every secret the session knows (rotated tokens too, and the plan tokens, codes and
    verifiers its trace saw go by), for redaction."""
    out = [*session.auth.credentials.known_secrets(), *session.trace.seen_secrets()]
    if session.settings.session_jwt is not None:
        out.append(session.settings.session_jwt)
    return out


def trace(session: SessionShape) -> HttpTrace:
    from ..transport.trace import HttpTrace

    return HttpTrace(session.settings.http_trace, session.secrets,
                     limit=session.settings.trace_limit)


def client(session: SessionShape, transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    """The session's one httpx client, with no auth yet (`with_bearer` gives it its auth);
    `transport` replaces the network (tests inject a MockTransport)."""
    from ..transport.http import make_client
    from .service import tls_context

    return make_client(event_hooks=session.trace.event_hooks(), transport=transport,
                       verify=tls_context(session.settings))


def with_bearer(session: SessionShape, client: httpx.AsyncClient) -> httpx.AsyncClient:
    """`client`, now sending the session's bearer token where it may go (`session.http`)."""
    from ..transport.auth import BearerAuth

    client.auth = BearerAuth(session.auth.credentials, session.settings.allowed_origins)
    return client


def auth(session: SessionShape, client: httpx.AsyncClient) -> Auth:
    from ..embedded import owner_secret_for
    from ..transport.credential_manager import open_credentials
    from .auth import Auth

    settings = session.settings

    def owner() -> Secret | None:  # read at each sign-in: the service writes a new one each run
        return owner_secret_for(session.embedded, settings.credentials_file,
                                settings.oauth_authorize_url)

    manager = open_credentials(settings, session.data_dir, client, owner_secret=owner)
    return Auth(manager, settings, session.loop, client)


# ---------------------------------------------------------------------- stores


def journal(session: SessionShape) -> Journal:
    from ..projects.journal import Journal

    return Journal(session.data_dir / "journal.sqlite3")


def design_journal(session: SessionShape) -> DesignJournal:
    from ..design.write_journal import FILE_NAME, DesignJournal

    return DesignJournal(session.data_dir / FILE_NAME)


def deck_records(session: SessionShape) -> PushRecords:
    from ..design.deck.records import PushRecords

    return PushRecords(session.data_dir / "deck_pushes.sqlite3", session.settings.api_base_url)


def sync_state(session: SessionShape) -> SyncState:
    from ..projects.sync_state import SyncState

    return SyncState(session.data_dir / "sync_state.sqlite3")


# ---------------------------------------------------------------------- the pipelines


def history(session: SessionShape) -> CallHistory:
    """Every Design and Projects call of the session (`design.call_history`)."""
    from ..design.call_history import CallHistory

    def trace_mark() -> int | None:
        return session.trace.newest if session.trace.enabled else None

    return CallHistory(trace_mark=trace_mark)


def design(session: SessionShape) -> DesignClient:
    from ..core.design_operations import BY_NAME
    from ..design.client import DesignClient
    from ..projects.downloads import DownloadDir

    return DesignClient(session.http, session.settings, can_ask=session.can_ask,
                        clock_ms=lambda: int(time.time() * 1000), operations=BY_NAME,
                        save_text=DownloadDir(session.temp_dir).save_text,
                        journal=session.design_journal, observers=[session.history])


def projects(session: SessionShape) -> ProjectsClient:
    from ..projects.client import ProjectsClient

    settings, credentials = session.settings, session.auth.credentials
    return ProjectsClient(
        session.http, settings,
        ensure_scopes=lambda: credentials.ensure_project_scopes(
            policy_allows=settings.allow_projects_tool),
        temp_dir=session.temp_dir, journal=session.journal, progress=session.progress,
        secrets=session.secrets, observers=[session.history])


def project(session: SessionShape) -> ProjectFacade:
    from ..projects.facade import ProjectFacade

    return ProjectFacade(session.projects, session.run, sync_state=lambda: session.sync_state,
                         progress=session.progress)


def deck(session: SessionShape) -> DeckFacade:
    from functools import partial

    from ..design.deck.facade import DeckFacade
    from ..projects.stoppable import run_stoppable

    return DeckFacade(lambda: session.design, session.run, partial(run_stoppable, session.run),
                      lambda: session.deck_records, session.can_ask)


def notifications(session: SessionShape) -> Notifications:
    from ..design.notification_stream import NotificationStream
    from .notifications import Notifications

    def stream(design: DesignClient) -> NotificationStream:
        return NotificationStream(design.session, session.http, secrets=session.secrets)

    return Notifications(lambda: session.design, session.settings, session.loop, stream)
