"""Pure rules: no I/O, no clock, no randomness. Time and keys come in as arguments."""

__all__ = [
    "batch_progress", "budgets", "call_events", "cards", "catalogue", "change_preview",
    "containment", "contrast", "curl", "design_effects", "design_inputs", "design_operations",
    "display", "grant_watch", "har", "hints", "input_forms", "json_tree", "letters",
    "notifications", "origins", "owner_proof", "permissions", "pkce", "plans", "project_paths",
    "projects_inputs", "redaction", "refusals", "replay_edits", "result_limits", "results",
    "scopes",
    "sign_in_steps", "slide_fit", "slideshow", "sse", "sync_plan", "trace_limits", "validation"
]
