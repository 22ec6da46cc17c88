"""The pieces split from the credential manager, on real files: the sign-in generation
marker (one process's bump is seen once by another's) and the cross-process lock (a second
holder waits, and reports LockBusy at its bound)."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_design_projects.transport.cross_process_lock import CrossProcessLock, LockBusy
from jupyter_design_projects.transport.sign_in_generation import GenerationMarker


def test_a_bump_elsewhere_is_seen_once_and_the_bumper_sees_nothing(tmp_path) -> None:
    lock = tmp_path / "credentials.lock"
    here, elsewhere = GenerationMarker(lock), GenerationMarker(lock)
    assert not here.changed()  # no marker yet: nothing changed
    elsewhere.bump()
    assert elsewhere.path == tmp_path / "credentials.lock.generation"
    assert (elsewhere.path.stat().st_mode & 0o777) == 0o600
    assert not elsewhere.changed()  # its own bump is not news to it
    assert here.changed() and not here.changed()
    here.bump()
    assert elsewhere.changed()
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.asyncio
async def test_a_second_holder_waits_for_the_lock_and_gives_up_at_its_bound(tmp_path) -> None:
    path = tmp_path / "dir" / "credentials.lock"
    first, second = CrossProcessLock(path), CrossProcessLock(path)
    async with first.held(1.0):
        assert (path.parent.stat().st_mode & 0o777) == 0o700
        with pytest.raises(LockBusy):
            async with second.held(0.1):
                pass
    async with second.held(0.1):  # free again
        assert (path.stat().st_mode & 0o777) == 0o600


@pytest.mark.asyncio
async def test_a_waiter_takes_the_lock_once_the_holder_lets_go(tmp_path) -> None:
    path = tmp_path / "credentials.lock"
    first, second = CrossProcessLock(path), CrossProcessLock(path)
    order: list[str] = []

    async def hold_briefly() -> None:
        async with first.held(1.0):
            order.append("first")
            await asyncio.sleep(0.1)
        order.append("first let go")

    holder = asyncio.create_task(hold_briefly())
    await asyncio.sleep(0)  # the holder takes it first
    async with second.held(5.0):
        order.append("second")
    await holder
    assert order == ["first", "first let go", "second"]
