"""`%config DesignProjects` lists every setting a trait carries, with its declared help,
and a trait set there reaches `Settings` (the traits are read from the one declaration)."""

from __future__ import annotations

from jupyter_design_projects.settings import Settings, rows


def test_config_help_lists_each_setting_trait_with_its_help(shell, capsys):
    shell.run_line_magic("config", "DesignProjects")
    printed = " ".join(capsys.readouterr().out.split())
    for row in rows(Settings):
        if row.declared.trait:
            assert f"DesignProjects.{row.name}" in printed
            assert " ".join(row.declared.help.split())[:40] in printed
        else:  # the environment-only settings, the secret among them, are not traits
            assert f"DesignProjects.{row.name}" not in printed


def test_a_trait_set_with_config_reaches_the_settings(shell, monkeypatch):
    monkeypatch.delenv("JDP_CLIENT_PLATFORM", raising=False)
    magics = shell.magics_manager.registry["DesignProjects"]
    try:
        shell.run_line_magic("config", "DesignProjects.trace_limit = 42")
        shell.run_line_magic("config", "DesignProjects.client_platform = 'lab_x'")
        settings = magics.settings()
        assert (settings.trace_limit, settings.client_platform) == (42, "lab_x")
    finally:  # the shell is the process's one: leave no config behind for other tests
        for name in ("trace_limit", "client_platform"):
            shell.config.DesignProjects.pop(name, None)
