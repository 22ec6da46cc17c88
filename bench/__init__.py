"""The benchmark harness: `python3 tasks.py bench [FIGURE ...] [--quick]` (see README.md)."""
