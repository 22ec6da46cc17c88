"""The words of each reason code an error carries (a gate, a scope expansion, an unknown
operation, a sync or upload rule, a transport failure, the HTTP trace's view): what it
means, and for most the remedy that answers it. `guidance` builds the errors' lines from
them; `tests/errors/test_error_lines_table.py` walks every code. Like `guidance`, this module
imports no error class."""

from __future__ import annotations

from .remedy import Remedy, advise

#: sign in again
LOGIN = Remedy("login")
#: why each gate is closed, and the remedy that opens it; a gate not listed opens with
#: `= True`
GATE_OPENERS = {
    "essential_traffic_only": ("essential-traffic-only mode is on",
                               Remedy("set_setting", name="essential_traffic_only",
                                      value=False)),
    "api_base_url": ("no first-party service is configured",
                     Remedy("set_setting", name="api_base_url")),
}
#: why the Projects scopes could not be added, and what to do about it
SCOPE_EXPANSION_REASONS = {
    "policy_disabled": ("the allow_projects_tool policy is off",
                        Remedy("set_setting", name="allow_projects_tool", value=True)),
    "no_token": ("there is no signed-in credential", LOGIN),
    "custom_oauth_client": ("the credential belongs to a custom OAuth client and cannot be "
                            "expanded", Remedy("login", first_party=True)),
    "no_refresh_token": ("the credential has no refresh token", LOGIN),
    "lock_contended": ("another process holds the credential lock",
                       Remedy("run_again", why="in a moment")),
    "refreshed_elsewhere": ("another process refreshed the credential without the project "
                            "scopes", Remedy("run_again")),
    "save_failed": ("the expanded credential could not be saved",
                    Remedy("set_setting", name="credentials_file")),
    "scopes_not_granted": ("refresh succeeded but project scopes were not granted", LOGIN),
    "refresh_refused": ("the token endpoint refused the refresh", LOGIN),
}
#: why an operation is unknown, and what to do about it
UNKNOWN_OPERATION_REASONS = {
    "call_list_first": ("is not known yet (the catalogue has not been read)",
                        Remedy("list_operations")),
    "upgrade_client": ("is a write operation this client has no local schema for",
                       Remedy("upgrade_client")),
    "not_in_catalogue": ("is not in the service's catalogue", Remedy("list_operations")),
}
#: the words of each SyncRefused rule
SYNC_RULES = {
    "missing": "no such folder",
    "not_a_directory": "it is not a folder",
    "unreadable": "the folder cannot be read",
    "unwritable": "a file in it cannot be written",
}
UPLOAD_RULES = {
    "outside_cwd": "is outside the working directory",
    "missing": "does not exist",
    "unreadable": "cannot be read",
    "not_regular": "is a directory or special file, not a regular file",
    "symlink_loop": "is a symlink loop",
    "replaced": "was replaced during the upload",
    "too_large": "is larger than 26,214,400 bytes (25 MiB)",
    "not_utf8": "is not UTF-8 text",
    "undecodable": "is not valid text in the encoding given",
}
#: what a transport failure's reason code means, in words, for the codes whose error
#: carries no words of its own (`detail`)
TRANSPORT_REASONS = {
    "deadline": "no complete answer within the request deadline",
    "too_large": "the answer was larger than its byte cap, so reading stopped",
}
#: the transport reason codes (`errors.transport.REASONS`) that mean no connection was made
CONNECTION_FAILURES = frozenset({"connect"})
#: each way the HTTP trace's view can fail: its line (from `detail`) and its remedy
TRACE_REASONS = {
    "trace_off": ("The HTTP trace is off, so it holds no exchanges{detail}.",
                  Remedy("trace_on")),
    "no_exchanges": ("The HTTP trace holds no exchanges yet{detail}.", Remedy("make_a_call")),
    "no_folder": ("Cannot write the HAR to {detail}: its folder does not exist.",
                  advise("create the folder, or give a path in one that exists")),
    "not_writable": ("Cannot write the HAR to {detail}.",
                     advise("give a path in a folder you can write to")),
    "out_of_range": ("There is no exchange {detail}.", Remedy("trace_list")),
}
