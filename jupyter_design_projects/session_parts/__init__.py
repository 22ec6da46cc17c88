"""The parts a `Session` composes (as IPython's shell composes its managers): `auth` (the
sign-in), `notifications` (the Design event stream), and what builds the session's clients
and finds its service. Each part is handed what it works with; none reaches into the
session."""
