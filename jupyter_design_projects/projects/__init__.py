"""The Projects pipeline: five methods bound to the attached Project, on two transports."""

__all__ = [
    "api", "approval", "change", "client", "doc_changes", "downloads", "facade", "journal",
    "raw_answer", "reading", "searching", "stoppable", "sync", "sync_rows", "sync_run",
    "sync_state", "sync_walk", "uploads", "wire", "write_groups"
]
