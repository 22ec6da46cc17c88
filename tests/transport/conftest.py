"""Fixtures of the transport tests (the doubles live in transport_doubles.py)."""

import filelock
import pytest
import pytest_asyncio

from tests.transport.transport_doubles import build_rig, make_cred


@pytest_asyncio.fixture
async def rig(tmp_path):
    built = build_rig(tmp_path, make_cred())
    try:
        yield built
    finally:
        await built.http.aclose()


@pytest.fixture
def lock_held_elsewhere(tmp_path):
    """The credential lock of a rig built on `tmp_path`, held for the whole test as another
    process would hold it."""
    other = filelock.FileLock(str(tmp_path / "credentials.lock"), thread_local=False)
    other.acquire()
    try:
        yield other
    finally:
        other.release()
