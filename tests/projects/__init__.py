"""Tests of jupyter_design_projects/projects/: the Projects pipeline."""
