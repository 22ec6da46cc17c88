"""Pure rules: no I/O, no clock, no randomness. Time and keys come in as arguments."""

__all__ = [
    "budgets", "cards", "catalogue", "containment", "design_operations", "display", "hints",
    "origins", "permissions", "pkce", "plans", "project_paths", "redaction", "results",
    "scopes", "validation"
]
