"""Where the client's settings come from: defaults, then the environment, then traits.

`Settings.resolve(env, overrides)` is pure: the environment and the trait values are
passed in. Environment wins over defaults, overrides (the `%config DesignProjects.*`
traits) win over the environment. No service configured means the embedded reference
service: `embedded` is then True and the URLs are filled in when it has started.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from .core.origins import origin
from .core.redaction import Secret
from .errors import ConfigError

#: the first-party OAuth client id the reference service (and this client) use
FIRST_PARTY_CLIENT_ID = "jdp-notebook-client"

ENVIRONMENT = {
    "JDP_API_BASE_URL": "api_base_url",
    "JDP_WEB_BASE_URL": "web_base_url",
    "JDP_OAUTH_TOKEN_URL": "oauth_token_url",
    "JDP_OAUTH_AUTHORIZE_URL": "oauth_authorize_url",
    "JDP_OAUTH_CLIENT_ID": "oauth_client_id",
    "JDP_ORG_UUID": "org_uuid",
    "JDP_CREDENTIALS_FILE": "credentials_file",
    "CLAUDE_PROJECT_UUID": "project_uuid",
    "CLAUDE_SESSION_JWT": "session_jwt",
}


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
    # gates (spec §1, §10); all on for the reference service
    allow_design_sync: bool = True
    allow_projects_tool: bool = True
    design_feature_flag: bool = True
    essential_traffic_only: bool = False
    # debugging
    http_trace: bool = False

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

    def projects_gates(self) -> tuple[tuple[str, bool], ...]:
        """Spec §11's order before any credential is looked at: the policy, a first-party
        service, then essential-traffic-only mode; each (gate, open)."""
        return (("allow_projects_tool", self.allow_projects_tool),
                ("api_base_url", bool(self.api_base_url)),
                ("essential_traffic_only", not self.essential_traffic_only))

    def with_endpoints(self, **endpoints: Any) -> Settings:
        return dataclasses.replace(self, **endpoints)

    @classmethod
    def resolve(
        cls, env: Mapping[str, str], overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        values: dict[str, Any] = {}
        for var, field in ENVIRONMENT.items():
            if env.get(var):
                values[field] = env[var]
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
