"""Fixtures every test package shares: the real reference service as a subprocess on
loopback (a fresh one per test, or one per session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jupyter_design_projects.embedded import EmbeddedService, start_embedded


def _running(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[EmbeddedService]:
    service = start_embedded(tmp_path_factory.mktemp(name), faults=True)
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
def reference_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedService]:
    """A fresh reference service (seeded demo data, faults on) for this test only."""
    yield from _running(tmp_path_factory, "reference-service")


@pytest.fixture(scope="module")
def module_reference_service(
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedService]:
    """One reference service for a test module whose tests change its state (consent,
    grants, docs) and reset what they rely on."""
    yield from _running(tmp_path_factory, "module-reference-service")


@pytest.fixture(scope="session")
def shared_reference_service(
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedService]:
    """One reference service for the whole session; tests that switch faults on must call
    `faults(service).reset()` when done, and must not rely on the seeded docs being intact."""
    yield from _running(tmp_path_factory, "shared-reference-service")
