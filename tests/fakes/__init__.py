"""The one in-memory fake of each pipeline's service, and the session stand-in (docs/testing.md)."""
