"""Where the client's settings come from: defaults, then the environment, then traits.

`Settings.resolve(env, overrides)` is pure: the environment and the trait values are
passed in. Environment wins over defaults, overrides (the `%config DesignProjects.*`
traits) win over the environment. No service configured means the embedded reference
service: `embedded` is then True and the URLs are filled in when it has started
(`using_service`) — the Jupyter server's one service when `JDP_SERVICE_FILE` names it,
else one this process starts.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from .core.origins import origin
from .core.redaction import Secret
from .core.trace_limits import TRACE_LIMIT, check_trace_limit
from .errors import ConfigError

#: the first-party OAuth client id the reference service (and this client) use
FIRST_PARTY_CLIENT_ID = "jdp-notebook-client"
#: what every Design request names as its client platform (`anthropic-client-platform`)
DEFAULT_CLIENT_PLATFORM = "jupyter_design_projects"
_PLATFORM = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

ENVIRONMENT = {
    "JDP_API_BASE_URL": "api_base_url",
    "JDP_WEB_BASE_URL": "web_base_url",
    "JDP_OAUTH_TOKEN_URL": "oauth_token_url",
    "JDP_OAUTH_AUTHORIZE_URL": "oauth_authorize_url",
    "JDP_OAUTH_CLIENT_ID": "oauth_client_id",
    "JDP_ORG_UUID": "org_uuid",
    "JDP_CREDENTIALS_FILE": "credentials_file",
    "JDP_CLIENT_PLATFORM": "client_platform",
    "CLAUDE_PROJECT_UUID": "project_uuid",
    "CLAUDE_SESSION_JWT": "session_jwt",
    "JDP_SERVICE_FILE": "service_file",
}

#: the gates (spec §1, §10): each setting and the environment variable that sets it. A
#: kernel reads them as the other settings (a `%config DesignProjects.<gate>` trait wins);
#: the Jupyter server extension reads them too, with `c.DesignProjects.<gate>` in its
#: Jupyter config, so the side panel honours the same policy as the kernels
GATES = {
    "allow_design_sync": "JDP_ALLOW_DESIGN_SYNC",
    "allow_projects_tool": "JDP_ALLOW_PROJECTS_TOOL",
    "design_feature_flag": "JDP_DESIGN_FEATURE_FLAG",
    "essential_traffic_only": "JDP_ESSENTIAL_TRAFFIC_ONLY",
}
#: how a gate's environment variable is written (case does not matter)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
#: the gates that close each tool, in the order a closed one is named (spec §1, §11)
DESIGN_POLICY = ("allow_design_sync", "essential_traffic_only", "design_feature_flag")
PROJECTS_POLICY = ("allow_projects_tool", "essential_traffic_only")


@dataclasses.dataclass(frozen=True)
class Settings:
    api_base_url: str = ""
    web_base_url: str = ""
    oauth_token_url: str = ""
    oauth_authorize_url: str = ""
    oauth_client_id: str = FIRST_PARTY_CLIENT_ID
    org_uuid: str = ""
    credentials_file: str = ""
    project_uuid: str = ""
    session_jwt: Secret | None = None
    #: the Jupyter server's runtime file naming its reference service (see service_file)
    service_file: str = ""
    # gates (spec §1, §10); all on for the reference service
    allow_design_sync: bool = True
    allow_projects_tool: bool = True
    design_feature_flag: bool = True
    essential_traffic_only: bool = False
    #: the second Design gate (spec §1, §8): watch for a grant given elsewhere while a
    #: grant card waits
    grant_watch: bool = True
    #: the `anthropic-client-platform` header of every Design request (spec §5)
    client_platform: str = DEFAULT_CLIENT_PLATFORM
    # debugging
    http_trace: bool = False
    #: how many exchanges the HTTP trace's ring keeps
    trace_limit: int = TRACE_LIMIT

    @property
    def embedded(self) -> bool:
        """No service configured: the client runs the reference service itself."""
        return not self.api_base_url

    @property
    def allowed_origins(self) -> frozenset[str]:
        """Exactly the configured origins: nothing else ever receives a token."""
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
        values: dict[str, Any] = {}
        for var, field in ENVIRONMENT.items():
            if env.get(var):
                values[field] = env[var]
        for field, var in GATES.items():
            if env.get(var):
                values[field] = gate_value(var, env[var])
        for field, value in (overrides or {}).items():
            if value not in (None, ""):
                values[field] = value
        if isinstance(values.get("session_jwt"), str):
            values["session_jwt"] = Secret(values["session_jwt"])
        api = values.get("api_base_url", "")
        if api:
            values.setdefault("web_base_url", api)
            values.setdefault("oauth_token_url", api.rstrip("/") + "/v1/oauth/token")
            values.setdefault("oauth_authorize_url", api.rstrip("/") + "/oauth/authorize")
        for field in ("api_base_url", "web_base_url", "oauth_token_url", "oauth_authorize_url"):
            if values.get(field):
                values[field] = check_url(field, values[field])
        try:
            check_trace_limit(values.get("trace_limit", TRACE_LIMIT))
        except ValueError as exc:
            raise ConfigError("trace_limit", str(exc)) from None
        platform = values.get("client_platform", DEFAULT_CLIENT_PLATFORM)
        if not isinstance(platform, str) or not _PLATFORM.match(platform):
            raise ConfigError("client_platform", "must be 1-64 of A-Z a-z 0-9 _ . -")
        return cls(**values)


def check_url(setting: str, url: str) -> str:
    """Refuse URLs that parsers disagree on (backslashes, userinfo) or that are not http(s)."""
    if "\\" in url:
        raise ConfigError(setting, "backslashes are not allowed in URLs")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(setting, "must be an http(s) URL with a host")
    if parts.username or parts.password or "@" in parts.netloc:
        raise ConfigError(setting, "must not carry user information")
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ConfigError(setting, "plain http is allowed only on loopback")
    return url.rstrip("/")


def trait_overrides(traits: Mapping[str, Any]) -> dict[str, Any]:
    """A kernel's setting traits as overrides for `Settings.resolve`: a gate the kernel
    leaves at its default defers to the environment, so a gate closed there (by the Jupyter
    server's policy, say) is not reopened by a default."""
    defaults = {field.name: field.default for field in dataclasses.fields(Settings)}
    return {name: value for name, value in traits.items()
            if name not in GATES or value != defaults[name]}


def gate_value(setting: str, raw: str) -> bool:
    """A gate's value as an environment variable writes it: 1/true/yes/on or 0/false/no/off."""
    word = raw.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise ConfigError(setting, "must be one of 1, true, yes, on, 0, false, no, off")
