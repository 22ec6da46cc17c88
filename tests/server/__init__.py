"""Tests of jupyter_design_projects/server/: the reference service."""
