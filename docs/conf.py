"""Sphinx configuration of the docs site: MyST Markdown pages, the four example notebooks
executed against the embedded reference service at build time (myst-nb), the public API
from its docstrings (autodoc), Mermaid blocks drawn as pictures at build time
(`_ext/mermaid_svg.py`), and the pydata theme (as JupyterLab, ipywidgets and jupyter_server
use), its sidebar listing every page. `python3 tasks.py docs` builds it strictly: every
warning is an error and every internal link and cross-reference is checked
(`-W --keep-going -n`)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

from jupyter_design_projects import __version__  # noqa: E402

project = "jupyter-design-projects"
author = "the jupyter-design-projects developers"
copyright = "2026, " + author
version = release = __version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "jdp_docs",
    "mermaid_svg",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "_generated/*.md"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# the example notebooks run at build time, each in a fresh kernel against its own embedded
# reference service (no JDP_API_BASE_URL: the extension starts one); a failing cell fails
# the build
nb_execution_mode = "force"
nb_execution_in_temp = True
for _name in [n for n in os.environ if n.startswith("JDP_") or n.startswith("CLAUDE_")]:
    del os.environ[_name]  # a fresh embedded service, whatever the builder's shell points at
os.environ["JDP_DATA_DIR"] = tempfile.mkdtemp(prefix="jdp-docs-")  # each notebook: its own
nb_execution_timeout = 180
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# an approval card is an ipywidgets view: its HTML stand-in is shown instead, so the pages
# load no widget manager (myst-nb's default fetches require.js and the ipywidgets HTML
# manager from public CDNs): nothing on the site runs a script from elsewhere
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js: dict[str, dict[str, str]] = {}

autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True, "undoc-members": False}
nitpicky = True
# names from other projects (httpx, pandas, ipywidgets, traitlets, the standard library's
# typing internals) are not documented here and have no intersphinx inventory offline
nitpick_ignore_regex = [
    ("py:.*", r"(httpx|pandas|pd|ipywidgets|traitlets|collections\.abc|typing|asyncio"
              r"|concurrent|os|pathlib)\..*"),
    ("py:.*", r"(Any|Callable|Awaitable|Mapping|Iterator|Iterable|Sequence|Coroutine|T|Path"
              r"|DataFrame|datetime|Self|Approve|ProjectsClient|MappedResult)"),
    # our own names in public signatures that are not public themselves: a type variable,
    # the wrapper that keeps a pasted sign-in code out of reprs, and a Design outcome's row
    # of the operation table (internal, may change)
    ("py:class", r"(jupyter_design_projects\.)?(session\._?T|core\.redaction\.Secret"
                 r"|(core\.design_operations\.)?DesignOperation)"),
    # the same two as annotations name them where they are imported for type checkers only
    # (settings.py stays light for `%load_ext`; errors/base.py loads no remedy until used)
    ("py:class", r"(Secret|Remedy)"),
    # the types of the session's parts, named where they are imported for type checkers
    # only (the session loads each part when first asked for): docs/python.md lists them
    ("py:class", r"(AuthStatus|BackgroundLoop|CallHistory|Credential|CredentialManager"
                 r"|DeckFacade|DesignClient|DesignJournal|EmbeddedService|Future|HttpTrace"
                 r"|Journal|LoginAttempt|NotificationStore|NotificationStream|Progress"
                 r"|PushRecords|SessionShape|SyncState)"),
]

html_theme = "pydata_sphinx_theme"
html_title = "jupyter-design-projects"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = ["_static"]
# the notebook outputs' text colours in light and dark mode (docs/accessibility.md)
html_css_files = ["jdp-palette.css"]
templates_path = ["_templates"]
# every page is a top-level entry of the root toctree, so the theme's "Section Navigation"
# (the pages under the current top-level page) was empty on every page: the sidebar lists
# the whole site instead, by part
html_sidebars = {"**": ["site-nav.html"]}
