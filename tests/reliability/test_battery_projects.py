"""The Projects pipeline under faults and hostile local files, by the Python API and the
magics. Spec clauses: §7 (search 403 → listing fallback), §8 (raw download: reported vs
decoded size, one full retry), §9 (remote-session replace is delete then create, reported
truthfully), §6 (knowledge pre-check, local_path cap and guard, inline cap and spill)."""

from __future__ import annotations

import base64
import errno
import functools
import os
import secrets
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import UPLOAD_MAX_BYTES, estimate_tokens
from jupyter_design_projects.errors import (
    DownloadFailed,
    DownloadSizeMismatch,
    KnowledgeBudgetExceeded,
    ReplaceIncomplete,
    UploadRejected,
)
from jupyter_design_projects.projects import client as client_module
from jupyter_design_projects.projects import downloads as downloads_module
from jupyter_design_projects.projects.uploads import read_local_text


def unique(stem: str = "doc") -> str:
    return f"reliability/{stem}-{secrets.token_hex(5)}.md"


def org_api(live) -> str:
    return f"/api/organizations/{live.service.org_uuid}/projects/{live.service.project_uuid}"


def spilled_files(live) -> list[str]:
    root = live.session.temp_dir
    return sorted(os.listdir(root)) if root.exists() else []


# ---------------------------------------------------------------- search fallback


def test_search_403_falls_back_to_the_listing__spec_s7(live):
    live.faults.search(live.service.project_uuid, enabled=False)
    result = live.run(live.session.projects.call("project_search", {"query": "retention"}))
    assert result["rag"] is False
    assert "data-retention-policy.md" in {d["path"] for d in result["docs"]}
    live.check(result)


def test_search_403_fallback_through_the_magic__spec_s7(shell_live):
    live = shell_live.live
    live.faults.search(live.service.project_uuid, enabled=False)
    outcome = shell_live.line("project", 'search "retention" -n 3')
    assert outcome.data["rag"] is False and "docs" in outcome.tables
    live.check(outcome)


# ---------------------------------------------------------------- raw downloads


@pytest.fixture
def upload(live):
    """A small binary upload of its own, and its true raw answer."""
    data = secrets.token_bytes(3000)
    name = f"blob-{secrets.token_hex(4)}.bin"
    file_uuid = live.faults.upload(file_name=name, file_kind="other",
                                   mime_type="application/octet-stream",
                                   data_b64=base64.b64encode(data).decode())
    return name, file_uuid, data


def test_raw_size_mismatch_once_is_retried_and_succeeds__spec_s8(live, upload):
    name, file_uuid, data = upload
    live.faults.misreport_size(file_uuid)
    before = live.faults.counts()
    result = live.run(live.session.projects.read(name))
    raw_path = f"GET {org_api(live)}/files/{file_uuid}/raw"
    assert live.faults.counts()[raw_path] - before.get(raw_path, 0) == 2
    assert Path(result["local_file"]).read_bytes() == data
    live.check(result)


def test_raw_size_mismatch_twice_is_a_clear_error_and_leaves_no_file__spec_s8(live, upload):
    name, file_uuid, data = upload
    lying = {"file_uuid": file_uuid, "file_name": name, "file_kind": "other",
             "mime_type": "application/octet-stream", "file_size_bytes": len(data) + 1,
             "encoding": "base64", "data": base64.b64encode(data).decode(),
             "created_at": "2026-12-03T00:00:00Z"}
    live.faults.fail(f"{org_api(live)}/files/{file_uuid}/raw", status=200, body=lying, count=2)
    error = live.fails(live.session.projects.read(name))
    assert isinstance(error, DownloadSizeMismatch)
    assert error.file_uuid == file_uuid
    assert [tuple(s) for s in error.sizes] == [(len(data) + 1, len(data))] * 2
    assert spilled_files(live) == []
    live.check(error=error)


# ---------------------------------------------------------------- half-done replace


def test_remote_session_replace_failing_half_way_is_journaled_and_restorable__spec_s9(
        live_remote):
    live = live_remote
    name = unique("replace")
    live.run(live.session.projects.write(name, content="version one\n"))
    live.faults.fail("/v2/ccr-sessions/-/chat-project", status=500, op="write-doc")
    error = live.fails(live.session.projects.write(name, content="version two\n"))
    assert isinstance(error, ReplaceIncomplete) and error.path == name
    assert name not in live.docs()  # the delete happened, the create did not
    entry = live.session.projects.history(1)[0]
    assert entry["action"] == "replace_incomplete" and entry["path"] == name
    restored = live.run(live.session.projects.restore(entry["id"]))
    assert restored["path"] == name
    assert live.docs()[name] == "version one\n"
    live.check(error=error, outcome=restored)


# ---------------------------------------------------------------- knowledge budget


