"""What an origin is: the one definition both the settings' allowlist and the auth flow use."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> str:
    """scheme://host[:port], lower-case, default port dropped, never any user information."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    shown_port = f":{port}" if port is not None and port != DEFAULT_PORTS.get(scheme) else ""
    shown_host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown_host}{shown_port}"
