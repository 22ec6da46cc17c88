"""HTTP only: the allowlist, the auth flow, redaction at the edge, byte caps and deadlines."""

__all__ = [
    "auth", "credential_manager", "credentials", "http", "json_body", "loop", "oauth",
    "redirect_listener", "sign_in_record", "trace"
]
