"""The JSON tree in Chromium, as a notebook output shows it (script on): a closed node
opens when its summary is clicked and closes again, with no script of ours; and a tree of
hostile keys and values, every node open, runs nothing and loads nothing."""

from __future__ import annotations

import pytest

from jupyter_design_projects.notebook.views.json_tree import tree_html
from tests.browser.lab import open_notebook
from tests.hostile_content import page_of, payloads, render

pytestmark = [pytest.mark.browser]

RESULT = {"content": [{"type": "text", "text": "hello"}],
          "meta": {"ok": True, "deeper": {"deepest": {"x": 1}}}}


def test_clicking_a_summary_opens_its_node_and_clicking_again_closes_it(chromium):
    page = chromium.new_page()
    try:
        page.set_content(page_of([tree_html(RESULT)]), wait_until="load")
        deeper = page.locator('details:has(> summary[title="$.meta.deeper"])')
        inside = page.locator('[title="$.meta.deeper.deepest"]')
        top_leaf = page.locator('[title="$.meta.ok"]')
        assert top_leaf.is_visible()  # the top levels are open
        assert not deeper.evaluate("d => d.open") and not inside.is_visible()
        page.locator('summary[title="$.meta.deeper"]').click()
        assert deeper.evaluate("d => d.open") and inside.is_visible()
        assert "{1 key}" in inside.inner_text()
        page.locator('summary[title="$.meta.deeper"]').click()
        assert not inside.is_visible()
        page.locator('summary[title="$"]').click()  # the root closes everything
        assert not top_leaf.is_visible()
        assert page.evaluate("() => document.scripts.length") == 0
    finally:
        page.close()


def test_a_tree_of_hostile_keys_and_values_runs_nothing_and_loads_nothing(
        chromium, loopback_beacon):
    spot = loopback_beacon
    each = payloads(spot.url)
    value = {"record": {payload: {"value": payload, "list": [payload]}
                        for payload in each.values()},
             "names": list(each), **{payload: payload for payload in each.values()}}
    shown = tree_html(value, open_levels=99)  # every node open, every payload drawn
    rendered = render(chromium, [page_of([shown])], spot)
    assert rendered.hits == []
    assert rendered.pwned == [None]
    assert rendered.requested == []
    assert rendered.navigated == []
    assert rendered.js_links == 0


def test_a_saved_notebook_reopened_in_jupyterlab_keeps_the_tree_working(lab_page, lab):
    """A notebook saved with a tree as its output and not trusted (so JupyterLab's
    sanitizer cleans its HTML) opens with the tree drawn and a click opens a node."""
    import nbformat

    # a kernelspec as every saved notebook has one: without it JupyterLab asks for a kernel
    # in a dialog that would cover the output
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    cell = nbformat.v4.new_code_cell("%design get_project project_id=…")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": tree_html(RESULT), "text/plain": "design get_project"})]
    nb.cells = [cell]
    nbformat.write(nb, lab.root_dir / "saved-tree.ipynb")
    page = lab_page
    open_notebook(page, "saved-tree.ipynb")
    output = page.locator(".jp-OutputArea-output .jdp-json-tree")
    output.wait_for(timeout=60_000)
    inside = output.locator('[title="$.meta.deeper.deepest"]')
    assert output.locator('[title="$.meta.ok"]').is_visible()
    assert not inside.is_visible()
    output.locator('summary[title="$.meta.deeper"]').click()
    inside.wait_for(state="visible")
    assert "{1 key}" in inside.inner_text()