@pytest.mark.parametrize("spare_tokens", [0, -1], ids=["exactly_at_max", "one_token_over"])
def test_knowledge_budget_boundary__spec_s6(live, spare_tokens):
    content = "budget " * 101  # 707 bytes → 177 estimated tokens
    size = live.run(live.session.projects.info())["knowledge_stats"]["knowledge_size"]
    maximum = size + estimate_tokens(len(content.encode())) + spare_tokens
    live.faults.knowledge(live.service.project_uuid, max_knowledge_size=maximum)
    name = unique("budget")
    if spare_tokens == 0:
        result = live.run(live.session.projects.write(name, content=content))
        assert live.docs()[result["path"]] == content
        live.check(result)
    else:
        docs_posted = f"POST {org_api(live)}/docs"
        before = live.faults.counts()
        error = live.fails(live.session.projects.write(name, content=content))
        assert isinstance(error, KnowledgeBudgetExceeded)
        assert (error.knowledge_size, error.max_knowledge_size) == (size, maximum)
        # refused by the client's pre-check: nothing was sent for the service to refuse
        assert live.faults.counts().get(docs_posted, 0) == before.get(docs_posted, 0)
        assert not any(path.endswith(name) for path in live.docs())
        live.check(error=error)


# ---------------------------------------------------------------- local_path


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize("extra", [0, 1], ids=["exactly_the_cap", "one_byte_more"])
def test_local_path_cap__spec_s6(live, cwd, extra):
    """At the cap the local guard reads the whole file and the next rule, the knowledge
    pre-check, refuses it (25 MiB is ~6.5 M tokens, over the default 2 M); one byte more
    and the guard refuses it itself. Either way nothing is sent."""
    (cwd / "big.txt").write_bytes(b"y" * (UPLOAD_MAX_BYTES + extra))
    name = unique("cap")
    before = live.faults.counts()
    error = live.fails(live.session.projects.write(name, local_path="big.txt"))
    if extra == 0:
        assert isinstance(error, KnowledgeBudgetExceeded)
        assert error.estimate == estimate_tokens(UPLOAD_MAX_BYTES)
    else:
        assert isinstance(error, UploadRejected) and error.rule == "too_large"
    docs_posted = f"POST {org_api(live)}/docs"
    assert live.faults.counts().get(docs_posted, 0) == before.get(docs_posted, 0)
    assert not any(path.endswith(name) for path in live.docs())
    live.check(error=error)


def test_path_swapped_for_a_symlink_between_check_and_open__threat_toctou(
        live, cwd, monkeypatch):
    (cwd / "notes.txt").write_text("harmless\n")
    (cwd.parent / "secret.txt").write_text("private key material\n")

    def swap(step: str) -> None:
        if step == "checked":
            os.unlink(cwd / "notes.txt")
            os.symlink(cwd.parent / "secret.txt", cwd / "notes.txt")

    monkeypatch.setattr(client_module, "read_local_text",
                        functools.partial(read_local_text, hook=swap))
    name = unique("swap")
    error = live.fails(live.session.projects.write(name, local_path="notes.txt"))
    assert isinstance(error, UploadRejected) and error.rule == "replaced"
    assert not any(path.endswith(name) for path in live.docs())
    live.check(error=error)


def _fifo(cwd):
    os.mkfifo(cwd / "pipe")
    return "pipe"


def _loop(cwd):
    os.symlink(cwd / "b", cwd / "a")
    os.symlink(cwd / "a", cwd / "b")
    return "a"


def _latin1(cwd):
    (cwd / "latin1.txt").write_bytes("caf\u00e9 cr\u00e8me\n".encode("latin-1"))
    return "latin1.txt"


@pytest.mark.parametrize(("make", "rule"), [(_fifo, "not_regular"), (_loop, "symlink_loop"),
                                            (_latin1, "not_utf8")],
                         ids=["fifo__threat_hang", "symlink_loop__threat_hang",
                              "non_utf8__spec_s6"])
def test_hostile_local_files_are_refused(live, cwd, make, rule):
    local = make(cwd)
    name = unique("hostile")
    error = live.fails(live.session.projects.write(name, local_path=local), timeout=30)
    assert isinstance(error, UploadRejected) and error.rule == rule
    assert not any(path.endswith(name) for path in live.docs())
    live.check(error=error)


def test_a_fifo_through_the_magic_is_one_line__threat_hang(shell_live, tmp_path):
    os.mkfifo(tmp_path / "pipe")  # the shell's working directory
    error = shell_live.line("project", "write notes/pipe.md --from pipe")
    assert isinstance(error, UploadRejected) and error.rule == "not_regular"


# ---------------------------------------------------------------- spilling


def test_spill_dir_filling_up_leaves_no_partial_file__spec_s6(live, monkeypatch):
    big = "z" * 300_000  # over the inline cap: the read spills to a file
    name = live.run(live.session.projects.write(unique("spill"), content=big))["path"]
    real_write = os.write

    def full_disk(fd, data):
        if len(data) > 65536:
            real_write(fd, bytes(data[:65536]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(downloads_module.os, "write", full_disk)
    error = live.fails(live.session.projects.read(name))
    assert type(error) is DownloadFailed
    assert spilled_files(live) == []
    monkeypatch.undo()
    again = live.run(live.session.projects.read(name))  # nothing was lost remotely
    assert Path(again["local_file"]).read_text() == big
    live.check(error=error)
