"""What runs a `%design` / `%project` line: the registry of subcommands (each row its
grammar, handler and view), the one run-and-settle path, and the handlers."""

__all__ = [
    "call", "deck", "design", "history_view", "inspector", "login", "project", "registry",
    "rpc_view", "run"
]
