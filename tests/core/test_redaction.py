"""Secrets as a type and the one redactor: every spelling of a token, Bearer values, credential
fields, redact before cut."""

import json
import pickle
from urllib.parse import quote, quote_plus

import pytest

from jupyter_design_projects.core.redaction import (
    REDACTED,
    SECRET_FIELDS,
    CredentialFields,
    Redactor,
    Secret,
    SeenSecrets,
    as_secret,
    redact,
    redact_body,
    redact_body_cut,
    redact_fields,
    redact_then_truncate,
    secrets_in_body,
)

TOKEN = 'tok/+=en"value\\with spaces'


@pytest.mark.parametrize("show", [repr, str, lambda s: f"{s}", lambda s: f"{s:>40}",
                                  lambda s: f"{s}"])
def test_secret_never_prints_its_value(show):
    assert show(Secret("abcdefgh12345")) == REDACTED


def test_secret_reveals_its_value_on_request():
    assert Secret("abcdefgh12345").reveal() == "abcdefgh12345"


def test_secrets_compare_by_value():
    assert Secret("abcdefgh") == Secret("abcdefgh")
    assert Secret("abcdefgh") != Secret("abcdefgi")
    assert Secret("abcdefgh") != "abcdefgh"


def test_secret_cannot_be_pickled():
    with pytest.raises(TypeError):
        pickle.dumps(Secret("abcdefgh"))


@pytest.mark.parametrize(
    "form",
    [TOKEN, quote(TOKEN, safe=""), quote_plus(TOKEN), json.dumps(TOKEN)[1:-1],
     json.dumps(TOKEN)[1:-1].replace("/", "\\/")],
    ids=["raw", "url-encoded", "form-encoded", "json-escaped", "json-escaped-solidus"],
)
def test_every_spelling_of_a_known_secret_is_redacted(form):
    out = redact(f"before {form} after", [Secret(TOKEN)])
    assert form not in out
    assert REDACTED in out


@pytest.mark.parametrize(
    "text",
    ["Authorization: Bearer abc.def-ghi", "bearer xyz123", "BEARER a/b+c="],
)
def test_bearer_patterns_are_redacted_without_knowing_the_token(text):
    out = redact(text)
    assert out.endswith("Bearer " + REDACTED)


@pytest.mark.parametrize(("value", "redacted"), [("1234567", False), ("12345678", True)])
def test_values_shorter_than_8_characters_are_not_treated_as_tokens(value, redacted):
    assert (REDACTED in redact(f"x {value} y", [value])) is redacted


def test_redaction_happens_before_truncation():
    secret = "SECRETTOKENVALUE"
    text = "x" * 10 + secret
    out = redact_then_truncate(text, 14, [secret])
    assert "SECR" not in out
    assert out.startswith("x" * 10)


@pytest.mark.parametrize(("limit", "cut"), [(5, False), (4, True)])
def test_truncation_boundary(limit, cut):
    assert redact_then_truncate("abcde", limit).endswith("…") is cut


def test_credential_fields_are_blanked_in_json():
    data = {"access_token": "a", "nested": [{"refresh_token": "b", "code": -32601}],
            "scope": "x"}
    assert redact_fields(data) == {
        "access_token": REDACTED,
        "nested": [{"refresh_token": REDACTED, "code": -32601}],
        "scope": "x",
    }


def test_body_redaction_blanks_fields_and_known_secrets_then_truncates():
    raw = json.dumps({"access_token": "FRESHTOKEN1", "note": "old KNOWNTOKEN2"}).encode()
    out = redact_body(raw, 1000, [Secret("KNOWNTOKEN2")])
    assert "FRESHTOKEN1" not in out and "KNOWNTOKEN2" not in out


def test_body_redaction_of_non_json_still_redacts_known_secrets():
    out = redact_body(b"oops KNOWNTOKEN2 \xff", 1000, ["KNOWNTOKEN2"])
    assert "KNOWNTOKEN2" not in out


def test_as_secret_wraps_a_string_and_keeps_a_secret():
    secret = Secret("abcdefgh12345")
    assert as_secret(secret) is secret
    assert as_secret("abcdefgh12345") == secret


