"""One traced exchange as a curl command: the method, URL, every header the client sent
(a blanked one from an environment variable), the body shell-quoted, a long body piped in."""

from __future__ import annotations

import shlex

import pytest

from jupyter_design_projects.core.curl import (
    INLINE_BODY_CHARS,
    curl_command,
    curl_notes,
    header_variable,
)
from jupyter_design_projects.core.redaction import REDACTED

URL = "http://127.0.0.1:8123/v1/design/mcp"


def record(**fields):
    base = {"method": "POST", "url": URL, "request_bytes": 8,
            "request_headers": {"host": "127.0.0.1:8123", "accept": "*/*",
                                "content-length": "8", "content-type": "application/json",
                                "authorization": REDACTED},
            "request_body": '{"q": 1}', "request_body_cut": False}
    base.update(fields)
    return base


def test_the_command_names_method_url_headers_and_body():
    command = curl_command(record())
    assert command == (
        f"curl -X POST {URL} -H 'host: 127.0.0.1:8123' -H 'accept: */*' "
        "-H 'content-type: application/json' "
        '-H "authorization: Bearer $JDP_TOKEN" '
        """--data-binary '{"q": 1}'""")


def test_the_shell_reads_back_exactly_the_words_meant():
    body = """{"text": "it's $HOME `id` \\"quoted\\" \\n"}"""
    words = shlex.split(curl_command(record(request_body=body)))
    assert words[-2:] == ["--data-binary", body]
    assert "authorization: Bearer $JDP_TOKEN" in words  # shlex keeps $ for the shell


def test_content_length_is_left_to_curl():
    assert "content-length" not in curl_command(record())


def test_a_request_without_a_body_sends_none():
    command = curl_command(record(method="GET", request_body="", request_bytes=0))
    assert "--data-binary" not in command and command.startswith("curl -X GET ")


@pytest.mark.parametrize(("size", "piped"), [
    (INLINE_BODY_CHARS, False),
    (INLINE_BODY_CHARS + 1, True),
])
def test_a_body_over_the_inline_limit_is_piped_in_with_printf(size, piped):
    body = "x" * size
    command = curl_command(record(request_body=body))
    assert command.startswith("printf '%s' ") is piped
    assert command.endswith("--data-binary @-") is piped
    words = shlex.split(command)
    assert body in words


@pytest.mark.parametrize(("name", "expression"), [
    ("authorization", "Bearer $JDP_TOKEN"),
    ("Cookie", "$JDP_COOKIE"),
    ("x-api-key", "$JDP_X_API_KEY"),
    ("proxy-authorization", "$JDP_PROXY_AUTHORIZATION"),
])
def test_each_blanked_header_comes_from_the_environment(name, expression):
    assert header_variable(name) == expression
    command = curl_command(record(request_headers={name: REDACTED}))
    assert f'"{name}: {expression}"' in command and REDACTED not in command


def test_notes_say_which_variables_to_set_and_what_cannot_be_replayed():
    notes = curl_notes(record(request_headers={"authorization": REDACTED,
                                               "cookie": REDACTED},
                              request_body=f'{{"plan_token": "{REDACTED}"}}',
                              request_body_cut=True))
    assert notes[0].startswith("Set $JDP_COOKIE, $JDP_TOKEN")
    assert any("cut this request's body" in n for n in notes)
    assert any(REDACTED in n for n in notes)
    assert curl_notes(record(request_headers={})) == []


def test_notes_in_full_for_a_cut_body_and_a_blanked_token():
    notes = curl_notes(record(request_headers={"x-api-key": REDACTED, "accept": "*/*"},
                              request_body_cut=True))
    assert notes == [
        "Set $JDP_X_API_KEY in the environment first (the trace never holds their values).",
        "The trace cut this request's body, so the command sends only its first part.",
    ]


@pytest.mark.parametrize("fields", [
    {"url": f"{URL}?code={REDACTED}", "request_body": None},
    {"url": None, "request_body": f"token={REDACTED}"},
])
def test_a_credential_blanked_in_the_url_or_body_is_noted(fields):
    notes = curl_notes(record(request_headers={}, **fields))
    assert notes == [f"Credentials in the URL or body are shown as {REDACTED}; put the real "
                     "values in before running it."]


@pytest.mark.parametrize("fields", [{"url": None, "request_body": None}, {}])
def test_no_note_when_nothing_is_blanked_or_cut(fields):
    assert curl_notes(record(request_headers={}, **fields)) == []


def test_a_record_without_method_or_url_is_a_get_of_an_empty_url():
    command = curl_command({"request_headers": {}})
    assert shlex.split(command) == ["curl", "-X", "GET", ""]


def test_a_body_is_sent_even_when_the_trace_counted_no_bytes():
    command = curl_command(record(request_body="abc", request_bytes=0))
    assert shlex.split(command)[-2:] == ["--data-binary", "abc"]


def test_a_body_the_trace_did_not_keep_is_sent_empty_when_bytes_were_sent():
    command = curl_command(record(request_body="", request_bytes=5))
    assert shlex.split(command)[-2:] == ["--data-binary", ""]


def test_a_piped_body_goes_through_printf_into_curl():
    body = "y" * (INLINE_BODY_CHARS + 1)
    words = shlex.split(curl_command(record(request_body=body)))
    assert words[:5] == ["printf", "%s", body, "|", "curl"]
