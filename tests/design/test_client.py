"""The Design tool end to end against an in-memory Design service (httpx.MockTransport):
gates, consent, plans, grants, membership, revocation and what is sent when."""

import base64
import itertools
import json

import httpx
import pytest

from jupyter_design_projects.design import schemas
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import (
    GateClosed,
    InvalidArguments,
    NeedsConsent,
    PermissionDenied,
    UnknownOperation,
)
from jupyter_design_projects.settings import Settings

BASE = "http://127.0.0.1:9"
NOW = 1_700_000_000_000
P1, P2 = "p1", "p2"
IDENTITY = {"name": "Quarterly Review Deck", "type": "slides",
            "url": "https://design.example/p/p1",
            "sharing": {"scope": "org", "link_permission": "view"}, "can_edit": True}


class FakeDesign:
    """A small stateful Design service: consent, grants, plan tokens, files, members."""

    def __init__(self, *, consent=True, grants=(), ineligible=(P2,), name=None):
        self.consent = consent
        self.grants, self.ineligible = set(grants), set(ineligible)
        self.names = {P1: name or IDENTITY["name"], P2: "Partner Launch Kit"}
        self.files = {P1: {"index.html": "x", "old.html": "y"}, P2: {}}
        self.members = {P1: []}
        self.plans = {}
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
                for op in schemas.KNOWN_OPERATIONS.values()]})
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
        plan = self.plans.get(token)
        if plan is None or plan[0] != project_id:
            raise PermissionError("plan token refused")
        if not (set(writes) <= set(plan[1]) and set(deletes) <= set(plan[2])):
            raise PermissionError("plan token does not cover")

    def op_get_project(self, project_id):
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

    def op_add_member(self, project_id, role, email, plan_token=None):
        self.require(plan_token, project_id)
        self.members[project_id].append((email, role))
        return {"account_uuid": "u1", "role": role}


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
                        clock_ms=clock or Clock(), main_context=main)


def write(path="a.html", project=P1, **extra):
    return {"project_id": project, "files": [{"path": path, "data": "<p>hi</p>"}], **extra}


# --------------------------------------------------------------------- gates

@pytest.mark.asyncio
@pytest.mark.parametrize(("gates", "gate"), [
    ({"allow_design_sync": False}, "allow_design_sync"),
    ({"essential_traffic_only": True}, "essential_traffic_only"),
    ({"design_feature_flag": False}, "design_feature_flag"),
])
async def test_closed_gate_raises_and_sends_nothing(gates, gate):
    service = FakeDesign()
    client = client_for(service, **gates)
    with pytest.raises(GateClosed) as caught:
        await client.call("list_files", {"project_id": P1})
    assert (caught.value.tool, caught.value.gate) == ("Design", gate)
    assert service.log == []


@pytest.mark.asyncio
async def test_no_configured_service_is_a_closed_gate():
    client = DesignClient(FakeDesign().client(), Settings(), can_ask=lambda: True)
    with pytest.raises(GateClosed) as caught:
        await client.list()
    assert caught.value.gate == "api_base_url"


# --------------------------------------------------------------------- reads, list

@pytest.mark.asyncio
async def test_read_only_call_runs_without_a_card():
    outcome = await client_for(FakeDesign()).call("list_files", {"project_id": P1})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    assert outcome.data == [{"path": "index.html", "type": "file"},
                            {"path": "old.html", "type": "file"}]


@pytest.mark.asyncio
async def test_list_is_the_clients_catalogue_view():
    client = client_for(FakeDesign())
    first = await client.call("list", {})
    second = await client.list()
    assert len(first.data["operations"]) == len(schemas.KNOWN_OPERATIONS)
    assert second.data["catalog_unchanged"] is True


@pytest.mark.asyncio
async def test_images_are_decoded_from_the_outcome():
    outcome = await client_for(FakeDesign()).call(
        "render_preview", {"project_id": P1, "path": "index.html"})
    assert outcome.images == [("image/png", b"\x89PNG-ish")]
    assert outcome.data is None
    result = outcome.to_tool_result("toolu_1")
    assert (result["tool_use_id"], result["is_error"]) == ("toolu_1", False)


