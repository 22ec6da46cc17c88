"""The identity headers every Design request of the client names beside the bearer
(spec §5), for tests that speak to the Design routes with a raw HTTP client: the reference
service answers a Design request without `anthropic-version` with a 400."""

from __future__ import annotations

from jupyter_design_projects.design.session import identity_headers
from jupyter_design_projects.settings import DEFAULT_CLIENT_PLATFORM

DESIGN_HEADERS = identity_headers(DEFAULT_CLIENT_PLATFORM)
