"""The notebook layer: parse the magic line, call the pipeline, render. Widgets live here."""

__all__ = [
    "auth_view", "budget", "card_body", "card_record", "cards", "catalogue", "change_card",
    "deck", "design_actions", "dispatch", "form_widgets", "grammar", "history_view", "host",
    "inspector", "json_tree", "lifecycle", "login", "magics", "notifications_pane", "outcome",
    "plain_lines", "progress", "project_actions", "prompt", "remedies", "rpc_view",
    "setting_traits", "sign_in", "subcommands", "sync_result", "sync_view", "tables", "theme",
    "trace", "views"
]
