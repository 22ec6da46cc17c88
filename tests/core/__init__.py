"""Tests of jupyter_design_projects/core/: the pure rules, table-driven."""
