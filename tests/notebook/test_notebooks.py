"""The three example notebooks run headless (nbclient: allow_stdin is False) against a
fresh reference service: every cell succeeds, and where a click would be needed the cell
shows the fail-closed message instead of writing anything."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.notebook.notebook_runs import NOTEBOOKS, outputs, run, run_path, text_of


@pytest.mark.parametrize("name", ["quickstart", "projects_knowledge", "api_debugging"])
def test_notebooks_are_valid_and_have_no_stored_outputs(name):
    book = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbformat.validate(book)
    assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code")


def test_quickstart_runs_headless_and_fails_closed_where_a_click_is_needed(
        pointed_at_service, tmp_path, monkeypatch):
    book = run("quickstart", tmp_path, monkeypatch)
    assert "Knowledge budget" in text_of(outputs(book, "info = %project info"))
    assert "Acme Default" in text_of(outputs(book, "deck = %design deck open"))
    staged = text_of(outputs(book, "deck.staged"))
    for path in ("slides/04-usage-chart.html", "slides/assets/04-usage-chart-figure.png",
                 "slides/05-usage-table.html", "slides/06-next-steps.html"):
        assert path in staged
    pushed = text_of(outputs(book, "pushed = %design deck push"))
    assert "nobody can answer an approval card here" in pushed
    talk = text_of(outputs(book, "talk = %design deck from-notebook"))
    assert "Staged 2 slide(s)" in talk and "slides/02-usage-by-quarter.html" in talk
    exported = text_of(outputs(book, "exported = %design deck export"))
    assert "Wrote" in exported and "with speaker notes" in exported
    # the push wrote nothing, and the export cell says so
    assert "The push above has not written its slides yet" in exported
    assert "slides/04-usage-chart.html" not in text_of(outputs(book, "%design status"))


def test_quickstart_with_its_push_approved_writes_the_deck_and_previews_it(
        pointed_at_service, tmp_path, monkeypatch):
    """The quickstart headless, approved the documented way: approval_mode 'widget' shows
    the cards, and the push's cards are answered from code (`pushed.approve()`)."""
    book = nbformat.read(NOTEBOOKS / "quickstart.ipynb", as_version=4)
    cells = book.cells
    at = next(i for i, c in enumerate(cells) if "pushed = %design deck push" in c.source)
    cells.insert(at + 1, nbformat.v4.new_code_cell(
        "pushed.approve()\n"
        "print(pushed.message)\n"
        "print(sorted(pushed.written))\n"
        "print([(path, data['renderer'], data['text_content'][:200])\n"
        "       for path, _, data in pushed.previews])"))
    cells.insert(2, nbformat.v4.new_code_cell(
        "%config DesignProjects.approval_mode = 'widget'"))
    scratch = tmp_path / "quickstart-approved.ipynb"
    nbformat.write(book, scratch)
    executed = run_path(scratch, tmp_path, monkeypatch)
    shown = text_of(outputs(executed, "pushed.approve()"))
    assert "Pushed 4 file(s) in 1 plan(s)." in shown
    for path in ("slides/04-usage-chart.html", "slides/05-usage-table.html",
                 "slides/06-next-steps.html", "slides/assets/04-usage-chart-figure.png"):
        assert path in shown
    assert "42 active teams run notebooks every week." in shown
    assert "Usage by quarter" in shown and "chromium" in shown
    exported = text_of(outputs(executed, "exported = %design deck export"))
    assert "Wrote" in exported and "has not written its slides" not in exported
    assert "slides/06-next-steps.html" in text_of(outputs(executed, "%design status"))


def test_the_quickstart_opens_with_the_kernel_jupyterlab_picks_so_opening_leaves_it_clean():
    """JupyterLab rewrites a notebook's kernelspec (and language_info) from the kernel it
    starts, which marks the notebook modified unless they already match: the saved ones
    are the installed python3 kernel's and ipykernel's (its version aside, which is the
    Python's)."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager

    book = nbformat.read(NOTEBOOKS / "quickstart.ipynb", as_version=4)
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert book.metadata.kernelspec == {"name": "python3", "display_name": spec.display_name,
                                        "language": spec.language}
    saved = dict(book.metadata.language_info)
    kernel = dict(IPythonKernel.language_info)
    assert saved.pop("version").split(".")[0] == kernel.pop("version").split(".")[0]
    assert saved == kernel


def test_projects_knowledge_runs_headless(pointed_at_service, tmp_path, monkeypatch):
    book = run("projects_knowledge", tmp_path, monkeypatch)
    assert "Decision log" in text_of(outputs(book, "final = %project read"))
    assert "accidentally" not in text_of(outputs(book, "final = %project read"))
    parquet = text_of(outputs(book, "raw = %project read churn-features-sample.parquet"))
    assert "customer_id" in parquet and "107000" in parquet  # a real Parquet table
    synced = text_of(outputs(book, "plan = %project sync"))
    assert "3 new, 2 skipped" in synced and "dry run: nothing was sent" in synced


def test_api_debugging_runs_headless(pointed_at_service, tmp_path, monkeypatch):
    book = run("api_debugging", tmp_path, monkeypatch)
    assert "tool_result" in text_of(outputs(book, "missing = %design get_project"))
    refused = text_of(outputs(book, "attempt = %design create_project"))
    assert "was not run: it needs a person's approval" in refused  # in words, not a code
    assert "elapsed_ms" in text_of(outputs(book, "trace = %design trace"))
    written = text_of(outputs(book, "%design trace --har api_debugging.har"))
    assert "HAR 1.2" in written
    har = json.loads((tmp_path / "work" / "api_debugging.har").read_text())
    assert har["log"]["version"] == "1.2" and har["log"]["entries"]
    assert "'1.2'" in text_of(outputs(book, "har = trace.to_har()"))
    curl = text_of(outputs(book, "%design trace --curl"))
    assert "curl -X" in curl and "$JDP_TOKEN" in curl


def test_in_a_real_kernel_cards_answered_from_code_and_the_temp_dir_goes_at_exit(
        pointed_at_service, tmp_path, monkeypatch):
    cells = [
        "%load_ext jupyter_design_projects\n%config DesignProjects.approval_mode = 'widget'",
        "%design consent",
        "projects = %design list_projects\n"
        "deck = next(p['id'] for p in projects.data if p['name'] == 'Quarterly Review Deck')",
        "ok = [{'path': 'slides/09-approved.html', 'data': '<p>yes</p>'}]\n"
        "no = [{'path': 'slides/10-denied.html', 'data': '<p>no</p>'}]\n"
        "approved = %design write_files project_id=$deck files=$ok\n"
        "denied = %design write_files project_id=$deck files=$no",
        "approved.card.approve()\ndenied.card.deny()",
        "listing = %design list_files project_id=$deck\n"
        "print(sorted(f['path'] for f in listing.data if f['path'].startswith('slides/')))",
        "print(get_ipython().magics_manager.registry['DesignProjects'].session.temp_dir)",
    ]
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    scratch = tmp_path / "cards.ipynb"
    nbformat.write(book, scratch)
    executed = run_path(scratch, tmp_path, monkeypatch)
    shown = text_of(executed.cells[3].outputs)
    assert "application/vnd.jupyter.widget-view+json" in shown
    listing = text_of(executed.cells[5].outputs)
    assert "slides/09-approved.html" in listing
    assert "slides/10-denied.html" not in listing
    # the kernel was shut down without an unload: its session temp dir went at exit
    temp_dir = Path(executed.cells[6].outputs[0]["text"].strip())
    assert temp_dir.name.startswith("jdp-session-")
    assert not temp_dir.exists()
