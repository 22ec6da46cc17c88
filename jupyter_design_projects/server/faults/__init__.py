"""Fault injection for tests (only with --faults, loopback clients only): the switches of
one run (`state`), the wrapper that applies them (`switches`), the /_faults control
routes that set them (`routes`) and the bodies of its answer-replacing rules (`rules`), the
hostile-content rewrite (`hostile`), and the echo of every token the service was given
(`echo`)."""

__all__ = [
    "echo", "hostile", "routes", "rules", "state", "switches"
]
