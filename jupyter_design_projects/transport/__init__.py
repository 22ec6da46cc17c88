"""HTTP only: the allowlist, the auth flow, redaction at the edge, byte caps and deadlines."""
