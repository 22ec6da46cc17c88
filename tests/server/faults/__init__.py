"""Tests of jupyter_design_projects/server/faults/: the fault switches."""
