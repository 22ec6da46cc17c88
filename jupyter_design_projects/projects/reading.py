"""`project_read`: find the exact path among text docs, then uploads; text and extracted
text come back inline up to 262,144 UTF-8 bytes or in a 0600 file; other uploads, and
documents whose text extraction failed on the service, are downloaded raw with strict
base64 and a reported-vs-decoded size check (one full retry), decoded into their 0600 file
as the answer arrives (`raw_answer`), so memory stays flat."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from ..core.budgets import INLINE_MAX_BYTES, RAW_MAX_BYTES, fits_inline
from ..core.project_paths import is_canonical_uuid
from ..errors import (
    DocNotFound,
    DownloadFailed,
    DownloadSizeMismatch,
    ProjectsApiError,
    ProjectsTransportFailed,
)
from . import wire
from .api import ProjectsApi
from .downloads import DownloadDir
from .raw_answer import RAW_MAX_BASE64_CHARS, RawAnswerReader
from .wire import Detail, FileEntry

__all__ = ["RAW_MAX_BASE64_CHARS", "decode_raw", "download_raw", "present_text", "read_path"]

#: how many available paths a DocNotFound lists
AVAILABLE_LISTED = 30

Progress = Callable[[str, int, "int | None"], None]


async def read_path(
    api: ProjectsApi, detail: Detail, path: str, downloads: DownloadDir,
    progress: Progress | None = None,
) -> dict[str, Any]:
    doc = detail.doc(path)
    if doc is not None:
        answer = await api.read_doc(doc.uuid)
        return present_text(path, "doc", answer["content"], downloads, doc_uuid=doc.uuid)
    upload = detail.file(path)
    if upload is None:
        raise DocNotFound(path, detail.paths()[:AVAILABLE_LISTED])
    if not is_canonical_uuid(upload.file_uuid):
        raise DownloadFailed(upload.file_uuid, "the file id is not a canonical UUID")
    if upload.file_kind == "document":
        try:
            answer = await api.read_extracted(upload.file_uuid)
        except ProjectsTransportFailed:
            raise
        except ProjectsApiError as exc:
            # the service could not give the extracted text: the raw bytes, as the spec does
            result = await download_raw(api, path, upload, downloads, progress)
            result["extraction_failed"] = f"HTTP {exc.status}"
            return result
        content = wire.field(answer, "content", str, "read extracted text")
        return present_text(path, "extracted", content, downloads, file_uuid=upload.file_uuid)
    return await download_raw(api, path, upload, downloads, progress)


def present_text(
    path: str, kind: str, content: str, downloads: DownloadDir, **ids: str
) -> dict[str, Any]:
    """Inline up to 262,144 UTF-8 bytes; beyond that a `project-doc-*` file of mode 0600
    with the doc's extension."""
    size = len(content.encode("utf-8"))
    result: dict[str, Any] = {"path": path, "kind": kind, **ids, "bytes": size}
    if fits_inline(size):
        result["content"] = content
    else:
        result["local_file"] = str(downloads.save_text(content, path))
        result["note"] = (
            f"The content is larger than {INLINE_MAX_BYTES:,} bytes, so it was saved to "
            "local_file (mode 0600) instead of being returned inline."
        )
    return result


async def download_raw(
    api: ProjectsApi, path: str, upload: FileEntry, downloads: DownloadDir,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Download into a 0600 file as the answer arrives, compare the reported size with the
    decoded bytes, retry once in full; a file that does not check out is removed."""
    file_uuid = upload.file_uuid
    if upload.file_size_bytes is not None and upload.file_size_bytes > RAW_MAX_BYTES:
        raise DownloadFailed(file_uuid, f"the upload is larger than {RAW_MAX_BYTES:,} bytes")
    label = f"download {path}"
    sizes: list[tuple[int, int]] = []
    for _attempt in range(2):
        if progress:
            progress(label, 0, upload.file_size_bytes)
        with downloads.receiving(upload.path) as incoming:
            reader = RawAnswerReader(incoming.write, file_uuid)
            try:
                await api.read_raw(file_uuid, reader.feed)
            except ProjectsApiError as exc:
                if exc.status == 413 and not isinstance(exc, ProjectsTransportFailed):
                    raise DownloadFailed(
                        file_uuid, f"the upload is larger than {RAW_MAX_BYTES:,} bytes") from None
                raise
            answer = reader.finish()
            reported = checked_fields(answer, file_uuid)
            if progress:
                progress(label, reader.decoded, reported)
            if reported == reader.decoded:
                return {
                    "path": path, "kind": "raw", "file_uuid": file_uuid,
                    "file_kind": upload.file_kind, "mime_type": answer.get("mime_type"),
                    "local_file": str(incoming.keep()), "bytes": reader.decoded,
                }
        sizes.append((reported, reader.decoded))
    raise DownloadSizeMismatch(file_uuid, sizes)


def checked_fields(answer: dict[str, Any], file_uuid: str) -> int:
    """The reported file_size_bytes of a raw answer whose other fields check out."""
    if answer.get("file_uuid") not in (None, file_uuid):
        raise DownloadFailed(file_uuid, "the answer is for another file")
    if answer.get("encoding") != "base64":
        raise DownloadFailed(file_uuid, "the answer is not base64-encoded")
    reported = answer.get("file_size_bytes")
    if not isinstance(reported, int) or isinstance(reported, bool):
        raise DownloadFailed(file_uuid, "the answer has no data or file_size_bytes")
    return reported


def decode_raw(answer: dict[str, Any], file_uuid: str) -> tuple[bytes, int]:
    """(decoded bytes, reported file_size_bytes) of a raw answer already in memory, by the
    same strict reader a download streams through."""
    if not isinstance(answer.get("data"), str):
        raise DownloadFailed(file_uuid, "the answer has no data or file_size_bytes")
    out = io.BytesIO()
    reader = RawAnswerReader(out.write, file_uuid)
    reader.feed(json.dumps(answer).encode())
    fields = reader.finish()
    return out.getvalue(), checked_fields(fields, file_uuid)
