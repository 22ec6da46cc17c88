"""The `%design` subcommands as data (see `subcommands`): each one's synopsis, one-line
summary, `--help` text and arguments, and `OPERATION`, the form any other word takes (a
Design operation). Every limit in them is a core constant, never a literal."""

from __future__ import annotations

from ...core.display import MAX_PATH_CHARS
from ...core.plans import CARD_LIMIT, MAX_PLAN_PATHS
from ...core.trace_limits import TRACE_LIMIT
from ...design.deck.slides import TABLE_MAX_ROWS
from .declared import COPY_FORMS, Arg, Subcommand, exchange_number

#: the synopsis and arguments of `%design calls` (and of its former name, `%design history`)
CALLS_SYNOPSIS = "[--replay N [--with JSON]] [--diff A B] [--copy N [--as cell|python|curl]]"
CALLS_ARGS = (
    Arg(("--replay",), {"type": int, "default": None, "metavar": "N"}),
    Arg(("--with",), {"dest": "edits", "default": None, "metavar": "JSON"}),
    Arg(("--diff",), {"type": int, "nargs": 2, "default": None, "metavar": ("A", "B")}),
    Arg(("--copy",), {"type": int, "default": None, "metavar": "N"}),
    Arg(("--as",), {"dest": "as_", "choices": COPY_FORMS, "default": "cell"}))


