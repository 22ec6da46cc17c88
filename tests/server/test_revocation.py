"""Token revocation (RFC 7009) at /v1/oauth/revoke: a revoked refresh token revokes its
whole sign-in (every access token issued with it or after it), a revoked access token
only itself; unknown tokens are answered 200 too; no client or no token is refused."""

from __future__ import annotations

import pytest

from jupyter_design_projects.server import oauth, revocation

REVOKE = "/v1/oauth/revoke"
TOKEN = "/v1/oauth/token"
CLIENT = "jdp-notebook-client"


def sign_in(ctx) -> dict[str, str]:
    with ctx.db.transaction() as conn:
        return oauth.issue_tokens(ctx, conn, user_id="u", client_id=CLIENT,
                                  scopes=("user:profile",))


def works(client, access: str) -> bool:
    answer = client.get("/api/organizations", headers={"authorization": f"Bearer {access}"})
    assert answer.status_code in (200, 401)
    return answer.status_code == 200


def refreshed(client, refresh: str):
    return client.post(TOKEN, json={"grant_type": "refresh_token", "refresh_token": refresh,
                                    "client_id": CLIENT})


def test_the_metadata_names_the_revocation_endpoint(client) -> None:
    meta = client.get("/.well-known/oauth-authorization-server").json()
    assert meta["revocation_endpoint"] == "http://127.0.0.1" + REVOKE
    assert meta["revocation_endpoint_auth_methods_supported"] == ["none"]


def test_revoking_a_refresh_token_revokes_its_whole_sign_in(client, service_app) -> None:
    first = sign_in(service_app[1])
    second = refreshed(client, first["refresh_token"]).json()
    assert works(client, second["access_token"])
    other = sign_in(service_app[1])  # another sign-in of the same person stays
    answer = client.post(REVOKE, data={"token": second["refresh_token"], "client_id": CLIENT,
                                       "token_type_hint": "refresh_token"})
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    assert not works(client, second["access_token"])
    assert not works(client, first["access_token"])
    assert refreshed(client, second["refresh_token"]).json()["error"] == "invalid_grant"
    assert works(client, other["access_token"])


def test_revoking_an_access_token_leaves_its_refresh_token(client, service_app) -> None:
    pair = sign_in(service_app[1])
    assert client.post(REVOKE, json={"token": pair["access_token"],
                                     "client_id": CLIENT}).status_code == 200
    assert not works(client, pair["access_token"])
    assert refreshed(client, pair["refresh_token"]).status_code == 200


@pytest.mark.parametrize("token", ["jdp_rt_unknown", "x"])
def test_an_unknown_token_is_answered_200_and_changes_nothing(client, service_app,
                                                              token: str) -> None:
    pair = sign_in(service_app[1])
    assert client.post(REVOKE, data={"token": token, "client_id": CLIENT}).status_code == 200
    assert works(client, pair["access_token"])


def test_revoking_twice_is_answered_200(client, service_app) -> None:
    pair = sign_in(service_app[1])
    for _ in range(2):
        assert client.post(REVOKE, data={"token": pair["refresh_token"],
                                         "client_id": CLIENT}).status_code == 200


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"data": {"token": "t", "client_id": "someone-else"}}, 401, "invalid_client"),
    ({"data": {"token": "t"}}, 401, "invalid_client"),
    ({"data": {"client_id": CLIENT}}, 400, "invalid_request"),
    ({"data": {"client_id": CLIENT, "token": ""}}, 400, "invalid_request"),
    ({"json": ["not", "an", "object"]}, 400, "invalid_request"),
    ({"content": b"token=t&client_id=" + CLIENT.encode(),
      "headers": {"content-type": "text/plain"}}, 400, "invalid_request"),
])
def test_bad_requests_get_a_flat_oauth_error(client, body, status: int, error: str) -> None:
    answer = client.post(REVOKE, **body)
    assert answer.status_code == status and answer.json()["error"] == error


def test_the_body_limit_is_exact(client, service_app) -> None:
    pair = sign_in(service_app[1])
    head = f"client_id={CLIENT}&token={pair['access_token']}&pad=".encode()
    at_limit = head + b"a" * (revocation.MAX_BODY_BYTES - len(head))
    over = at_limit + b"a"
    form = {"content-type": "application/x-www-form-urlencoded"}
    assert client.post(REVOKE, content=over, headers=form).status_code == 400
    assert works(client, pair["access_token"])
    assert client.post(REVOKE, content=at_limit, headers=form).status_code == 200
    assert not works(client, pair["access_token"])
