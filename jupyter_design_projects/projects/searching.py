"""`project_search` results: the service's RAG answer projected to `{name, doc_uuid, text}`
hits, and the 403 fallback that lists the docs and says plainly they are not hits."""

from __future__ import annotations

from typing import Any

from ..errors import MalformedProjectsAnswer
from .wire import Detail

FALLBACK_NOTE = (
    "Search is disabled for this project (HTTP 403), so there are no hits: these are the "
    "docs, not hits. Pick the relevant ones and read them with project_read."
)


def project_hits(answer: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Text and rich-content results alike become hits, best score first, at most n.
    A rich-content hit (an upload) carries its file uuid as `doc_uuid`."""
    scored: list[tuple[float, dict[str, Any]]] = []
    for key, id_field in (("text_results", "doc_uuid"), ("rich_content_results", "file_uuid")):
        items = answer.get(key) or []
        if not isinstance(items, list):
            raise MalformedProjectsAnswer("search", f"has a {key} that is not a list")
        for item in items:
            chunk = item.get("chunk") if isinstance(item, dict) else None
            text = chunk.get("text") if isinstance(chunk, dict) else None
            if not isinstance(text, str):
                raise MalformedProjectsAnswer("search", "has a hit without chunk text")
            score = item.get("score")
            scored.append((
                score if isinstance(score, (int, float)) else 0.0,
                {"name": item.get("name"), "doc_uuid": item.get(id_field), "text": text},
            ))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [hit for _score, hit in scored[:n]]


def fallback_result(query: str, detail: Detail) -> dict[str, Any]:
    return {
        "query": query,
        "rag": False,
        "note": FALLBACK_NOTE,
        "docs": [{"path": d.path, "doc_uuid": d.uuid} for d in detail.docs],
        "uploads": [{"path": f.path, "file_uuid": f.file_uuid, "file_kind": f.file_kind}
                    for f in detail.files],
    }
