"""An in-memory stand-in for both Projects routes behind httpx.MockTransport, for unit
tests that need exact control (ids, sizes, failures, concurrency) without a service, and
the `ensure_scopes` stand-in those tests give the client."""

from __future__ import annotations

import base64
import inspect
import json
import uuid
from collections.abc import Callable
from typing import Any

import httpx

ORG = "11111111-2222-4333-8444-555555555555"
PROJECT = "0f8fad5b-d9cb-469f-a165-70867728950e"
WEB = "http://127.0.0.1:9"
PREFIX = f"/api/organizations/{ORG}/projects/{PROJECT}"
SESSION_PATH = "/v2/ccr-sessions/-/chat-project"
JWT = "eyJhbGciOiJIUzI1NiJ9.session-token-value-0123456789"
ROUTES = ["org", "remote-session"]


class Scopes:
    """The `ensure_scopes` callback: counts its calls and returns `notice`."""

    def __init__(self, notice: str | None = "scopes added") -> None:
        self.calls = 0
        self.notice = notice

    async def __call__(self) -> str | None:
        self.calls += 1
        return self.notice


class FakeProjects:
    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}
        self.files: dict[str, dict[str, Any]] = {}
        self.max_knowledge_size = 2_000_000
        self.requests: list[tuple[str, str, Any]] = []
        self.headers: list[httpx.Headers] = []
        #: the query parameters of each request, in order
        self.queries: list[dict[str, str]] = []
        #: (method, path, body) -> a Response (or an awaitable of one) that replaces the
        #: real answer, or None
        self.intercept: Callable[[str, str, Any], httpx.Response | None] | None = None
        self.search_answer: dict[str, Any] = {"text_results": [], "rich_content_results": []}

    # ---------------------------------------------------------------- data
    def add_doc(self, file_name: str, content: str, doc_uuid: str | None = None) -> str:
        doc_uuid = doc_uuid or str(uuid.uuid4())
        self.docs[doc_uuid] = {"uuid": doc_uuid, "file_name": file_name, "content": content,
                               "created_at": "2026-01-01T00:00:00Z",
                               "updated_at": "2026-01-01T00:00:00Z"}
        return doc_uuid

    def add_file(self, file_name: str, kind: str, data: bytes = b"", *,
                 extracted: str = "", file_uuid: str | None = None,
                 listed_size: int | None = None) -> str:
        file_uuid = file_uuid or str(uuid.uuid4())
        self.files[file_uuid] = {"file_uuid": file_uuid, "file_name": file_name,
                                 "file_kind": kind, "data": data, "extracted": extracted,
                                 "listed_size": listed_size}
        return file_uuid

    def knowledge_size(self) -> int:
        return sum(-(-len(d["content"].encode()) // 4) for d in self.docs.values())

    def detail(self) -> dict[str, Any]:
        return {
            "uuid": PROJECT, "name": "Fake", "description": "d", "prompt_template": "be kind",
            "documents": [{"uuid": d["uuid"], "file_name": d["file_name"],
                           "created_at": d["created_at"],
                           "estimated_token_count": -(-len(d["content"].encode()) // 4)}
                          for d in self.docs.values()],
            "files": [{"file_uuid": f["file_uuid"], "file_name": f["file_name"],
                       "file_kind": f["file_kind"],
                       "file_size_bytes": f["listed_size"] if f["listed_size"] is not None
                       else len(f["data"]),
                       "mime_type": "application/octet-stream", "created_at": "x"}
                      for f in self.files.values()],
            "sync_sources": [{"type": "github", "config": {}}],
            "knowledge_stats": {"knowledge_size": self.knowledge_size(),
                                "max_knowledge_size": self.max_knowledge_size,
                                "project_knowledge_search_threshold": 50_000,
                                "use_project_knowledge_search": False},
        }

    # ---------------------------------------------------------------- transport
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.path
        self.requests.append((request.method, path, body))
        self.headers.append(request.headers)
        self.queries.append(dict(request.url.params))
        if self.intercept is not None:
            replaced = self.intercept(request.method, path, body)
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if replaced is not None:
                return replaced
        if path == SESSION_PATH:
            return self.session(body)
        if path == "/api/organizations":
            return httpx.Response(200, json=[{"uuid": ORG, "name": "Org"}])
        if path.startswith(PREFIX):
            return self.org(request.method, path[len(PREFIX):], request, body)
        return error(404, "not_found_error", "no route")

    def org(self, method: str, tail: str, request: httpx.Request, body: Any) -> httpx.Response:
        parts = tail.strip("/").split("/")
        if (method, tail) == ("GET", "/detail"):
            return httpx.Response(200, json=self.detail())
        if (method, tail) == ("GET", "/kb/search"):
            return httpx.Response(200, json=self.search_answer)
        if (method, tail) == ("POST", "/docs"):
            return httpx.Response(201, json=self.docs[self.add_doc(body["file_name"],
                                                                  body["content"])])
        if parts[0] == "docs" and len(parts) == 2:
            doc = self.docs.get(parts[1])
            if doc is None:
                return error(404, "not_found_error", "no doc")
            if method == "GET":
                return httpx.Response(200, json=doc)
            if method == "PATCH":
                doc["content"] = body["content"]
                return httpx.Response(200, json=doc)
            if method == "DELETE":
                del self.docs[parts[1]]
                return httpx.Response(204)
        if parts[0] == "files" and len(parts) == 3:
            return self.file_answer(parts[1], parts[2])
        return error(404, "not_found_error", "no route")

    def session(self, body: dict[str, Any]) -> httpx.Response:
        op = body["op"]
        if op == "detail":
            return httpx.Response(200, json=self.detail())
        if op == "kb-search":
            return httpx.Response(200, json=self.search_answer)
        if op == "read-doc":
            doc = self.docs.get(body["doc_uuid"])
            return httpx.Response(200, json=doc) if doc else flat(404, "no doc")
        if op == "write-doc":
            return httpx.Response(201, json=self.docs[self.add_doc(body["file_name"],
                                                                  body["content"])])
        if op == "delete-doc":
            if self.docs.pop(body["doc_uuid"], None) is None:
                return flat(404, "no doc")
            return httpx.Response(204)
        if op in ("read-file", "read-file-raw"):
            return self.file_answer(body["file_uuid"],
                                    "extracted" if op == "read-file" else "raw")
        return flat(400, "unknown op")

    def file_answer(self, file_uuid: str, what: str) -> httpx.Response:
        f = self.files.get(file_uuid)
        if f is None:
            return error(404, "not_found_error", "no file")
        if what == "extracted":
            return httpx.Response(200, json={"file_uuid": file_uuid, "file_name": f["file_name"],
                                             "file_kind": f["file_kind"],
                                             "content": f["extracted"], "created_at": "x"})
        return httpx.Response(200, json=raw_body(file_uuid, f["file_name"], f["data"]))


def raw_body(file_uuid: str, file_name: str, data: bytes, *, size: int | None = None,
             encoded: str | None = None) -> dict[str, Any]:
    return {"file_uuid": file_uuid, "file_name": file_name, "file_kind": "image",
            "mime_type": "image/png", "encoding": "base64",
            "file_size_bytes": len(data) if size is None else size,
            "data": base64.b64encode(data).decode() if encoded is None else encoded,
            "created_at": "x"}


def error(status: int, kind: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"type": "error", "error": {"type": kind,
                                                                  "message": message},
                                        "request_id": "req_1"})


def flat(status: int, message: str, code: str = "error") -> httpx.Response:
    return httpx.Response(status, json={"error": message, "code": code})
