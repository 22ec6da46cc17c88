"""Tests of jupyter_design_projects/transport/: HTTP, sign-in, credentials and the trace."""
