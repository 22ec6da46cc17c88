"""Tests of jupyter_design_projects/labserver/: the Jupyter server extension."""
