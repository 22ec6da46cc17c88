"""The reference service: a real local server that speaks PROTOCOL.md (Starlette, the
official MCP SDK, SQLite). It never imports client code, and client code never imports it."""