def test_credential_fields_are_a_plain_dict_to_json_and_blank_in_repr():
    body = CredentialFields(grant_type="refresh_token", refresh_token="RT-LIVE-000001",
                            nested={"access_token": "AT-LIVE-000001"})
    assert json.loads(json.dumps(body))["refresh_token"] == "RT-LIVE-000001"
    for shown in (repr(body), str(body), f"{body}", repr([body])):
        assert "LIVE" not in shown
        assert "refresh_token" in shown and "grant_type" in shown


def test_a_plan_token_field_is_blanked_without_knowing_it():
    out = redact_body(b'{"plan_token": "PLAN-LIVE-000001", "project_id": "p"}', 1000)
    assert "PLAN-LIVE" not in out and '"project_id": "p"' in out


#: an MCP answer: the tool's JSON result held as text inside the JSON-RPC answer
MCP_ANSWER = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [{
    "type": "text", "text": json.dumps({"plan_token": "PLAN-LIVE-000002", "writes": ["a"]}),
}]}}).encode()


def test_credential_fields_inside_a_json_text_block_are_blanked():
    out = redact_body(MCP_ANSWER, 10_000)
    assert "PLAN-LIVE" not in out
    inner = json.loads(json.loads(out)["result"]["content"][0]["text"])
    assert inner == {"plan_token": REDACTED, "writes": ["a"]}


@pytest.mark.parametrize("after", [0, 2, 20, 40])
def test_a_json_text_block_cut_short_is_blanked_by_pattern(after):
    """Cut within the token (after=0: right after 'PLAN-LIVE'), after its closing quote,
    and further on: not JSON any more, the field is blanked by its escaped pattern."""
    head = MCP_ANSWER[:MCP_ANSWER.index(b"PLAN-LIVE") + len(b"PLAN-LIVE") + after]
    assert "PLAN-LIVE" not in redact_body(head, 10_000)


def test_a_text_that_only_looks_like_json_is_left_alone():
    assert redact_fields({"text": "{not json"}) == {"text": "{not json"}
    assert redact_fields({"text": '{"code": "x"'}) == {"text": f'{{"code": "{REDACTED}"'}


@pytest.mark.parametrize(("limit", "expected"), [(12, ("[1, 2, 3, 4]", False)),
                                                 (11, ("[1, 2, 3, 4", True))])
def test_the_cut_form_says_whether_it_cut_and_adds_no_ellipsis(limit, expected):
    assert redact_body_cut(b"[1,2,3,4]", limit) == expected
    assert redact_body(b"[1,2,3,4]", limit) == expected[0] + ("…" if expected[1] else "")


def test_different_secrets_hash_apart_and_equal_ones_alike():
    assert hash(Secret("abcdefgh")) == hash(Secret("abcdefgh"))
    assert hash(Secret("abcdefgh")) != hash(Secret("abcdefgi"))
    assert len({Secret("abcdefgh"), Secret("abcdefgh"), Secret("zzzzzzzz")}) == 2


def test_a_json_escaped_secret_is_redacted_whole():
    token = 'abc"defgh'
    text = json.dumps({"t": token})
    assert token not in text  # only its escaped spelling is there
    assert redact(text, [token]) == json.dumps({"t": REDACTED})


def test_the_longest_secret_is_redacted_first():
    long, short = "aaaaaaaazzzzzzzz", "zzzzzzzz"  # the short one sorts after the long one
    assert redact(f"x {long} y", [short, long]) == f"x {REDACTED} y"
    assert redact(f"x {long} y", [long, short]) == f"x {REDACTED} y"


def test_a_json_array_text_block_is_blanked_and_keeps_its_letters():
    assert redact_fields({"text": '[{"token": "abc", "name": "caf\u00e9"}]'}) == {
        "text": f'[{{"token": "{REDACTED}", "name": "caf\u00e9"}}]'}


def test_a_json_body_keeps_its_letters():
    assert redact_body_cut('{"name": "caf\u00e9", "code": "x1"}'.encode(), 100) == (
        f'{{"name": "caf\u00e9", "code": "{REDACTED}"}}', False)


