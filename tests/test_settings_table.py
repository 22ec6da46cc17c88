"""Each setting is declared once (a field of `Settings`), and the environment map, the
magics' traits, their `%config` help and the docs' configuration table are read from it:
a setting added to the table shows up in all four with no other edit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import ConfigError
from jupyter_design_projects.notebook import setting_traits
from jupyter_design_projects.notebook.magics import DesignProjects
from jupyter_design_projects.settings import (
    ENVIRONMENT,
    GATES,
    Settings,
    environment,
    rows,
    setting,
    trait_overrides,
)

DOCS = Path(__file__).parents[1] / "docs" / "configuration.md"


@dataclasses.dataclass(frozen=True)
class Extended(Settings):
    """The settings with one more declared: what adding a setting is."""

    poll_seconds: int = setting(7, "How often the example polls, in seconds.",
                                env="JDP_POLL_SECONDS", bounds=(1, 60))


def test_a_new_setting_is_one_declaration_found_everywhere():
    assert environment(Extended)["JDP_POLL_SECONDS"] == "poll_seconds"
    traits = setting_traits.traits_class(Extended)
    trait = traits.class_traits(config=True)["poll_seconds"]
    assert trait.default_value == 7
    assert "How often the example polls" in traits.class_get_help()
    assert "How often the example polls" in traits.class_get_trait_help(trait)
    row = next(line for line in setting_traits.docs_table(Extended).splitlines()
               if line.startswith("| `poll_seconds`"))
    assert "`JDP_POLL_SECONDS`" in row and "`7`" in row
    resolved = Extended.resolve({"JDP_POLL_SECONDS": "12"})
    assert resolved.poll_seconds == 12  # type: ignore[attr-defined]
    assert Extended.resolve({}, {"poll_seconds": 30}).poll_seconds == 30  # type: ignore[attr-defined]


def test_a_new_settings_bounds_hold_on_each_side():
    assert Extended.resolve({"JDP_POLL_SECONDS": "60"}).poll_seconds == 60  # type: ignore[attr-defined]
    with pytest.raises(ConfigError) as caught:
        Extended.resolve({"JDP_POLL_SECONDS": "61"})
    assert caught.value.setting == "poll_seconds"
    with pytest.raises(ConfigError) as caught:
        Extended.resolve({"JDP_POLL_SECONDS": "soon"})
    assert caught.value.setting == "JDP_POLL_SECONDS"


def test_a_secret_cannot_be_declared_a_trait():
    @dataclasses.dataclass(frozen=True)
    class Leaky(Settings):
        api_key: Secret | None = setting(None, "A key.", env="JDP_KEY")

    with pytest.raises(TypeError, match="secret"):
        rows(Leaky)


def test_a_setting_of_another_type_is_refused_not_taken_for_a_secret():
    @dataclasses.dataclass(frozen=True)
    class Odd(Settings):
        ratios: list = setting(None, "Ratios.")

    with pytest.raises(TypeError, match="not a setting's type"):
        rows(Odd)


def test_no_secret_is_a_trait_of_the_magics():
    traits = DesignProjects.class_traits(config=True)
    secrets = [row.name for row in rows(Settings) if row.secret]
    assert secrets == ["session_jwt"]
    assert not set(secrets) & set(traits)


def test_every_trait_setting_is_a_magics_trait_and_reaches_settings():
    traits = DesignProjects.class_traits(config=True)
    declared = {row.name for row in rows(Settings) if row.declared.trait}
    assert set(setting_traits.SETTING_TRAITS) == declared
    assert declared <= set(traits)
    for name in declared:  # the trait's help is the declaration's
        row = next(r for r in rows(Settings) if r.name == name)
        assert traits[name].help == row.declared.help
        assert traits[name].default_value == row.default


def test_the_environment_map_and_the_gates_come_from_the_table():
    assert ENVIRONMENT == {row.declared.env: row.name for row in rows(Settings)
                           if row.declared.env}
    assert ENVIRONMENT["CLAUDE_PROJECT_UUID"] == "project_uuid"
    assert set(GATES) == {"allow_design_sync", "allow_projects_tool", "design_feature_flag",
                          "essential_traffic_only"}


def test_a_trait_left_at_its_default_defers_to_the_environment():
    env = {"JDP_CLIENT_PLATFORM": "my_lab"}
    left = trait_overrides({"client_platform": "jupyter_design_projects"})
    assert Settings.resolve(env, left).client_platform == "my_lab"
    moved = trait_overrides({"client_platform": "other_lab"})
    assert Settings.resolve(env, moved).client_platform == "other_lab"


def test_an_unknown_override_is_refused():
    with pytest.raises(ConfigError) as caught:
        Settings.resolve({}, {"no_such_setting": 1})
    assert caught.value.setting == "no_such_setting"


def test_the_docs_table_is_the_one_the_table_derives():
    page = DOCS.read_text(encoding="utf-8")
    assert setting_traits.with_table(page) == page, (
        "docs/configuration.md's settings table is stale: regenerate it with "
        "notebook.setting_traits.with_table")


@pytest.mark.parametrize(("name", "inside", "outside"), [
    ("approval_mode", "deny", "never"),
    ("errors", "outcome", "warn"),
])
def test_a_setting_with_choices_takes_only_those(name, inside, outside):
    assert getattr(Settings.resolve({}, {name: inside}), name) == inside
    with pytest.raises(ConfigError) as caught:
        Settings.resolve({}, {name: outside})
    assert caught.value.setting == name


@pytest.mark.parametrize(("value", "kept"),
                         [(1, 1.0), (1.0, 1.0), (3600, 3600.0), (3600.0, 3600.0)])
def test_a_float_settings_bounds_take_their_ends(value, kept):
    resolved = Settings.resolve({}, {"login_timeout": value}).login_timeout
    assert resolved == kept and isinstance(resolved, float)


@pytest.mark.parametrize("value", [0.999, 3600.001, True, "soon"])
def test_a_float_setting_past_its_bounds_or_not_a_number_is_refused(value):
    with pytest.raises(ConfigError) as caught:
        Settings.resolve({}, {"login_timeout": value})
    assert caught.value.setting == "login_timeout"


def test_the_notebooks_own_options_are_declared_settings_with_their_traits():
    traits = DesignProjects.class_traits(config=True)
    assert traits["approval_mode"].values == ("auto", "widget", "deny")
    assert (traits["login_timeout"].min, traits["login_timeout"].max) == (1.0, 3600.0)
    assert traits["errors"].default_value == "raise"


def test_when_a_change_applies_is_declared_not_named():
    applies = {row.name: row.declared.applies for row in rows(Settings)
               if row.declared.applies != "next session"}
    assert applies == {"http_trace": "at once", "trace_limit": "at once",
                       "approval_mode": "at next read", "login_timeout": "at next read",
                       "errors": "at next read"}
    row = next(line for line in setting_traits.docs_table().splitlines()
               if line.startswith("| `trace_limit`"))
    assert "| at once |" in row


def test_the_servers_gate_traits_are_the_declared_ones():
    from jupyter_design_projects.labserver import policy

    declared = {row.name: row for row in rows(Settings) if row.declared.gate}
    traits = policy._policy_class().class_traits(config=True)
    assert set(traits) == set(declared)
    for name, row in declared.items():
        assert (traits[name].default_value, traits[name].help) == (row.default,
                                                                   row.declared.help)
