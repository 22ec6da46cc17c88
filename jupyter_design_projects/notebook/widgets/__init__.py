"""The widgets a call shows: the approval cards (a Design call's, a change's, a sync's),
the deck and its push, the sign-in card, the catalogue, the forms and the panels."""

__all__ = [
    "auth_view", "cards", "catalogue", "change_card", "deck", "deck_push", "form_widgets",
    "inspector", "notifications_pane", "progress", "sign_in", "sync_view"
]