def test_a_cut_body_has_its_fields_blanked_by_pattern_exactly():
    assert redact_body_cut(b'{"code": "abcdef", "x": "y', 100) == (
        f'{{"code": "{REDACTED}", "x": "y', False)
    escaped = b'{"text": "{\\"token\\": \\"abcdef\\", \\"x\\": 1'
    assert redact_body_cut(escaped, 100) == (
        f'{{"text": "{{\\"token\\": \\"{REDACTED}\\", \\"x\\": 1', False)


# ---------------------------------------------------------------- every credential field

#: each field whose value is a credential wherever it appears (pinned one by one: removing
#: any from SECRET_FIELDS fails its own row below)
CREDENTIAL_FIELDS = ["access_token", "refresh_token", "id_token", "token", "code",
                     "code_verifier", "client_secret", "session_jwt", "password", "plan_token"]
FIELD_VALUE = "field-secret-value-0123456789"


def test_the_credential_fields_are_exactly_the_pinned_ones():
    assert set(CREDENTIAL_FIELDS) == SECRET_FIELDS


@pytest.mark.parametrize("field", CREDENTIAL_FIELDS)
def test_each_credential_field_is_blanked_where_its_value_is_not_known(field):
    data = {field: FIELD_VALUE, "other": "kept"}
    assert redact_fields(data) == {field: REDACTED, "other": "kept"}
    nested = {"result": {"content": [{"type": "text", "text": json.dumps(data)}]}}
    assert FIELD_VALUE not in json.dumps(redact_fields(nested))
    assert FIELD_VALUE not in repr(CredentialFields(data))  # a traceback's locals
    assert FIELD_VALUE not in str(CredentialFields(data))
    body = json.dumps(data).encode()
    assert FIELD_VALUE not in redact_body(body, 1000)
    assert FIELD_VALUE not in redact_body(body[:-1], 1000)  # cut short: not JSON any more
    assert FIELD_VALUE not in redact_body(json.dumps(nested).encode()[:-3], 1000)


# ---------------------------------------------------------------- spellings and placements

SLASHED = "dpt_ab/cd+ef=gh-0123456789"


@pytest.mark.parametrize("text", [
    f'{{"note": " {SLASHED}"}}',                              # a JSON string, leading space
    f"plan token '{SLASHED}' is spent",                      # quoted in an error sentence
    f'plan token "{SLASHED}" is unknown',
    f"?plan={quote(SLASHED, safe='')}",                      # URL-encoded, upper-case hex
    f"?plan={quote(SLASHED, safe='').lower()}",              # … and lower-case hex
    f"?plan={quote_plus(SLASHED)}",                          # form-encoded
    json.dumps({"text": json.dumps({"detail": f"token {SLASHED}"})}),  # escaped twice over
    json.dumps(SLASHED).replace("/", "\\/"),                 # the solidus escaped
], ids=["json-leading-space", "single-quoted", "double-quoted", "url", "url-lower-hex",
        "form", "nested-json", "solidus"])
def test_a_known_secret_is_redacted_in_every_placement(text):
    out = redact(text, [Secret(SLASHED)])
    assert REDACTED in out
    for leftover in ("ab/cd", "ab%2Fcd", "ab%2fcd", "ab\\/cd", "ef=gh", "ef%3Dgh", "ef%3dgh"):
        assert leftover not in out


def test_a_secret_given_with_blanks_around_it_is_redacted_without_them_too():
    assert redact(f"token {SLASHED}.", [Secret(f"  {SLASHED}\n")]) == f"token {REDACTED}."


def test_a_short_value_is_not_a_token_and_is_left_alone():
    assert redact("the word secret stays", ["secret", "  secret  "]) == "the word secret stays"


# ---------------------------------------------------------------- learning from bodies

PLAN = "dpt_" + "x" * 43


def mcp_answer(fields: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": json.dumps(fields)}],
        "structuredContent": fields, "isError": False}}).encode()


