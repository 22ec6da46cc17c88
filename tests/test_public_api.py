"""The curated public API (issue 21 item 4): the names `jupyter_design_projects` exports
lazily, `Session.open()` with no arguments reading the environment as the magics do, and
the Projects facade `session.project.*` — reads at once, every change put first to an
`approve` callback — run against the real reference service."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import jupyter_design_projects as jdp
from jupyter_design_projects import (
    ApprovalRequest,
    JdpError,
    ProjectFacade,
    ProjectsChangeDenied,
    Session,
)
from jupyter_design_projects.errors import InvalidProjectsArgument

PATH = "claude/facade.md"


def test_a_public_name_is_its_modules_object_and_an_unknown_one_is_an_attribute_error():
    from jupyter_design_projects.errors import JdpError as defined
    from jupyter_design_projects.session import Session as session_class

    assert (jdp.Session, jdp.JdpError) == (session_class, defined)
    assert hasattr(jdp, "AgentTools") and not hasattr(jdp, "NoSuchName")
    assert set(jdp.__all__) == {*jdp._PUBLIC, "__version__", "load_ipython_extension",
                                "unload_ipython_extension"}
    assert set(jdp.__all__) <= set(dir(jdp))


@pytest.fixture
def session(service, tmp_path, monkeypatch) -> Iterator[Session]:
    """`Session.open()` with no arguments, the service named only by the environment."""
    for name in ("JDP_WEB_BASE_URL", "JDP_SERVICE_FILE", "CLAUDE_SESSION_JWT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JDP_API_BASE_URL", service.base_url)
    monkeypatch.setenv("JDP_CREDENTIALS_FILE", str(service.credentials_file))
    monkeypatch.setenv("JDP_ORG_UUID", service.org_uuid)
    monkeypatch.setenv("CLAUDE_PROJECT_UUID", service.project_uuid)
    monkeypatch.setenv("JDP_DATA_DIR", str(tmp_path / "data"))
    s = Session.open()
    try:
        yield s
    finally:
        s.close()


def doc_paths(session: Session) -> list[str]:
    return [d["path"] for d in session.project.info()["docs"]]


def test_open_with_no_arguments_reads_the_environment(session, service, tmp_path) -> None:
    assert session.settings.api_base_url == service.base_url.rstrip("/")
    assert session.settings.project_uuid == service.project_uuid
    assert session.embedded is None  # the service the environment names, none started
    assert session.data_dir == Path(tmp_path / "data")
    assert isinstance(session.project, ProjectFacade)


def test_reads_need_no_person(session, switches) -> None:
    hits = session.project.search("onboarding", n=2)
    assert hits["rag"] is True and "onboarding.md" in [h["name"] for h in hits["hits"]]
    assert session.project.read("onboarding.md")["content"].startswith("# Onboarding")
    assert session.project.info()["project"]["uuid"] == session.settings.project_uuid


def test_a_write_waits_for_the_callback_and_a_denial_sends_nothing(session, switches) -> None:
    asked: list[tuple[ApprovalRequest, bool]] = []

    def answering(answer):
        def approve(request: ApprovalRequest):
            asked.append((request, PATH in doc_paths(session)))
            return answer
        return approve

    with pytest.raises(ProjectsChangeDenied) as denied:
        session.project.write(PATH, content="no", approve=answering(None))
    assert isinstance(denied.value, JdpError)
    assert denied.value.reason == "denied_on_card" and PATH not in doc_paths(session)
    with pytest.raises(ProjectsChangeDenied) as nobody:
        session.project.write(PATH, content="no")
    assert nobody.value.reason == "nobody_can_approve" and PATH not in doc_paths(session)

    written = session.project.write(PATH, content="yes", approve=answering("once"))
    assert written["path"] == PATH and session.project.read(PATH)["content"] == "yes"
    assert [(r.operation, r.writes, there) for r, there in asked] == [
        ("project_write", (PATH,), False), ("project_write", (PATH,), False)]

    replaced = session.project.write(PATH, content="again", approve=answering("once"))
    assert replaced["replaced"] is True and "Replace" in asked[-1][0].title
    session.project.delete(PATH, approve=answering("once"))
    assert PATH not in doc_paths(session)


def test_a_delete_and_a_restore_ask_first_and_a_create_is_never_restored(session,
                                                                          switches) -> None:
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest):
        asked.append(request)
        return "once"

    session.project.write(PATH, content="v1", approve=approve)
    session.project.write(PATH, content="v2", approve=approve)
    with pytest.raises(ProjectsChangeDenied):
        session.project.delete(PATH, approve=lambda request: None)
    assert PATH in doc_paths(session)
    created, replaced = session.project.history(2)[::-1]
    assert (created["restore_kind"], replaced["restore_kind"]) == ("created", "write_back")

    before = len(asked)
    with pytest.raises(InvalidProjectsArgument) as refused:
        session.project.restore(created["id"], approve=approve)
    assert refused.value.field == "entry_id" and len(asked) == before  # no card for it
    with pytest.raises(ProjectsChangeDenied):
        session.project.restore(replaced["id"], approve=lambda request: None)
    assert session.project.read(PATH)["content"] == "v2"
    session.project.restore(replaced["id"], approve=approve)
    assert session.project.read(PATH)["content"] == "v1"
    assert asked[-1].writes == (PATH,) and "v1" in " ".join(asked[-1].details)
    session.project.delete(PATH, approve=approve)


def test_a_facade_card_shows_the_diff_and_a_doc_changed_while_it_is_read_is_kept(
        session, service) -> None:
    """The `approve` callback sees a replace's diff; a teammate's write while the person
    reads the card is refused at the approval, not overwritten; an approved change is
    journaled as approved by the callback."""
    path = "claude/facade-race.md"
    session.project.write(path, content="v1\n", approve=lambda request: "once")
    seen: list[ApprovalRequest] = []

    def teammate_writes_meanwhile(request: ApprovalRequest) -> str:
        seen.append(request)
        with Session.open() as other:  # the same environment: a second session
            other.run(other.projects.write(path, content="theirs\n"))
        return "once"

    with pytest.raises(ProjectsChangeDenied) as refused:
        session.project.write(path, content="v2\n", approve=teammate_writes_meanwhile)
    assert refused.value.reason == "changed_since_card"
    assert "-v1\n+v2" in "\n".join(seen[0].details)
    assert session.project.read(path)["content"] == "theirs\n"
    session.project.delete(path, approve=lambda request: "once")
    assert session.project.history(1)[0]["approved_by"] == "approve callback"
