"""The test suite: a package mirroring jupyter_design_projects/, so helpers import by
module path (docs/testing.md)."""
