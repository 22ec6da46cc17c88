"""Two hints a remedy carries as data: a sign-in page that never answered offers the
paste flow too, and a slide path staged by another slide names that slide to take out;
each worded for the notebook as a magic and for plain Python as a call."""

from __future__ import annotations

import nbformat
import pytest

from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.errors import AuthError, InvalidArguments
from jupyter_design_projects.errors.calls import as_call
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.notebook.remedies import as_magic


@pytest.mark.parametrize(("reason", "remedy"), [
    ("login_timeout", Remedy("login", paste=True)),
    ("no_credential", Remedy("login")),
])
def test_only_a_sign_in_that_timed_out_offers_the_paste_flow(reason, remedy):
    error = AuthError(reason, "No answer from the sign-in page.")
    assert error.remedy == remedy
    assert ("--paste" in as_magic(error.remedy)) is (reason == "login_timeout")
    assert "%" not in as_call(error.remedy)


def test_a_path_staged_by_another_slide_names_the_slide_to_take_out(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# Scientific Open Source Software")]
    talk = tmp_path / "talk.ipynb"
    nbformat.write(notebook, talk)
    deck = Deck(client=None, project_id="p")
    staged = deck.add_notebook(talk)
    path = deck.stage.files[0].path
    other = Deck(client=None, project_id="p")
    other.add_markdown(path, "# Another slide at the same path")
    with pytest.raises(InvalidArguments) as refused:
        other.add_notebook(talk)
    assert refused.value.remedy == Remedy("unstage_slide", path=path)
    assert as_magic(refused.value.remedy) == f"drop that slide first: %design slide {path} --drop"
    assert f"deck.stage.remove({path!r})" in as_call(refused.value.remedy)
    assert staged is not None