@pytest.mark.asyncio
async def test_invalid_arguments_come_back_as_an_error_outcome():
    outcome = await client_for(FakeDesign()).call("list_files", {"project_id": P1, "pth": "x"})
    assert isinstance(outcome.error, InvalidArguments) and outcome.is_error
    assert outcome.to_tool_result("t")["is_error"] is True


@pytest.mark.asyncio
async def test_unknown_operation_before_discovery_says_call_list():
    outcome = await client_for(FakeDesign()).call("brand_new_op", {})
    assert isinstance(outcome.error, UnknownOperation)
    assert outcome.error.reason == "call_list_first"


# --------------------------------------------------------------------- consent

@pytest.mark.asyncio
async def test_known_missing_consent_shows_the_consent_card_before_sending():
    service = FakeDesign(consent=False)
    pending = await client_for(service).call("list_files", {"project_id": P1})
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"
    assert service.calls() == []


@pytest.mark.asyncio
async def test_needs_consent_from_the_service_seeds_the_consent_card():
    service = FakeDesign(consent=False)
    service.consent_get_status = 500  # the prefetch fails: consent unknown
    client = client_for(service)
    pending = await client.call("list_files", {"project_id": P1})
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"
    assert service.calls() == ["list_files"]
    assert (await client.status())["consent"] is False


@pytest.mark.asyncio
async def test_approved_consent_is_posted_and_the_call_retried_once():
    service = FakeDesign(consent=False)
    client = client_for(service)
    pending = await client.call("list_files", {"project_id": P1})
    outcome = await client.resume(pending, approved=True)
    assert not outcome.is_error and outcome.data[0]["path"] == "index.html"
    assert ("POST", "/v1/design/consent") in service.sent()
    assert (await client.status())["consent"] is True


@pytest.mark.asyncio
async def test_second_needs_consent_after_approval_is_an_error_not_a_loop():
    service = FakeDesign(consent=False)
    client = client_for(service)
    pending = await client.call("list_files", {"project_id": P1})

    original = service.handle

    def refuse_consent(request):
        if request.method == "POST" and request.url.path == "/v1/design/consent":
            service.log.append(("POST", request.url.path))
            return answer(204)  # claims success, yet the service keeps refusing
        return original(request)
    service.handle = refuse_consent
    client = DesignClient(service.client(), Settings(api_base_url=BASE), can_ask=lambda: True)
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome.error, NeedsConsent)


@pytest.mark.asyncio
async def test_without_a_person_missing_consent_is_refused_naming_the_command():
    service = FakeDesign(consent=False)
    outcome = await client_for(service, can_ask=False).call("list_files", {"project_id": P1})
    assert isinstance(outcome.error, PermissionDenied)
    assert outcome.error.reason.startswith("consent_not_given")
    assert "%design consent" in outcome.error.reason
    assert service.calls() == [] and ("POST", "/v1/design/consent") not in service.sent()


@pytest.mark.asyncio
async def test_explicit_consent_and_revoke():
    service = FakeDesign(consent=False, grants=[P1])
    client = client_for(service)
    assert (await client.consent())["consent"] is True
    status = await client.revoke()
    assert status["revoked"] is True and status["consent"] is False
    assert ("DELETE", "/v1/design/consent") in service.sent()


@pytest.mark.asyncio
async def test_denied_card_sends_nothing():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write())
    before = list(service.log)
    outcome = await client.resume(pending, approved=False)
    assert isinstance(outcome.error, PermissionDenied)
    assert service.log == before and "a.html" not in service.files[P1]


# --------------------------------------------------------------------- grants

@pytest.mark.asyncio
async def test_grant_card_shows_the_verified_project_identity():
    pending = await client_for(FakeDesign()).call("write_files", write())
    request = pending.request
    assert (request.kind, request.allows_durable) == ("grant", True)
    assert (request.project_name, request.url, request.writes) == \
        ("Quarterly Review Deck", "https://design.example/p/p1", ("a.html",))
    assert len(request.text) <= 2000


