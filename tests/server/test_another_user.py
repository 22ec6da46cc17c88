"""A process of another local user (uid 65534, as `setpriv` starts it; CI runs as root)
against a person's running embedded reference service: it gets no page that issues a code,
no token, no consent or grant and no data — over HTTP or from the 0700 data dir."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

SETPRIV = shutil.which("setpriv")
#: the system interpreter: another user cannot run the venv's (it lives under /root)
PYTHON = "/usr/bin/python3"

PROBE = r'''
import json, sys, urllib.error, urllib.request
base, data_dir = sys.argv[1], sys.argv[2]
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
AUTHORIZE = ("/oauth/authorize?response_type=code&client_id=jdp-notebook-client"
             "&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&state=s1"
             "&code_challenge=" + CHALLENGE + "&code_challenge_method=S256")
HUB = "https://hub.example/user/x/jupyter-design-projects"
def ask(method, path, body=None, headers=None, form=False):
    data = None
    headers = dict(headers or {})
    if body is not None:
        data = body.encode() if form else json.dumps(body).encode()
        headers["content-type"] = ("application/x-www-form-urlencoded" if form
                                   else "application/json")
    headers.setdefault("accept", "application/json, text/event-stream")
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, answer.read(65536).decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read(65536).decode("utf-8", "replace")
out = {
  "authorize": ask("GET", AUTHORIZE),
  "authorize_public": ask("GET", AUTHORIZE, headers={"x-jdp-public-base": HUB,
                                                     "x-jdp-owner": "guess"}),
  "authorize_post": ask("POST", "/oauth/authorize", "decision=approve&form_token=x",
                        {"origin": base}, form=True),
  "token_code": ask("POST", "/v1/oauth/token", {"grant_type": "authorization_code",
      "code": "guess", "code_verifier": "v" * 43, "client_id": "jdp-notebook-client",
      "redirect_uri": "http://127.0.0.1:9/callback"}),
  "token_refresh": ask("POST", "/v1/oauth/token", {"grant_type": "refresh_token",
      "refresh_token": "jdp_rt_guess", "client_id": "jdp-notebook-client"}),
  "settings": ask("GET", "/design/settings"),
  "settings_link": ask("GET", "/design/settings?owner_link=99999999999.AAAA"),
  "settings_post": ask("POST", "/design/settings/grants", "project_id=x&action=revoke",
                       {"origin": base}, form=True),
  "consent": ask("GET", "/v1/design/consent", headers={"anthropic-version": "2023-06-01"}),
  "grants": ask("GET", "/v1/design/grants", headers={"anthropic-version": "2023-06-01"}),
  "orgs": ask("GET", "/api/organizations"),
  "mcp": ask("POST", "/v1/design/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                 "clientInfo": {"name": "x", "version": "1"}}},
      {"anthropic-version": "2023-06-01"}),
}
files = {}
for name in ("owner-secret", "client-credentials.json", "service.sqlite3"):
    try:
        with open(data_dir + "/" + name, "rb") as handle:
            files[name] = "read %d bytes" % len(handle.read())
    except OSError as error:
        files[name] = type(error).__name__
out["files"] = files
print(json.dumps(out))
'''


@pytest.mark.skipif(SETPRIV is None or os.geteuid() != 0 or not os.path.exists(PYTHON),
                    reason="needs root, setpriv and /usr/bin/python3 to act as another uid")
def test_another_uid_gets_no_token_no_page_and_no_data(reference_service) -> None:
    service = reference_service
    probe = subprocess.run(
        [SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups", PYTHON, "-I", "-c",
         PROBE, service.base_url, str(service.data_dir)],
        capture_output=True, text=True, timeout=120, check=False, cwd="/")
    assert probe.returncode == 0, probe.stderr[-2000:]
    seen = json.loads(probe.stdout)
    statuses = {name: value[0] for name, value in seen.items() if name != "files"}
    assert statuses == {
        "authorize": 403, "authorize_public": 403, "authorize_post": 403,
        "token_code": 400, "token_refresh": 400, "settings": 403, "settings_link": 403,
        "settings_post": 403, "consent": 401, "grants": 401, "orgs": 401, "mcp": 401}
    bodies = json.dumps(seen)
    assert "access_token" not in bodies and "form_token" not in bodies
    assert "Consent for agents" not in bodies and "Team Handbook" not in bodies
    assert json.loads(seen["token_code"][1])["error"] == "invalid_grant"
    assert set(seen["files"].values()) == {"PermissionError"}
    assert service.owner_secret() is not None  # the owner reads what the other could not
