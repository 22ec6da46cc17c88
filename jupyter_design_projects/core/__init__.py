"""Pure rules: no I/O, no clock, no randomness. Time and keys come in as arguments."""

__all__ = [
    "batch_progress", "budgets", "cards", "catalogue", "containment", "curl", "design_inputs",
    "design_operations", "display", "har", "hints", "letters", "origins", "permissions", "pkce",
    "plans", "project_paths", "redaction", "result_limits", "results", "scopes", "slideshow",
    "sync_plan", "trace_limits", "validation"
]
