"""Where the client's settings come from: each declared once, then the environment and the
traits read from that one declaration.

Every setting is one field of `Settings` below: its name, its type (the annotation), its
default, and its `Declared` metadata (help, environment variable, whether a trait carries
it, when a change applies, its validation), written with `setting()`. Everything
else is derived from it: the environment map (`ENVIRONMENT`, `GATES`), the traits
(`Row.trait`: the magics' `%config`, the Jupyter server's gates in `labserver/policy.py`)
and docs/configuration.md's table (a test compares it). A secret (`session_jwt`) is never a
trait: `%config DesignProjects` prints every trait's value.

`Settings.resolve(env, overrides)` is pure: the environment and the trait values are
passed in. Environment wins over defaults, overrides (the traits) win over the
environment. No service configured means the embedded reference service: `embedded` is
then True and the URLs are filled in when it has started (`using_service`) — the Jupyter
server's one service when `JDP_SERVICE_FILE` names it, else one this process starts.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .core.trace_limits import TRACE_LIMIT, TRACE_LIMIT_MAX, TRACE_LIMIT_MIN

if TYPE_CHECKING:
    from .core.redaction import Secret
    from .errors import ConfigError

#: the first-party OAuth client id the reference service (and this client) use
FIRST_PARTY_CLIENT_ID = "jdp-notebook-client"
#: what every Design request names as its client platform (`anthropic-client-platform`)
DEFAULT_CLIENT_PLATFORM = "jupyter_design_projects"
_PLATFORM = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: how a gate's environment variable is written (case does not matter)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
#: the gates that close each tool, in the order a closed one is named (spec §1, §11)
DESIGN_POLICY = ("allow_design_sync", "essential_traffic_only", "design_feature_flag")
PROJECTS_POLICY = ("allow_projects_tool", "essential_traffic_only")
#: the plain types a setting may have, by the name its annotation gives
PLAIN_TYPES: Mapping[str, type] = {"str": str, "bool": bool, "int": int, "float": float}
#: the one other type a setting may have: a secret's, never a trait nor printed
SECRET_TYPE = "Secret | None"


@dataclasses.dataclass(frozen=True)
class Declared:
    """What a setting declares besides its name, type and default (the field's own)."""

    #: what it does, in one or two sentences: the trait's `%config` help and the docs
    help: str
    #: the environment variable that sets it, if one does
    env: str | None = None
    #: whether a `%config DesignProjects.<name>` trait carries it (never for a secret)
    trait: bool = True
    #: a policy gate (spec §1, §10): the Jupyter server's config sets it too
    gate: bool = False
    #: the least and the most an int or float setting may be (the trait's min and max too)
    bounds: tuple[float, float] | None = None
    #: the only values a str setting may take (the trait is then an Enum of them)
    choices: tuple[str, ...] | None = None
    #: when a change applies: "next session", "at once" or "at next read" (the notebook's)
    applies: str = "next session"
    #: validation: (name, value) -> the value to keep, or ConfigError
    check: Callable[[str, Any], Any] | None = None


def setting(default: Any, help: str, **declared: Any) -> Any:
    """A field of `Settings`: its default and its declaration."""
    return dataclasses.field(default=default,
                             metadata={"setting": Declared(help, **declared)})


@dataclasses.dataclass(frozen=True)
class Row:
    """One setting as every derivation reads it: name, type, default and declaration."""

    name: str
    #: str, bool or int; None for a secret
    kind: type | None
    default: Any
    declared: Declared

    @property
    def secret(self) -> bool:
        return self.kind is None

    def trait(self) -> Any:
        """The traitlets trait that carries this setting: its type, default, bounds or
        choices, and help (the magics' `%config DesignProjects.<name>`, and the Jupyter
        server's policy traits for the gates)."""
        from traitlets import Bool, Enum, Float, Int, Unicode

        help, bounds = self.declared.help, self.declared.bounds or (None, None)
        if self.kind is bool:
            return Bool(self.default, config=True, help=help)
        if self.kind in (int, float):
            number = Int if self.kind is int else Float
            return number(self.default, min=bounds[0], max=bounds[1], config=True, help=help)
        if self.kind is str and self.declared.choices:
            return Enum(self.declared.choices, self.default, config=True, help=help)
        if self.kind is str:
            return Unicode(self.default, config=True, help=help)
        raise TypeError(f"setting {self.name!r}: no trait for {self.kind!r}")


def rows(settings: type) -> tuple[Row, ...]:
    """The settings a `Settings` class (or a subclass that adds some) declares, in order."""
    return _rows(settings)


@functools.cache
def _rows(settings: Any) -> tuple[Row, ...]:
    out = []
    for field in dataclasses.fields(settings):
        declared = field.metadata.get("setting")
        if not isinstance(declared, Declared):
            raise TypeError(f"setting {field.name!r} is not declared with setting()")
        # the annotation's text (annotations are deferred): no import of the secret type
        named = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
        if named not in PLAIN_TYPES and named != SECRET_TYPE:
            raise TypeError(f"setting {field.name!r}: {named!r} is not a setting's type "
                            f"({', '.join(PLAIN_TYPES)} or {SECRET_TYPE})")
        row = Row(field.name, PLAIN_TYPES.get(named), field.default, declared)
        if row.secret and declared.trait:
            raise TypeError(f"setting {field.name!r} is a secret: it can never be a trait")
        out.append(row)
    return tuple(out)


def environment(settings: type) -> dict[str, str]:
    """Each environment variable that sets a setting → the setting."""
    return {row.declared.env: row.name for row in rows(settings) if row.declared.env}


def _refused(setting: str, reason: str) -> ConfigError:
    """A ConfigError (the error tree loads with the first call, not at `%load_ext`)."""
    from .errors import ConfigError

    return ConfigError(setting, reason)


def check_url(setting: str, url: str) -> str:
    """Refuse URLs that parsers disagree on (backslashes, userinfo) or that are not http(s)."""
    if "\\" in url:
        raise _refused(setting, "backslashes are not allowed in URLs")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _refused(setting, "must be an http(s) URL with a host")
    if parts.username or parts.password or "@" in parts.netloc:
        raise _refused(setting, "must not carry user information")
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise _refused(setting, "plain http is allowed only on loopback")
    return url.rstrip("/")


def _platform(setting: str, value: Any) -> str:
    if not isinstance(value, str) or not _PLATFORM.match(value):
        raise _refused(setting, "must be 1-64 of A-Z a-z 0-9 _ . -")
    return value


def gate_value(setting: str, raw: str) -> bool:
    """A gate's value as an environment variable writes it: 1/true/yes/on or 0/false/no/off."""
    word = raw.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise _refused(setting, "must be one of 1, true, yes, on, 0, false, no, off")


#: how a number setting's type is named in a refusal
_NUMBER: Mapping[type | None, str] = {int: "a whole number", float: "a number"}


def _from_env(row: Row, var: str, raw: str) -> Any:
    """An environment variable's text as the setting's type."""
    if row.kind is bool:
        return gate_value(var, raw)
    if row.kind in (int, float):
        try:
            return row.kind(raw.strip())
        except ValueError:
            raise _refused(var, f"must be {_NUMBER[row.kind]}") from None
    if row.kind is str:
        return raw
    from .core.redaction import Secret

    return Secret(raw)


def _checked(row: Row, value: Any) -> Any:
    """The value after the row's validation: its type's, its bounds, its own check."""
    if row.kind in (int, float) and row.declared.bounds is not None:
        low, high = row.declared.bounds
        kinds = (int,) if row.kind is int else (int, float)  # an int is a float's value
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            raise _refused(row.name, f"must be {_NUMBER[row.kind]} from {low:,} to "
                                        f"{high:,}, got {value!r}")
        value = row.kind(value)
    elif row.kind is bool and not isinstance(value, bool):
        raise _refused(row.name, f"must be True or False, got {value!r}")
    elif row.declared.choices and value not in row.declared.choices:
        raise _refused(row.name, f"must be one of {', '.join(row.declared.choices)}, "
                                    f"got {value!r}")
    return row.declared.check(row.name, value) if row.declared.check else value


_URL = {"check": check_url}
_GATE = {"gate": True}


@dataclasses.dataclass(frozen=True)
class Settings:
    """The client's settings, each declared once (see the module's docstring)."""

    api_base_url: str = setting(
        "", "The Design MCP and REST base URL, and the Projects remote-session route "
        "(empty: the embedded offline reference service).", env="JDP_API_BASE_URL", **_URL)
    web_base_url: str = setting(
        "", "The Projects org API base URL (empty: api_base_url).", env="JDP_WEB_BASE_URL", **_URL)
    oauth_token_url: str = setting(
        "", "The OAuth token endpoint (empty: {api_base_url}/v1/oauth/token).",
        env="JDP_OAUTH_TOKEN_URL", **_URL)
    oauth_authorize_url: str = setting(
        "", "The OAuth authorize page (empty: {api_base_url}/oauth/authorize).",
        env="JDP_OAUTH_AUTHORIZE_URL", trait=False, **_URL)
    oauth_client_id: str = setting(
        FIRST_PARTY_CLIENT_ID, "The OAuth client id (the first-party client's by default).",
        env="JDP_OAUTH_CLIENT_ID")
    org_uuid: str = setting(
        "", "The organization of the attached Project (empty: the first of "
        "GET /api/organizations).", env="JDP_ORG_UUID")
    credentials_file: str = setting(
        "", "A mode-0600 credential file to use instead of the system keyring (empty: the "
        "keyring, else a file in the user data directory).", env="JDP_CREDENTIALS_FILE")
    project_uuid: str = setting(
        "", "The attached Project (spec §10: the session environment names it; there is no "
        "other way to pick one).", env="CLAUDE_PROJECT_UUID", trait=False)
    session_jwt: Secret | None = setting(
        None, "A remote-session token: the Projects calls then use the remote-session "
        "route. A secret, so never a trait.", env="CLAUDE_SESSION_JWT", trait=False)
    service_file: str = setting(
        "", "Set by the server extension: the runtime file naming the Jupyter server's one "
        "reference service, which its kernels use.", env="JDP_SERVICE_FILE", trait=False)
    warm_preview_browser: bool = setting(
        False, "Launch the embedded service's preview browser as it starts (about 300 MiB "
        "more per person, bench/README.md, for a first preview that does not wait); False: "
        "only when a preview first needs it.", env="JDP_WARM_PREVIEW_BROWSER", trait=False)
    allow_design_sync: bool = setting(
        True, "Policy gate for Design (spec §1).", env="JDP_ALLOW_DESIGN_SYNC", **_GATE)
    allow_projects_tool: bool = setting(
        True, "Policy gate for Projects (spec §10).", env="JDP_ALLOW_PROJECTS_TOOL", **_GATE)
    design_feature_flag: bool = setting(
        True, "Feature gate for Design (spec §1).", env="JDP_DESIGN_FEATURE_FLAG", **_GATE)
    essential_traffic_only: bool = setting(
        False, "Essential-traffic-only mode: turns Design and Projects off when True.",
        env="JDP_ESSENTIAL_TRAFFIC_ONLY", **_GATE)
    grant_watch: bool = setting(
        True, "While a grant card waits, watch for a grant given elsewhere (Design "
        "settings) and go on (spec §8).")
    client_platform: str = setting(
        DEFAULT_CLIENT_PLATFORM, "The anthropic-client-platform header of every Design "
        "request (spec §5).", env="JDP_CLIENT_PLATFORM", check=_platform)
    http_trace: bool = setting(
        False, "Record every HTTP exchange, redacted (the trace can be turned on and off "
        "at any time).", applies="at once")
    trace_limit: int = setting(
        TRACE_LIMIT, "How many exchanges the HTTP trace keeps (the oldest go first).",
        bounds=(TRACE_LIMIT_MIN, TRACE_LIMIT_MAX), applies="at once")
    approval_mode: str = setting(
        "auto", "How Design asks a person: 'widget' always shows approval cards, 'deny' "
        "never asks (fails closed), 'auto' shows cards only where someone can click "
        "(stdin allowed) and fails closed elsewhere (nbclient, papermill).",
        choices=("auto", "widget", "deny"), applies="at next read")
    login_timeout: float = setting(
        300.0, "How long a sign-in keeps its one-time loopback listener open for the sign-in "
        "page's redirect (seconds).", bounds=(1.0, 3600.0), applies="at next read")
    errors: str = setting(
        "raise", "'raise': an expected failure or refusal fails the cell with one line "
        "naming the next step (Run All and papermill stop there); 'outcome': it returns the "
        "error outcome instead. Either way the magic's last outcome keeps it.",
        choices=("raise", "outcome"), applies="at next read")

    @property
    def embedded(self) -> bool:
        """No service configured: the client runs the reference service itself."""
        return not self.api_base_url

    @property
    def allowed_origins(self) -> frozenset[str]:
        """Exactly the configured origins: nothing else ever receives a token."""
        from .core.origins import origin

        return frozenset(
            origin(url)
            for url in (self.api_base_url, self.web_base_url, self.oauth_token_url)
            if url
        )

    def gate_open(self, gate: str) -> bool:
        """Whether one of `GATES` lets its tool run (essential-traffic-only closes)."""
        value = bool(getattr(self, gate))
        return not value if gate == "essential_traffic_only" else value

    def closed_by_policy(self, tool: str) -> str | None:
        """The first policy gate that closes `tool` ("Design" or "Projects"), or None."""
        gates = DESIGN_POLICY if tool == "Design" else PROJECTS_POLICY
        return next((gate for gate in gates if not self.gate_open(gate)), None)

    def design_gates(self) -> tuple[tuple[str, bool], ...]:
        """Spec §1's gates of the Design tool, each (gate, open): the policy gates, then
        a configured first-party service."""
        return (*((gate, self.gate_open(gate)) for gate in DESIGN_POLICY),
                ("api_base_url", bool(self.api_base_url)))

    def projects_gates(self) -> tuple[tuple[str, bool], ...]:
        """Spec §11's order before any credential is looked at: the policy, a first-party
        service, then essential-traffic-only mode; each (gate, open)."""
        return (("allow_projects_tool", self.allow_projects_tool),
                ("api_base_url", bool(self.api_base_url)),
                ("essential_traffic_only", not self.essential_traffic_only))

    @property
    def design_enabled(self) -> bool:
        """Every Design gate is open: the Design tool is offered to a model."""
        return all(open_ for _, open_ in self.design_gates())

    @property
    def projects_enabled(self) -> bool:
        """Every Projects gate is open and a Project is attached (spec §10): the Projects
        tool is offered to a model."""
        return all(open_ for _, open_ in self.projects_gates()) and bool(self.project_uuid)

    def using_service(self, service_env: Mapping[str, str]) -> Settings:
        """These settings pointed at a reference service given as its client environment
        (`EmbeddedService.client_env()`): its URLs; its org, project and credential file
        unless these settings name their own."""
        service = Settings.resolve(service_env)
        return dataclasses.replace(
            self,
            api_base_url=service.api_base_url,
            web_base_url=service.web_base_url,
            oauth_token_url=service.oauth_token_url,
            oauth_authorize_url=service.oauth_authorize_url,
            org_uuid=self.org_uuid or service.org_uuid,
            project_uuid=self.project_uuid or service.project_uuid,
            credentials_file=self.credentials_file or service.credentials_file,
        )

    @classmethod
    def resolve(
        cls, env: Mapping[str, str], overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        """The settings: each declared default, then its environment variable, then an
        override (a trait's value) that is neither None nor empty; each checked."""
        declared = {row.name: row for row in rows(cls)}
        values: dict[str, Any] = {}
        for row in declared.values():
            var = row.declared.env
            if var and env.get(var):
                values[row.name] = _from_env(row, var, env[var])
        for name, value in (overrides or {}).items():
            if value not in (None, ""):
                values[name] = value
        if isinstance(values.get("session_jwt"), str):
            from .core.redaction import Secret

            values["session_jwt"] = Secret(values["session_jwt"])
        api = values.get("api_base_url", "")
        if api:
            values.setdefault("web_base_url", api)
            values.setdefault("oauth_token_url", api.rstrip("/") + "/v1/oauth/token")
            values.setdefault("oauth_authorize_url", api.rstrip("/") + "/oauth/authorize")
        for name, value in values.items():
            if name not in declared:
                raise _refused(name, "is not a setting")
            values[name] = _checked(declared[name], value)
        return cls(**values)


#: each environment variable that sets a setting → the setting
ENVIRONMENT = environment(Settings)
#: the gates (spec §1, §10), each setting → its variable: the kernels read them as any
#: setting, the Jupyter server from its config too (`labserver/policy.py`), one policy
GATES = {row.name: row.declared.env for row in rows(Settings)
         if row.declared.gate and row.declared.env}


def trait_overrides(traits: Mapping[str, Any], settings: type = Settings) -> dict[str, Any]:
    """A kernel's setting traits as overrides for `Settings.resolve`: a trait the kernel
    leaves at its declared default defers to the environment, so a gate closed there (by
    the Jupyter server's policy, say) is not reopened by a default, nor a client platform
    the environment names replaced by the default one."""
    defaults = {row.name: row.default for row in rows(settings)}
    return {name: value for name, value in traits.items() if value != defaults[name]}
