"""The notebook layer: parse the magic line, call the pipeline, render. Widgets live here."""

__all__ = [
    "budget", "cards", "catalogue", "grammar", "lab_status", "magics", "outcome", "progress",
    "subcommands", "tables", "theme", "views"
]
