"""Tests of jupyter_design_projects/server/design/: the service's Design endpoint."""
