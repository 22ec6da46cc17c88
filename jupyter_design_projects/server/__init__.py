"""The reference service: a real local server that speaks PROTOCOL.md (Starlette, the
official MCP SDK, SQLite). It never imports client code (only the pure table
`core.design_operations`), and client code never imports it.

    server/
      app.py          create_app(config): the routes, the ASGI wrappers, the lifespan
      cli.py          jdp-server / python -m jupyter_design_projects.server
      context.py      ServiceConfig, Principal, ServiceContext (what a run shares)
      paths.py        every route string
      oauth.py        token endpoint, bearer authentication, discovery (§1)
      revocation.py   RFC 7009 token revocation
      owner.py        the per-run owner secret and the owner-only pages' check
      authorize_page.py  the Authorize/Deny page, its redirect policy, the code page (§1)
      forms.py        same-origin check and bounded read of a posted form
      bodies.py, request_body.py, envelopes.py   body limits, body replay, error shapes
      database.py, timestamps.py, seed.py        SQLite, RFC 3339 times, the demo data
      private_files.py  the data dir 0700 and every file in it 0600
      design/         gate, rest, mcp, operations, store, files, file_paths, plans,
                      preview, demo, errors (§2, §3)
      projects/       api, access, organizations, remote_session, store, search (§4, §5)
      faults/         switches, rules, routes (tests only, --faults)
"""

__all__ = [
    "app", "authorize_page", "bodies", "cli", "context", "database", "design", "envelopes",
    "faults", "forms", "oauth", "owner", "paths", "private_files", "projects", "request_body",
    "revocation", "seed", "timestamps"
]
