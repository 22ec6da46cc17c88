"""Which reference service a session uses when none is configured, what it says about it
(`session.banner`), and the TLS context its client verifies with."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..embedded import EmbeddedService
    from ..settings import Settings

BANNER = (
    "Using the offline reference service at {base_url} (embedded, demo data, no account). "
    "Set JDP_API_BASE_URL to use another service."
)
SHARED_BANNER = (
    "Using the embedded reference service, on this Jupyter server (offline, demo data, no "
    "account; shared with the side panel and every kernel of this server). "
    "Set JDP_API_BASE_URL to use another service."
)


def find_service(settings: Settings, data_dir: Path
                 ) -> tuple[Settings, EmbeddedService | None]:
    """With no service configured: the Jupyter server's reference service when
    `settings.service_file` names one (waiting a bounded time while it starts), else a
    newly started one in `data_dir`; the settings then point at it. Else the settings as
    they are and no service."""
    if not settings.embedded:
        return settings, None
    if settings.service_file:
        from .. import service_file

        embedded = service_file.wait(Path(settings.service_file))
    else:
        from ..embedded import start_embedded

        embedded = start_embedded(data_dir / "reference-service",
                                  warm_browser=settings.warm_preview_browser)
    return settings.using_service(embedded.client_env()), embedded


def banner_for(embedded: EmbeddedService | None, base_url: str) -> str | None:
    """What the session says about the service it uses (None: the configured one)."""
    if embedded is None:
        return None
    return (BANNER if embedded.owned else SHARED_BANNER).format(base_url=base_url)


def tls_context(settings: Settings) -> Literal[True] | ssl.SSLContext:
    """True (httpx's default TLS context, which loads the CA file: about 60 ms) when a
    configured URL is https; else a client context with no CA loaded. Plain http is
    allowed only on loopback, so such a session never opens a TLS connection — and if
    one were ever opened, this context would refuse every certificate (it fails closed,
    never open)."""
    urls = (settings.api_base_url, settings.web_base_url, settings.oauth_token_url,
            settings.oauth_authorize_url)
    if any(url.startswith("https:") for url in urls):
        return True
    from ..transport.http import loopback_tls

    return loopback_tls()
