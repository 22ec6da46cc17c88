"""HTTP only: the allowlist, the auth flow, redaction at the edge, byte caps and deadlines."""

__all__ = [
    "auth", "credential_login", "credential_manager", "credential_sign_out", "credential_steps",
    "credentials", "cross_process_lock", "http", "json_body", "loop", "oauth",
    "redirect_listener", "scope_expansion", "sign_in_generation", "sign_in_record", "trace"
]
