"""The origin rule the allowlist and the auth flow share, as a table."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.origins import origin


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://API.Example.com/v1/x?q=1", "https://api.example.com"),
        ("https://api.example.com:443/", "https://api.example.com"),
        ("https://api.example.com:8443/", "https://api.example.com:8443"),
        ("http://127.0.0.1:80/a", "http://127.0.0.1"),
        ("http://127.0.0.1:41234/a", "http://127.0.0.1:41234"),
        ("http://[::1]:9000/a", "http://[::1]:9000"),
        ("https://user:pw@api.example.com/", "https://api.example.com"),
        ("HTTPS://api.example.com", "https://api.example.com"),
    ],
)
def test_origin_is_scheme_host_and_non_default_port(url: str, expected: str) -> None:
    assert origin(url) == expected


def test_a_different_port_is_a_different_origin() -> None:
    assert origin("https://a.example:444/") != origin("https://a.example/")


def test_a_url_without_a_host_has_an_empty_host() -> None:
    assert origin("file:///etc/hosts") == "file://"
