"""Every route string of the reference service, declared once (PROTOCOL §1–§5): the
route tables, the ASGI wrappers that match a path and the error-shape table read them
from here."""

from __future__ import annotations

# -- OAuth (PROTOCOL §1) ---------------------------------------------------------------------
TOKEN = "/v1/oauth/token"
AUTHORIZE = "/oauth/authorize"
#: the registered redirect of the paste-the-code fallback: shows `code#state`
OAUTH_CODE_PAGE = "/oauth/code/callback"
#: the Jupyter server's own redirect, under its sign-in proxy's prefix (labserver/)
JUPYTER_CALLBACK = "/oauth/callback"
#: RFC 7009 token revocation
REVOKE = "/v1/oauth/revoke"

# -- OAuth discovery for standard MCP clients (RFC 9728, RFC 8414) -------------------------------
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server"

# -- Design REST and MCP (PROTOCOL §2, §3) ----------------------------------------------------
#: every Design REST and MCP route starts with this (the gate checks their headers)
DESIGN_PREFIX = "/v1/design/"
DESIGN_CONSENT = "/v1/design/consent"
DESIGN_GRANTS = "/v1/design/grants"
DESIGN_GRANT = "/v1/design/grants/{project_id}"
DESIGN_MCP = "/v1/design/mcp"
#: the Design settings page a person uses outside the notebook (grants, like the web app)
DESIGN_SETTINGS = "/design/settings"
DESIGN_SETTINGS_GRANTS = "/design/settings/grants"

# -- Projects org API (PROTOCOL §4): one project's routes hang under PROJECT ------------------
ORGANIZATIONS = "/api/organizations"
#: the org's projects: GET lists them, POST creates one (the hosted claude.ai shapes)
PROJECTS = "/api/organizations/{org}/projects"
#: PUT updates name, description, prompt_template
PROJECT = "/api/organizations/{org}/projects/{project}"
PROJECT_DETAIL = PROJECT + "/detail"
PROJECT_KB_STATS = PROJECT + "/kb/stats"
PROJECT_KB_SEARCH = PROJECT + "/kb/search"
PROJECT_DOCS = PROJECT + "/docs"
PROJECT_DOC = PROJECT + "/docs/{doc}"
PROJECT_FILE_EXTRACTED = PROJECT + "/files/{file}/extracted"
PROJECT_FILE_RAW = PROJECT + "/files/{file}/raw"

# -- Projects remote-session route (PROTOCOL §5) ----------------------------------------------
REMOTE_SESSION = "/v2/ccr-sessions/-/chat-project"

# -- fault injection (tests only, loopback only) ---------------------------------------------
FAULTS = "/_faults"
