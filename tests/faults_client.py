"""A small client for the reference service's /_faults control routes (plain httpx), so
integration tests read as `faults(service).fail("/v1/design/mcp", status=500)`."""

from __future__ import annotations

from typing import Any

import httpx

from jupyter_design_projects.transport.http import loopback_tls


class FaultsClient:
    """Each call is one short-lived request: nothing to close, nothing leaks."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def _request(self, method: str, route: str, body: dict[str, Any] | None = None) -> Any:
        with httpx.Client(base_url=self.base_url, timeout=30.0, verify=loopback_tls()) as http:
            answer = http.request(method, f"/_faults/{route}", json=body)
        answer.raise_for_status()
        return answer.json()

    def _post(self, route: str, **body: Any) -> Any:
        return self._request("POST", route, {k: v for k, v in body.items() if v is not None})

    # the next `count` matching requests get a replaced answer; `rpc_method` and `tool`
    # match a POST to the Design MCP endpoint, `op` a POST to the remote-session route
    def fail(self, path: str, *, status: int, body: Any = None, headers: dict | None = None,
             count: int = 1, method: str | None = None, rpc_method: str | None = None,
             tool: str | None = None, op: str | None = None, echo_id: bool = True) -> Any:
        extra = {"body": body} if body is not None else {}
        if not echo_id:
            extra["echo_id"] = False
        return self._post("fail", path=path, status=status, headers=headers, count=count,
                          method=method, rpc_method=rpc_method, tool=tool, op=op, **extra)

    def sse(self, path: str, *, count: int = 1, method: str | None = None,
            rpc_method: str | None = None, tool: str | None = None,
            op: str | None = None) -> Any:
        return self._post("sse", path=path, count=count, method=method, rpc_method=rpc_method,
                          tool=tool, op=op)

    def latency(self, path: str, *, ms: int, count: int = 1) -> Any:
        return self._post("latency", path=path, ms=ms, count=count)

    def drip(self, path: str, *, bytes_per_tick: int, tick_ms: int, count: int = 1) -> Any:
        return self._post("drip", path=path, bytes_per_tick=bytes_per_tick, tick_ms=tick_ms,
                          count=count)

    def oversize(self, path: str, *, size: int, count: int = 1) -> Any:
        return self._post("oversize", path=path, bytes=size, count=count)

    def gzip_bomb(self, path: str, *, count: int = 1) -> Any:
        return self._post("gzip-bomb", path=path, count=count)

    # state switches
    def design_operation(self, name: str, description: str | None = None, *,
                         remove: bool = False) -> bool:
        """Serve one more read-only Design operation from now on (or stop serving it)."""
        body: dict[str, Any] = {"name": name, "description": description}
        if remove:
            body["remove"] = True
        return self._post("design-operation", **body)["changed"]

    # state switches
    def drop_mcp_sessions(self) -> int:
        return self._post("drop-mcp-sessions")["dropped"]

    def misreport_size(self, file_uuid: str) -> Any:
        return self._post("misreport-size", file_uuid=file_uuid)

    def narrow_scopes(self, drop: list[str]) -> Any:
        return self._post("narrow-scopes", drop=drop)

    def expire_tokens(self) -> int:
        return self._post("expire-tokens")["expired"]

    def search(self, project_uuid: str, *, enabled: bool) -> Any:
        return self._post("search", project_uuid=project_uuid, enabled=enabled)

    def knowledge(self, project_uuid: str, *, max_knowledge_size: int | None = None,
                  threshold: int | None = None) -> Any:
        return self._post("knowledge", project_uuid=project_uuid,
                          max_knowledge_size=max_knowledge_size, threshold=threshold)

    def upload(self, *, file_name: str, file_kind: str, mime_type: str, data_b64: str,
               extracted: str | None = None, project_uuid: str | None = None) -> str:
        return self._post("upload", file_name=file_name, file_kind=file_kind,
                          mime_type=mime_type, data_b64=data_b64, extracted=extracted,
                          project_uuid=project_uuid)["file_uuid"]

    def echo_tokens(self, on: bool = True) -> Any:
        """Echo every token the service was given (or has issued) in every string of its
        Design and Projects answers and event-stream messages (`server/faults/echo.py`)."""
        return self._post("echo-tokens", on=on)

    def counts(self) -> dict[str, int]:
        return self._request("GET", "counts")

    def reset(self) -> Any:
        return self._post("reset")


def faults(service: Any) -> FaultsClient:
    """A FaultsClient for an EmbeddedService (anything with a `base_url`)."""
    return FaultsClient(service.base_url)
