"""Tests of jupyter_design_projects/design/: the Design pipeline."""
