"""Tests of jupyter_design_projects/notebook/: the magics, views and cards."""
