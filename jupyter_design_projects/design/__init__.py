"""The Design pipeline: the MCP session, the live catalogue, permissions, result mapping."""

__all__ = [
    "approval", "catalogue", "client", "deck", "permissions", "rest", "schemas", "session",
    "wire", "write_journal"
]
