"""The Projects pipeline: five methods bound to the attached Project, on two transports."""

__all__ = [
    "api", "approval", "change", "client", "downloads", "facade", "journal", "raw_answer",
    "reading", "searching", "stoppable", "sync", "sync_rows", "sync_state", "sync_walk",
    "uploads", "wire", "write_groups"
]
