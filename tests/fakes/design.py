"""An in-memory Design service (httpx.MockTransport) for the DesignClient tests: consent,
grants, plan tokens, files and members, with a log of what was sent."""

import base64
import itertools
import json

import httpx

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.settings import Settings

BASE = "http://127.0.0.1:9"
NOW = 1_700_000_000_000
P1, P2 = "p1", "p2"
IDENTITY = {"name": "Quarterly Review Deck", "type": "slides",
            "url": "https://design.example/p/p1",
            "sharing": {"scope": "org", "link_permission": "view"}, "can_edit": True}


class FakeDesign:
    """A small stateful Design service: consent, grants, plan tokens, files, members."""

    def __init__(self, *, consent=True, grants=(), ineligible=(P2,), name=None, table=BY_NAME):
        #: the operations tools/list serves
        self.table = table
        self.consent = consent
        self.grants, self.ineligible = set(grants), set(ineligible)
        self.names = {P1: name or IDENTITY["name"], P2: "Partner Launch Kit"}
        self.files = {P1: {"index.html": "x", "old.html": "y"}, P2: {}}
        self.members = {P1: []}
        self.plans = {}
        #: single-use tokens a call has spent, and every token a call presented
        self.spent, self.presented = set(), []
        #: a plan refusal reason every plan check answers with (None: checked for real)
        self.refusal = None
        self.tokens = (f"dpt_{i}" for i in itertools.count(1))
        self.now_s = NOW / 1000
        self.log = []
        self.consent_get_status = 200
        self.plan_extra_writes = []

    def client(self):
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handle))

    def sent(self, kind=None):
        return [entry for entry in self.log if kind is None or entry[0] == kind]

    def calls(self):
        return [entry[1] for entry in self.log if entry[0] == "call"]

    # ----------------------------------------------------------------- routing
    def handle(self, request):
        path, method = request.url.path, request.method
        body = json.loads(request.content) if request.content else None
        if path == "/v1/design/mcp":
            return self.mcp(request, body)
        self.log.append((method, path))
        if path == "/v1/design/consent":
            if method == "GET":
                if self.consent_get_status != 200:
                    return answer(self.consent_get_status, {"type": "error"})
                return answer(200, {"agent_design_projects": self.consent})
            if method == "POST":
                self.consent = True
                return answer(204)
            existed, self.consent = self.consent, False
            self.grants.clear()
            return answer(204 if existed else 404)
        if path == "/v1/design/grants" and method == "GET":
            return answer(200, {"grants": [{"project_id": p, "created_at": "t"}
                                           for p in sorted(self.grants)]})
        if path == "/v1/design/grants" and method == "POST":
            if not self.consent:
                return answer(403, {"error": "needs_consent"})
            if body["project_id"] in self.ineligible:
                return answer(404, {"error": "grant_ineligible"})
            self.grants.add(body["project_id"])
            return answer(201, {"project_id": body["project_id"], "created_at": "t"})
        return answer(404, {"type": "error"})

    def mcp(self, request, body):
        method = body.get("method")
        if method == "initialize":
            return rpc(body, {"protocolVersion": "2025-03-26", "capabilities": {}},
                       headers={"mcp-session-id": "s1"})
        if method == "notifications/initialized":
            return answer(202)
        if method == "tools/list":
            return rpc(body, {"tools": [
                {"name": op.name, "description": f"{op.name}.", "inputSchema": {},
                 "annotations": {"readOnlyHint": op.floor.read_only,
                                 "destructiveHint": op.floor.destructive}}
                for op in self.table.values()]})
        name, args = body["params"]["name"], body["params"]["arguments"]
        self.log.append(("call", name, args))
        if not self.consent:
            return answer(403, {"error": "needs_consent"})
        tokenless_write = name in ("write_files", "create_support_js") and \
            not args.get("plan_token")
        if tokenless_write and args["project_id"] not in self.grants:
            return answer(403, {"error": "needs_project_grant",
                                "project_id": args["project_id"], "prompt": "grant?"})
        try:
            result = getattr(self, "op_" + name)(**args)
        except PermissionError as refused:
            return rpc(body, {"content": [{"type": "text", "text": str(refused)}],
                              "isError": True})
        if isinstance(result, list) and result and result[0].get("type") == "image":
            return rpc(body, {"content": result})
        return rpc(body, {"content": [{"type": "text", "text": json.dumps(result)}]})

    # ----------------------------------------------------------------- operations
    def require(self, token, project_id, writes=(), deletes=()):
        """The service's plan check, refusing as PROTOCOL §3's reference service words it;
        a token naming a reserved target or no path at all is spent by its first call."""
        plan = self.plans.get(token)
        if self.refusal is not None:
            raise PermissionError(refused(self.refusal))
        if token in self.spent:
            raise PermissionError(refused("spent"))
        if plan is None:
            raise PermissionError(refused("unknown"))
        if plan[0] != project_id:
            raise PermissionError(refused("other_project"))
        if not (set(writes) <= set(plan[1]) and set(deletes) <= set(plan[2])):
            raise PermissionError(refused("not_covered"))
        if not (plan[1] or plan[2]) or any(
                p.split("/")[-1].upper() == "CLAUDE.MD" or ".claude" in p.split("/")
                for p in [*plan[1], *plan[2]]):
            self.spent.add(token)
        self.presented.append(token)

    def forget_plans(self):
        """Consent revoked and given again elsewhere: the service holds no plan."""
        self.plans.clear()

    def op_get_project(self, project_id):
        if project_id not in self.names:
            raise PermissionError(f"no project {project_id}")
        return {**IDENTITY, "id": project_id, "name": self.names[project_id],
                "url": f"https://design.example/p/{project_id}"}

    def op_list_files(self, project_id, path=None, depth=None):
        return [{"path": p, "type": "file"} for p in sorted(self.files[project_id])]

    def op_render_preview(self, project_id, path, viewport=None):
        return [{"type": "image", "mimeType": "image/png",
                 "data": base64.b64encode(b"\x89PNG-ish").decode()}]

    def op_finalize_plan(self, project_id, writes=(), deletes=(), scope=None):
        token = next(self.tokens)
        writes = [w.removeprefix("./") for w in writes] + self.plan_extra_writes
        self.plans[token] = (project_id, writes, list(deletes))
        return {"plan_token": token, "project_id": project_id, "scope": "paths",
                "writes": writes, "deletes": list(deletes),
                "expires_at": int(self.now_s) + 900, "base_etags": {}}

    def op_write_files(self, project_id, files, plan_token=None):
        paths = [f["path"].removeprefix("./") for f in files]
        if plan_token:
            self.require(plan_token, project_id, writes=paths)
        for path, entry in zip(paths, files, strict=True):
            self.files[project_id][path] = entry["data"]
        return {"written": len(files)}

    def op_create_support_js(self, project_id, path=None, plan_token=None):
        return self.op_write_files(project_id, [{"path": path or "support.js", "data": "js"}],
                                   plan_token)

    def op_delete_files(self, project_id, plan_token, paths):
        self.require(plan_token, project_id, deletes=paths)
        for path in paths:
            self.files[project_id].pop(path, None)
        return {"deleted": len(paths)}

    def require_pathless(self, token, project_id):
        """A membership or sharing change: a plan finalized with no paths, spent here."""
        plan = self.plans.get(token)
        if plan is not None and (plan[1] or plan[2]):
            raise PermissionError(refused("paths_not_allowed"))
        self.require(token, project_id)

    def op_add_member(self, project_id, role, email, plan_token=None):
        self.require_pathless(plan_token, project_id)
        self.members[project_id].append((email, role))
        return {"account_uuid": "u1", "role": role}

    def op_update_member_role(self, project_id, account_uuid, role, plan_token=None):
        self.require_pathless(plan_token, project_id)
        return {"account_uuid": account_uuid, "role": role}

    def op_remove_member(self, project_id, account_uuid, plan_token=None):
        self.require_pathless(plan_token, project_id)
        return {"removed": True}

    def op_update_sharing(self, project_id, scope=None, link_permission=None, plan_token=None):
        self.require_pathless(plan_token, project_id)
        return {"sharing": {"scope": scope or "org", "link_permission": link_permission}}


def refused(reason):
    return f"Plan token refused ({reason}). Call finalize_plan for these paths first."


def answer(status, body=None, headers=None):
    content = b"" if body is None else json.dumps(body).encode()
    return httpx.Response(status, headers={"content-type": "application/json",
                                           **(headers or {})},
                          stream=httpx.ByteStream(content))


def rpc(body, result, headers=None):
    return answer(200, {"jsonrpc": "2.0", "id": body["id"], "result": result}, headers)


class Clock:
    def __init__(self):
        self.now = NOW

    def __call__(self):
        return self.now


def client_for(service, *, can_ask=True, main=True, clock=None, **gates):
    settings = Settings(api_base_url=BASE, **gates)
    return DesignClient(service.client(), settings, can_ask=lambda: can_ask,
                        clock_ms=clock or Clock(), main_context=main, operations=BY_NAME)


def write(path="a.html", project=P1, **extra):
    return {"project_id": project, "files": [{"path": path, "data": "<p>hi</p>"}], **extra}
