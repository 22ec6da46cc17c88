"""The reference service's Projects side (PROTOCOL §4, §5): the org API, who may call it,
the organization routes, the remote-session route, the project store and its FTS5 search."""

__all__ = [
    "access", "api", "organizations", "remote_session", "search", "store"
]
