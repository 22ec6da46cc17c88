"""Tests of jupyter_design_projects/server/projects/: the service's Projects API and search."""
