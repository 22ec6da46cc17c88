"""Tests of jupyter_design_projects/errors/: the error tree, its guidance and remedies."""
