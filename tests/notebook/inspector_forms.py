"""The inspector's generated form filled as a person fills it: a `write_files` of one
slide (the inspector and notifications tests share it)."""

from __future__ import annotations

from jupyter_design_projects.notebook.widgets.inspector import Inspector

SLIDE = "<!doctype html><html><body><h2>From the inspector</h2></body></html>"


def fill_write(inspector: Inspector, project_id: str, path: str) -> None:
    inspector.picker.value = "write_files"
    form = inspector.form
    form.editors["project_id"].input.value = project_id
    entry = form.editors["files"].add()
    entry.editors["path"].input.value = path
    entry.editors["data"].input.value = SLIDE
