"""The Design pipeline: the MCP session, the live catalogue, permissions, result mapping."""
