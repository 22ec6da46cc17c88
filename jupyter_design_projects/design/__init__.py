"""The Design pipeline: the MCP session, the live catalogue, permissions, result mapping."""

__all__ = [
    "approval", "call_history", "catalogue", "client", "deck", "notification_stream", "permissions",
    "raw_rpc", "rest",
    "schemas", "session", "wire", "write_journal"
]
