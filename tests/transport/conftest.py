"""Fixtures of the transport tests (the doubles live in transport_doubles.py)."""

import pytest_asyncio
from transport_doubles import build_rig, make_cred


@pytest_asyncio.fixture
async def rig(tmp_path):
    built = build_rig(tmp_path, make_cred())
    try:
        yield built
    finally:
        await built.http.aclose()
