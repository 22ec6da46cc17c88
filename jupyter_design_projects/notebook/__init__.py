"""The notebook layer: parse the magic line, call the pipeline, render. Widgets live here."""

__all__ = [
    "budget", "cards", "catalogue", "deck", "grammar", "magics", "outcome", "plain_lines",
    "progress", "prompt", "sign_in", "subcommands", "sync_view", "tables", "theme", "trace",
    "views"
]