DESIGN = (
    Subcommand(
        "design", "list", "[--full]",
        "the operation catalogue (filterable table)",
        "The Design operation catalogue: filter by name, read-only, destructive and "
        "needs-approval; pick one to see its description and input schema. An unchanged "
        "catalogue is shown compactly; --full shows every schema again.",
        (Arg(("--full",), {"action": "store_true"}),)),
    Subcommand(
        "design", "consent", "",
        "give consent for agents to use Design",
        "Give consent for agents to use your Design projects (the explicit form of the "
        "consent card)."),
    Subcommand(
        "design", "revoke", "",
        "withdraw consent (forgets approved plans and grants)",
        "Withdraw consent; also forgets approved plans and verified grants in this "
        "session."),
    Subcommand(
        "design", "status", "",
        "consent, approved plans and durable grants",
        "Consent and the durable grants as the service holds them now (read at each "
        "status, so the side panel and every kernel agree), this session's approved "
        "plans with their expiry, and grant-ineligible projects."),
    Subcommand(
        "design", "login", "[--paste | CODE]",
        "sign in (the sign-in page redirects back; --paste: paste CODE#STATE)",
        "Sign in. Shows a link to the sign-in page and returns at once; after you click "
        "Authorize there, the page redirects to a one-time listener on 127.0.0.1 and the "
        "card's status line says you are signed in (it waits DesignProjects.login_timeout "
        "seconds). --paste (or when no loopback port can be bound): the page shows a "
        "CODE#STATE instead, which you paste at the prompt or pass as %design login CODE.",
        (Arg(("code",), {"nargs": "?", "default": None}),
         Arg(("--paste",), {"action": "store_true"}))),
    Subcommand(
        "design", "deck",
        "[open|new|push|show|from-notebook|export] [NAME_OR_ID | PATH] [--code] [--notes] "
        "[--theme light|dark|PATH.css]",
        "the notebook's deck: open NAME_OR_ID, new NAME, push, show (default), "
        "from-notebook PATH.ipynb, export PATH.pdf or PATH.html",
        "The notebook's deck of slides. open NAME_OR_ID binds it to a Design project (by id, "
        "or by exact name) and takes the project's design system; new NAME creates a project "
        "(its approval card asks first); show (the default) lists what is staged; push turns "
        f"the staged files into plans, one finalize_plan card each (at most {MAX_PLAN_PATHS} "
        f"paths and {CARD_LIMIT:,} characters per card), writes each approved plan with its "
        "token and shows previews of the slides. A push again after a failure writes only "
        "what the project does not hold yet. Nothing is sent before push. "
        "from-notebook PATH.ipynb stages one slide page per slide of a notebook (its "
        "slideshow metadata: slide and subslide start a page, fragment and - join it, skip "
        "is left out, notes become speaker notes; without metadata each level-1 or level-2 "
        "Markdown heading starts a page) as slides/NN-slug.html, with math, figures, tables "
        "and text outputs; --code shows the code cells' inputs too. export PATH.pdf writes "
        "16:9 pages through a local Chromium (a slide taller than a page is scaled down, "
        "or continued on the next page, and the outcome says which); export PATH.html one "
        "offline reveal.js file (arrow keys and Space step slides and fragments, Esc the "
        "overview); --notes adds the speaker notes (S opens the speaker view). Export "
        "reads the deck as the project holds it (what was pushed). --theme light, dark or "
        "PATH.css restyles every staged slide (a CSS file of your own follows the deck's).",
        (Arg(("verb",), {"nargs": "?", "default": "show",
                         "metavar": "open|new|push|show|from-notebook|export",
                         "choices": ("open", "new", "push", "show", "from-notebook",
                                     "export")}),
         Arg(("target",), {"nargs": "*", "metavar": "NAME_OR_ID"}),
         Arg(("--code",), {"action": "store_true"}),
         Arg(("--notes",), {"action": "store_true"}),
         Arg(("--theme",), {"default": None, "metavar": "light|dark|PATH.css"}))),
    Subcommand(
        "design", "slide", "PATH --drop",
        "remove a staged slide from the deck",
        "Stage a slide of the notebook's deck: %%design slide PATH takes the cell body as "
        "Markdown; $name places a matplotlib figure (a PNG asset), a pandas DataFrame (an "
        f"HTML table of at most {TABLE_MAX_ROWS} rows) or a string from the notebook; \\$name "
        f"stays literal. PATH ends in .html and has at most {MAX_PATH_CHARS} characters. "
        "%design slide PATH --drop removes a staged slide. Nothing is sent before "
        "%design deck push.",
        (Arg(("path",), path=True), Arg(("--drop",), {"action": "store_true"})),
        cell=("PATH", "stage a slide from the cell's Markdown ($name: a figure, table or "
                      "text)")),
    Subcommand(
        "design", "trace", "[on|off] [--clear] [--har PATH] [--curl [N]]",
        "the HTTP trace: table, on/off, HAR file, curl; the notifications heard",
        "The HTTP trace of this session (both pipelines, the OAuth token requests included; "
        "credentials redacted) as a table, newest first, numbered (column n). `on` / `off` "
        "start or stop recording at any time (or %config DesignProjects.http_trace); "
        "--clear forgets what was recorded (exchanges and notifications); --har PATH "
        "writes it as a HAR 1.2 file (browser "
        "DevTools Network panel 'Import HAR', mitmproxy, Charles, Insomnia); --curl N shows "
        "exchange N as a curl command, the token as $JDP_TOKEN (without N: the last one). "
        f"The trace keeps the last {TRACE_LIMIT:,} exchanges (DesignProjects.trace_limit).",
        (Arg(("switch",), {"nargs": "?", "choices": ("on", "off"), "metavar": "on|off"}),
         Arg(("--clear",), {"action": "store_true"}),
         Arg(("--har",), {"metavar": "PATH"}, path=True),
         Arg(("--curl",), {"nargs": "?", "const": "last", "type": exchange_number,
                           "metavar": "N"}))),
    Subcommand(
        "design", "calls", CALLS_SYNOPSIS,
        "every call of the session: table, replay with changes, diff, copy as code",
        "The call history: every Design and Projects call of this session (from the magics, "
        "the inspector or Python), newest first (the journal of writes is %project "
        "history): its arguments (plan tokens hidden), state, a summary, the client's own "
        "time and the trace's exchange numbers (.df is the table). --replay N "
        "calls N again through the same checks and approval cards, its arguments changed by "
        "--with JSON or the cell body of %%design calls --replay N (a key set to null is "
        "dropped; a key with / is a JSON Pointer to one value inside an argument, so the "
        "key files/0/path changes only that path); --diff A B compares "
        "two results; --copy N shows N as a cell (--as "
        "cell), a Python line (--as python) or the curl of its last traced exchange "
        "(--as curl).",
        CALLS_ARGS,
        cell=("--replay N", "replay call N with the cell body's JSON as its changes")),
    Subcommand(
        "design", "history", CALLS_SYNOPSIS,
        "renamed: %design calls (the call history; %project history is the journal)",
        "The former name of %design calls, kept so old notebooks run: it runs %design calls "
        "and says so. The call history is %design calls; the journal of writes to the "
        "Project is %project history.",
        CALLS_ARGS, cell=("--replay N", "as %%design calls --replay N")),
    Subcommand(
        "design", "rpc", "METHOD ['JSON']",
        "send any JSON-RPC method on the live session; raw request and answer",
        "Send one JSON-RPC method (ping, tools/list, resources/list, prompts/list, any "
        "other) on the live Design session, with its headers, and show the raw request and "
        "answer (the bearer and every known secret redacted). The params are one JSON "
        "object, in single quotes on the line, or the cell body of %%design rpc "
        "METHOD; a notifications/… method is sent as a notification. tools/call runs as "
        "%design OPERATION does: the same checks, permission decision and approval card.",
        (Arg(("method",), {"metavar": "METHOD"}),
         Arg(("params",), {"nargs": "*", "metavar": "JSON"})),
        cell=("METHOD", "the cell body is the params (JSON)")),
    Subcommand(
        "design", "inspect", "",
        "the workbench: catalogue, a form per operation, Run (the same cards), notifications",
        "A widget with the live operation catalogue (filter by name or description) and, "
        "for the chosen operation, a form generated from its input schema: choices, "
        "checkboxes, bounded numbers, texts with the service's and the client's limits, "
        "lists and records with Add and Remove, required fields marked (*), descriptions as "
        "help. Run goes through the same permission decision as %design OPERATION, its "
        "approval card inline (approval_mode 'deny' still fails closed); the result shows "
        "as the outcome does, and a failure with its exchanges when the trace is on."),
    Subcommand(
        "design", "auth", "",
        "the sign-in, step by step: discovery, client, expiry, refreshes; Refresh now, "
        "Sign out",
        "The sign-in as the MCP Inspector's auth debugger shows it: the service's OAuth "
        "discovery documents (fetched now, no token sent), the client id, the "
        "authorization URL (state and code_challenge shortened), the code exchange, the "
        "scopes held and asked for, the expiry (when, and how long from now), the last "
        "refresh and why (a 401, an expiring token, the Projects scopes, or you), and "
        "every failure with its reason. No token, code or verifier is ever shown. Refresh "
        "now refreshes the token (under the same locks as every refresh); Sign out forgets "
        "the credential here and deletes it from the credential store (the file or the OS "
        "keyring). A button shows only when it would work."),
    Subcommand(
        "design", "last", "",
        "the last %design outcome, a failed one included",
        "The outcome of the last %design call of this session, including one that failed "
        "the cell (its .error, .data and .to_tool_result())."),
)

#: any other word after %design is the name of a Design operation to run
OPERATION = Subcommand(
    "design", "OPERATION", "[JSON | key=value …]",
    "run one Design operation",
    "Run the Design operation {operation!r}. Arguments: one JSON object (verbatim after "
    "the name), key=value words (values are JSON when they parse, else text; key=$var "
    "passes a variable), or $var holding a dict. %%design takes the JSON from the cell "
    "body. See %design list for the operations and their input schemas.",
    (Arg(("arguments",), {"nargs": "*", "metavar": "JSON | key=value"}),),
    cell=("", "the cell body is the JSON arguments"))
