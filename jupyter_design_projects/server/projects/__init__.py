"""The reference service's Projects side (PROTOCOL §4, §5): the org API, the
remote-session route, the project store and its FTS5 search."""

__all__ = [
    "api", "remote_session", "search", "store"
]
