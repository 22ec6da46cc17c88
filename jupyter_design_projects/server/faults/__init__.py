"""Fault injection for tests (only with --faults, loopback clients only): the switches of
one run (`state`), the wrapper that applies them (`switches`), and the /_faults control
routes that set them (`routes`)."""

__all__ = [
    "routes", "state", "switches"
]
