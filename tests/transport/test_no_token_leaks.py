"""A token planted in every error path never reaches str, repr, to_dict, the traceback text
(also with every frame's locals, as `%xmode Verbose` or pytest --showlocals print them),
the logs or the HTTP trace."""

import asyncio
import json
import logging
import os
import traceback
from urllib.parse import quote

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.credential_manager import LoginAttempt
from jupyter_design_projects.transport.credentials import (
    FileCredentialStore,
    KeyringCredentialStore,
)
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.oauth import TOKEN_ANSWER_MAX_BYTES
from jupyter_design_projects.transport.trace import HttpTrace
from tests.transport.transport_doubles import ORIGIN, build_rig, make_cred

PLANTED = "PLANTED-tok-9f8e7d6c5b4a"
FORMS = (PLANTED, quote(PLANTED, safe=""), json.dumps(PLANTED)[1:-1])


def planted_cred():
    return make_cred(access_token=Secret(PLANTED + "-at"), refresh_token=Secret(PLANTED))


def oauth_echo(request):
    return httpx.Response(400, json={"error": "invalid_grant",
                                     "error_description": f"refresh token {PLANTED} is spent"})


def leaky_handler(request):
    if request.url.path == "/v1/oauth/token":
        return oauth_echo(request)
    return httpx.Response(401, json={"detail": f"Bearer {PLANTED} rejected"})


async def case_connect_error(rig, tmp_path):
    def handler(request):
        raise httpx.ConnectError(f"proxy said {PLANTED}", request=request)

    async with make_client(transport=httpx.MockTransport(handler),
                           event_hooks=rig.trace.event_hooks()) as client:
        await send(client, "POST", ORIGIN + "/x", action="a", max_bytes=10, deadline_s=5)


async def case_json_error(rig, tmp_path):
    async with make_client(transport=httpx.MockTransport(
            lambda r: httpx.Response(200, content=f"not json {PLANTED}".encode())),
            event_hooks=rig.trace.event_hooks()) as client:
        answer = await send(client, "GET", ORIGIN + "/x", action="a", max_bytes=1000,
                            deadline_s=5)
    answer.json()


async def case_refresh_error_description(rig, tmp_path):
    rig.service.token_override = oauth_echo
    await rig.oauth.refresh(planted_cred(), ("user:profile",))


async def case_malformed_token_answer(rig, tmp_path):
    rig.service.token_override = lambda r: httpx.Response(
        200, json={"access_token": PLANTED, "expires_in": "never"})
    await rig.oauth.refresh(planted_cred(), ("user:profile",))


async def case_refresh_after_401_refused(rig, tmp_path):
    rig.service.token_override = oauth_echo
    await rig.manager.refresh_after_401(Secret(PLANTED + "-at"))


async def case_second_401(rig, tmp_path):
    rig.service.resource_answer = httpx.Response(401, json={"detail": PLANTED})
    await send(rig.http, "GET", ORIGIN + "/x", action="a", max_bytes=1000, deadline_s=5)


async def case_scope_expansion_refused(rig, tmp_path):
    rig.service.token_override = oauth_echo
    await rig.manager.ensure_project_scopes()


async def case_origin_with_userinfo(rig, tmp_path):
    await rig.http.get(f"http://{PLANTED}@evil.example/x")


async def case_malformed_credentials_file(rig, tmp_path):
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"access_token": PLANTED, "expires_at": "x"}))
    os.chmod(path, 0o600)
    FileCredentialStore(path).load()


async def case_truncated_credentials_file(rig, tmp_path):
    path = tmp_path / "credentials.json"
    path.write_text('{"access_token": "' + PLANTED)
    os.chmod(path, 0o600)
    FileCredentialStore(path).load()


async def case_keyring_error(rig, tmp_path):
    class Leaky:
        def get_password(self, service, username):
            raise RuntimeError(f"backend echoed {PLANTED}")

    KeyringCredentialStore(backend=Leaky()).load()


async def case_keyring_malformed(rig, tmp_path):
    class Stored:
        def get_password(self, service, username):
            return '{"access_token": "' + PLANTED

    KeyringCredentialStore(backend=Stored()).load()


async def case_pasted_code_with_wrong_state(rig, tmp_path):
    attempt = LoginAttempt(url="u", state="expected-state", verifier=Secret("v" * 43))
    await rig.manager.finish_login(attempt, f"{PLANTED}#other-state")


async def case_pasted_code_malformed(rig, tmp_path):
    attempt = LoginAttempt(url="u", state="expected-state", verifier=Secret("v" * 43))
    await rig.manager.finish_login(attempt, f"{PLANTED} oops")


async def case_login_code_refused(rig, tmp_path):
    rig.service.token_override = lambda r: httpx.Response(
        400, json={"error": "invalid_grant", "error_description": f"code {PLANTED} used"})
    attempt = LoginAttempt(url="u", state="st", verifier=Secret("v" * 43))
    await rig.manager.finish_login(attempt, f"{PLANTED}#st")


async def case_token_answer_over_its_cap(rig, tmp_path):
    padding = "x" * TOKEN_ANSWER_MAX_BYTES
    rig.service.token_override = lambda r: httpx.Response(
        200, json={"access_token": PLANTED, "padding": padding})
    await rig.oauth.refresh(planted_cred(), ("user:profile",))


async def case_keyring_refuses_the_save(rig, tmp_path):
    class Refusing:
        def set_password(self, service, username, value):
            raise RuntimeError("locked")

    KeyringCredentialStore(backend=Refusing()).save(planted_cred())


async def case_refresh_timeout(rig, tmp_path):
    never = asyncio.Event()

    async def stall(request):
        await never.wait()

    rig.service.token_override = stall
    await rig.manager.refresh_after_401(Secret(PLANTED + "-at"))


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]

#: cases whose planted value is the caller's own argument, held by the caller's frames and
#: by httpx's (a URL with user information; configured URLs may not carry one)
CALLER_HELD = {case_origin_with_userinfo}


@pytest.mark.asyncio
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[5:])
async def test_planted_token_never_appears_in_any_output(case, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    rig = build_rig(tmp_path, planted_cred(), refresh_timeout_ms=200)
    await rig.manager.access_token()  # the session holds the planted token
    rig.trace = HttpTrace(True, rig.manager.known_secrets)
    rig.http.event_hooks = rig.trace.event_hooks()
    rig.http.auth = BearerAuth(rig.manager, {ORIGIN})
    async with rig.http:
        with pytest.raises(JdpError) as info:
            await case(rig, tmp_path)
    error = info.value
    outputs = {
        "str": str(error),
        "repr": repr(error),
        "to_dict": json.dumps(error.to_dict(), default=str),
        "traceback": "".join(traceback.format_exception(error)),
        "traceback with locals": "".join(
            traceback.TracebackException.from_exception(error, capture_locals=True).format()
        ) if case not in CALLER_HELD else "",
        "logs": caplog.text,
        "trace": json.dumps(rig.trace.records()),
    }
    for where, text in outputs.items():
        for form in FORMS:
            assert form not in text, f"planted token leaked into {where}"


def test_every_case_is_collected():
    assert len(CASES) >= 17
    assert CALLER_HELD <= set(CASES)