@pytest.mark.asyncio
async def test_durable_approval_mints_the_grant_and_retries_once():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write())
    outcome = await client.resume(pending, approved=True, durable=True)
    assert outcome.data == {"written": 1} and service.files[P1]["a.html"] == "<p>hi</p>"
    assert service.calls().count("write_files") == 2  # 403 needs_project_grant, then retry
    assert ("POST", "/v1/design/grants") in service.sent()
    assert (await client.status())["verified_grants"] == [P1]
    # from now on ordinary writes to the project go through silently
    again = await client.call("write_files", write("b.html"))
    assert isinstance(again, DesignOutcome) and again.data == {"written": 1}


@pytest.mark.asyncio
async def test_approve_once_on_a_grant_card_plans_exactly_this_batch():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write("./a.html"))
    outcome = await client.resume(pending, approved=True, durable=False)
    assert outcome.data == {"written": 1}
    assert service.calls() == ["get_project", "finalize_plan", "write_files"]
    plan_args = service.log[-2][2]
    assert (plan_args["writes"], plan_args["deletes"]) == (["a.html"], [])
    assert ("POST", "/v1/design/grants") not in service.sent()


@pytest.mark.asyncio
async def test_existing_server_grant_is_reused_without_a_card():
    service = FakeDesign(grants=[P1])
    outcome = await client_for(service).call("write_files", write())
    assert outcome.data == {"written": 1}
    assert ("GET", "/v1/design/grants") in service.sent()


@pytest.mark.asyncio
async def test_existing_grant_is_reused_where_nobody_can_answer():
    service = FakeDesign(grants=[P1])
    outcome = await client_for(service, can_ask=False).call("write_files", write())
    assert outcome.data == {"written": 1}


@pytest.mark.asyncio
async def test_no_grant_is_minted_where_nobody_can_answer():
    service = FakeDesign()
    outcome = await client_for(service, can_ask=False).call("write_files", write())
    assert isinstance(outcome.error, PermissionDenied)
    assert outcome.error.reason == "nobody_can_approve"
    assert "write_files" not in service.calls()
    assert ("POST", "/v1/design/grants") not in service.sent()


@pytest.mark.asyncio
async def test_grant_ineligible_project_falls_back_to_per_batch_plans():
    service = FakeDesign()
    client = client_for(service)
    pending = await client.call("write_files", write(project=P2))
    assert pending.request.kind == "grant"
    plan_card = await client.resume(pending, approved=True, durable=True)
    assert isinstance(plan_card, PendingApproval)
    assert (plan_card.request.kind, plan_card.request.allows_durable) == ("plan", False)
    assert (await client.status())["grant_ineligible"] == [P2]
    outcome = await client.resume(plan_card, approved=True)
    assert outcome.data == {"written": 1} and "a.html" in service.files[P2]
    # the next batch goes straight to a plan card: no grant card, no POST
    posts = service.sent("POST")
    nxt = await client.call("write_files", write("b.html", project=P2))
    assert nxt.request.kind == "plan" and service.sent("POST") == posts


@pytest.mark.asyncio
async def test_revoked_grant_on_the_service_brings_the_card_back():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    assert (await client.call("write_files", write())).data == {"written": 1}
    service.grants.clear()  # revoked in Design settings
    pending = await client.call("write_files", write("b.html"))
    assert isinstance(pending, PendingApproval) and pending.request.kind == "grant"
    assert (await client.status())["verified_grants"] == []


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["Acme\u202eKCED", "\u0410cme Deck", "Ac\u200bme"])
async def test_hostile_project_name_refuses_the_grant_card(name):
    service = FakeDesign(name=name)
    pending = await client_for(service).call("write_files", write())
    assert (pending.request.kind, pending.request.allows_durable) == ("plan", False)
    assert name not in pending.request.text
    assert pending.request.reason.startswith("grant_card_refused_name_")


