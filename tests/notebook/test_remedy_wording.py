"""The same error worded for its reader: from plain Python it names a call of the public
API; through the magic (the boundary where errors become `UsageError`) it names a magic."""

from __future__ import annotations

import re

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.errors import AuthError, NoAttachedProject, ProjectsAuthFailed
from jupyter_design_projects.errors.remedy import Remedy

MAGIC = re.compile(r"%(design|project|config)\b")


def failure(shell, tool: str, line: str) -> str:
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic(tool, line)
    return str(raised.value)


def not_signed_in() -> ProjectsAuthFailed:
    error = ProjectsAuthFailed("info", "org", "no_token", "auth_error")
    error.__cause__ = AuthError("no_token", "Not signed in.")
    return error


def test_not_signed_in_names_the_login_magic_through_the_magic(shell, magics):
    error = not_signed_in()
    assert "session.auth.login_begin()" in str(error) and not MAGIC.search(str(error))
    magics.session.projects.answers["project_info"] = error
    said = failure(shell, "project", "info")
    assert error.remedy == Remedy("login")
    assert "Next: %design login." in said and "login_begin" not in said


def test_no_attached_project_names_the_environment_through_the_magic(shell, magics):
    error = NoAttachedProject()
    magics.session.projects.answers["project_info"] = error
    said = failure(shell, "project", "info")
    assert "CLAUDE_PROJECT_UUID in the kernel's environment" in said
    assert "Settings.resolve" not in said and "Settings.resolve" in str(error)


def test_a_setting_remedy_names_config_through_the_magic(shell, magics):
    from jupyter_design_projects.errors import GateClosed

    error = GateClosed("Projects", "allow_projects_tool")
    assert "Settings.resolve(os.environ, {'allow_projects_tool': True})" in str(error)
    magics.session.projects.answers["project_info"] = error
    said = failure(shell, "project", "info")
    assert "Next: %config DesignProjects.allow_projects_tool = True." in said