@pytest.mark.parametrize(("body", "found"), [
    (mcp_answer({"plan_token": PLAN, "project_id": "p"}), [PLAN]),
    (b'data: {"result": {"content": [{"text": "{\\"plan_token\\": \\"' + PLAN.encode()
     + b'\\"}"}]}}\n\n', [PLAN]),                                       # an event stream
    (b'{"plan_token": "' + PLAN.encode() + b'", "cut', [PLAN]),       # cut short
    (json.dumps({"grant_type": "authorization_code", "code": "c" * 20,
                 "code_verifier": "v" * 43}).encode(), ["c" * 20, "v" * 43]),
    (json.dumps({"error": "not found", "code": "not_found_anywhere"}).encode(), []),
    (json.dumps({"project_id": "p", "files": [{"path": "a.html"}]}).encode(), []),
    (b"", []),
], ids=["mcp-result", "event-stream", "cut-json", "token-request", "error-kind", "plain", "empty"])
def test_the_credentials_a_body_carries_are_found(body, found):
    assert sorted(set(secrets_in_body(body))) == sorted(found)


def test_seen_secrets_keep_the_newest_and_never_print():
    seen = SeenSecrets(kept=2)
    seen.add(["first-secret-1", "short", "second-secret-2", REDACTED])
    seen.add(["third-secret-3", "second-secret-2"])
    assert [s.reveal() for s in seen] == ["third-secret-3", "second-secret-2"]
    assert "secret" not in repr(seen)


def test_a_redactor_made_once_redacts_as_redact_does_and_never_prints_a_spelling():
    secrets = [Secret(SLASHED), Secret("other-secret-0001"), "x"]
    made = Redactor(secrets)
    for text in (f"a {SLASHED} b", f"?q={quote(SLASHED, safe='')}", "Bearer abc.def", "plain"):
        assert made(text) == redact(text, secrets) == redact(text, made)
    assert "ab/cd" not in repr(made) and "other" not in repr(made)


def test_a_longer_secret_holding_a_shorter_one_is_redacted_whole():
    short, long = "abcdefgh12", "abcdefgh12345678"
    assert redact(f"[{long}]", [short, long]) == f"[{REDACTED}]"


# ---------------------------------------------------------------- answers, by value


def test_redact_values_replaces_secrets_in_strings_and_keys_in_place() -> None:
    from jupyter_design_projects.core.redaction import Redactor, redact_values

    secret = "sk/live+value=é-0001"
    value = {"a": [f"x {secret} y", {"b": quote(secret, safe="")}],
             f"key-{secret}": 1, "n": 5, "t": None}
    same = redact_values(value, Redactor([secret]))
    assert same is value
    assert value == {"a": [f"x {REDACTED} y", {"b": REDACTED}], f"key-{REDACTED}": 1,
                     "n": 5, "t": None}


def test_redact_values_walks_nesting_deeper_than_the_recursion_limit() -> None:
    import sys

    from jupyter_design_projects.core.redaction import Redactor, redact_values

    secret = "deep-secret-value-0001"
    value: list = [secret]
    for _ in range(sys.getrecursionlimit() * 2):
        value = [value]
    redact_values(value, Redactor([secret]))
    node = value
    while isinstance(node[0], list):
        node = node[0]
    assert node == [REDACTED]


def test_answers_are_redacted_by_value_only_never_by_the_bearer_pattern() -> None:
    from jupyter_design_projects.core.redaction import Redactor, redact_values

    text = "send Authorization: Bearer YOUR_TOKEN_HERE"
    assert redact_values({"doc": text}, Redactor(["unrelated-secret-01"])) == {"doc": text}
    assert redact_values({"doc": text}, Redactor()) == {"doc": text}  # nothing known


def test_a_secret_escaped_twice_in_a_json_text_inside_a_string_is_redacted() -> None:
    from jupyter_design_projects.core.redaction import Redactor

    secret = "sk/live+value=é-0002"
    block = json.dumps({"note": json.dumps(secret)[1:-1]})  # a text block holding JSON
    assert secret not in Redactor([secret])(block)
    assert json.loads(Redactor([secret])(block)) == {"note": REDACTED}
