"""What a call returns, drawn without widgets: the `Outcome` every magic returns, the
outcomes made from each pipeline's results, and the tables, trees and meters they draw."""

__all__ = [
    "budget", "card_body", "card_record", "deck_outcomes", "json_tree", "outcome",
    "outcomes", "sync_result", "tables", "theme", "trace"
]
