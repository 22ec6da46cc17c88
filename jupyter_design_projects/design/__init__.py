"""The Design pipeline: the MCP session, the live catalogue, permissions, result mapping."""

__all__ = [
    "approval", "call", "call_history", "call_journal", "catalogue", "client", "deck",
    "notification_stream", "permissions", "plan_tokens", "project_names", "raw_rpc", "rest",
    "schemas", "session", "wire", "write_journal"
]
