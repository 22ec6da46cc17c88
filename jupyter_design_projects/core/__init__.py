"""Pure rules: no I/O, no clock, no randomness. Time and keys come in as arguments."""

__all__ = [
    "batch_progress", "budgets", "cards", "catalogue", "change_preview", "containment", "curl",
    "design_effects", "design_inputs", "design_operations", "display", "har", "hints",
    "input_forms", "json_tree", "letters", "notifications", "origins", "owner_proof", "permissions",
    "pkce",
    "plans", "project_paths", "projects_inputs", "redaction", "result_limits", "results",
    "scopes", "sign_in_steps", "slideshow", "sse", "sync_plan", "trace_limits", "validation"
]