@pytest.mark.asyncio
async def test_durable_is_ignored_on_a_card_that_does_not_allow_it():
    service = FakeDesign(name="Ac\u200bme")
    client = client_for(service)
    pending = await client.call("write_files", write())
    outcome = await client.resume(pending, approved=True, durable=True)
    assert outcome.data == {"written": 1}
    assert ("POST", "/v1/design/grants") not in service.sent()


# --------------------------------------------------------------------- plans

@pytest.mark.asyncio
async def test_approved_plan_lets_its_paths_through_until_the_exact_expiry():
    service = FakeDesign()
    clock = Clock()
    client = client_for(service, clock=clock)
    pending = await client.call("finalize_plan", {"project_id": P1, "deletes": ["old.html"]})
    assert pending.request.kind == "plan" and pending.request.deletes == ("old.html",)
    plan = await client.resume(pending, approved=True)
    token = plan.data["plan_token"]
    expires = (await client.status())["approved_plans"][0]["expires_at_ms"]
    assert expires == NOW + 900_000
    clock.now = expires - 1
    args = {"project_id": P1, "plan_token": token, "paths": ["old.html"]}
    outcome = await client.call("delete_files", args)
    assert outcome.data == {"deleted": 1}
    clock.now = expires
    again = await client.call("delete_files", args)
    assert isinstance(again, PendingApproval) and again.request.reason == "plan_token_expired"


@pytest.mark.asyncio
async def test_plan_token_does_not_cover_another_path():
    service = FakeDesign()
    client = client_for(service)
    plan = await client.resume(
        await client.call("finalize_plan", {"project_id": P1, "deletes": ["old.html"]}),
        approved=True)
    args = {"project_id": P1, "plan_token": plan.data["plan_token"], "paths": ["index.html"]}
    pending = await client.call("delete_files", args)
    assert pending.request.reason == "plan_token_does_not_cover"
    assert "index.html" in service.files[P1]


@pytest.mark.asyncio
async def test_plan_wider_than_its_card_is_not_registered():
    service = FakeDesign()
    service.plan_extra_writes = ["sneaky.html"]
    client = client_for(service)
    await client.resume(await client.call("finalize_plan", {"project_id": P1,
                                                            "writes": ["a.html"]}),
                        approved=True)
    assert (await client.status())["approved_plans"] == []


@pytest.mark.asyncio
async def test_tokenless_delete_card_plans_then_deletes_exactly_what_it_showed():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    pending = await client.call("delete_files", {"project_id": P1, "plan_token": "made-up",
                                                 "paths": ["old.html"]})
    assert pending.request.kind == "operation" and pending.request.deletes == ("old.html",)
    pending.arguments["paths"].append("index.html")  # tampering after the card was shown
    outcome = await client.resume(pending, approved=True)
    assert outcome.data == {"deleted": 1}
    assert set(service.files[P1]) == {"index.html"}


@pytest.mark.asyncio
async def test_finalize_plan_scope_project_is_refused_by_validation():
    service = FakeDesign()
    outcome = await client_for(service).call(
        "finalize_plan", {"project_id": P1, "writes": ["a"], "scope": "project"})
    assert isinstance(outcome.error, (InvalidArguments, PermissionDenied))
    assert service.calls() == []


# --------------------------------------------------------------------- membership

@pytest.mark.asyncio
async def test_membership_change_asks_every_time_and_uses_a_one_off_plan():
    service = FakeDesign(grants=[P1])
    client = client_for(service)
    await client.resume(await client.call("finalize_plan", {"project_id": P1,
                                                            "writes": ["a.html"]}),
                        approved=True)
    args = {"project_id": P1, "email": "maria@acme.example", "role": "editor"}
    pending = await client.call("add_member", args)
    assert pending.request.kind == "operation" and "email: maria@acme.example" in \
        pending.request.text
    outcome = await client.resume(pending, approved=True)
    assert outcome.data == {"account_uuid": "u1", "role": "editor"}
    assert service.members[P1] == [("maria@acme.example", "editor")]
    status = await client.status()
    # a sharing change drops the project's plans and re-verifies its grant
    assert status["approved_plans"] == [] and status["verified_grants"] == []
    assert isinstance(await client.call("add_member", args), PendingApproval)
