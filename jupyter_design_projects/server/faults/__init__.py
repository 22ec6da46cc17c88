"""Fault injection for tests (only with --faults, loopback clients only): the switches of
one run (`state`), the wrapper that applies them (`switches`), the /_faults control
routes that set them (`routes`), and the hostile-content rewrite (`hostile`)."""

__all__ = [
    "hostile", "routes", "state", "switches"
]
