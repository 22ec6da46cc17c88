"""The reference service's Design side (PROTOCOL §2, §3): the MCP endpoint and its gate,
the consent and grants routes, the settings page, the eighteen operations over the Design
store, plans, files and previews (in a real headless browser where one is installed)."""

__all__ = [
    "browser", "demo", "endpoint", "errors", "file_paths", "files", "gate", "mcp", "mcp_sessions",
    "notices", "operations", "plans", "preview", "rest", "settings_page", "store", "tool_arguments"
]
