"""The arguments of the five Projects methods as JSON Schema, typed from the client's own
limits (`core.project_paths`, `core.budgets`): what `%project inspect` draws its forms
from. Which method takes which (and which it requires) is the client's method table
(`projects.client.METHODS`); `method_schema` puts the two together."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from .budgets import SEARCH_N_DEFAULT, SEARCH_N_MAX, SEARCH_N_MIN
from .project_paths import MAX_PATH_CHARS

#: every argument a Projects method takes, in the order a form shows them
PROJECTS_ARGUMENTS: dict[str, dict[str, Any]] = {
    "path": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS,
             "description": "The doc's exact path (a new bare name goes under claude/)."},
    "query": {"type": "string", "minLength": 1,
              "description": "What to search the Project knowledge for."},
    "n": {"type": "integer", "minimum": SEARCH_N_MIN, "maximum": SEARCH_N_MAX,
          "default": SEARCH_N_DEFAULT, "description": "How many hits."},
    "content": {"type": "string", "x-body": True,
                "description": "The doc's text (or give local_path instead)."},
    "local_path": {"type": "string", "description": "A text file in the working directory, "
                                                    "uploaded instead of content."},
    "encoding": {"type": "string", "description": "local_path's text encoding (default "
                                                  "UTF-8; bytes that do not decode are "
                                                  "refused)."},
}


def method_schema(allowed: Iterable[str], required: Iterable[str]) -> dict[str, Any]:
    """One method's input schema: its arguments in the declared order (an argument not
    declared here is a plain string), `required` as given."""
    allowed, required = set(allowed), set(required)
    names = [*(n for n in PROJECTS_ARGUMENTS if n in allowed),
             *sorted(allowed - set(PROJECTS_ARGUMENTS))]
    return {"type": "object",
            "properties": {n: copy.deepcopy(PROJECTS_ARGUMENTS.get(n, {"type": "string"}))
                           for n in names},
            "required": [n for n in names if n in required]}
