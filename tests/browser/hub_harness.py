"""A real JupyterHub on loopback, as a team runs one, for the browser tests: JupyterHub from
PyPI, configurable-http-proxy from npm (`tasks.py` installs it into .venv/chp),
`DummyAuthenticator` with one shared password, and `LocalProcessSpawner`, so each person's
server, embedded service and kernels run as their own system user (made here when absent,
with a home in a folder this harness owns, and removed with it).

    with hub_users(["alice", "bob"]) as users, running_hub(tmp, users) as hub:
        hub.start_servers()                      # both at once, through the hub's API
        context = hub.browser_context(chromium)  # reaches the hub's public URL only
        page = hub.log_in(context, "alice")      # the hub's login form, as a person

Every wait is bounded by a deadline. `running_hub` stops the hub, which stops the servers
it spawned and its proxy, then ends any process still running as one of the harness's
users (by pid) and checks that none is left; `hub_users` removes the users it made and
their homes. A sign-in step (the service's, through `<base_url>jupyter-design-projects/
oauth/callback`) is one more method on `Hub` driving `page` under `hub.user_url(name)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import pwd
import secrets
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from jupyter_design_projects.transport.http import loopback_tls
from tests.jupyter_process import free_port, stop, tail

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
VENV_BIN = Path(sys.executable).parent
#: the venv the hub's users run the project's venv through, when they cannot reach its own
#: interpreter (pyenv's, under root's 0700 home)
USERS_VENV = VENV / "hub-users"
HTTP_PROXY = ROOT / ".venv" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
#: the names the harness gives the system users it makes (never anyone else's)
USER_PREFIX = "jdphub-"
PASSWORD = "hub-test-password"
START_DEADLINE_S = 180.0
STOP_DEADLINE_S = 30.0
#: JupyterLab user settings that keep a run offline (no news, no update check)
LAB_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
    "fetchNews": "false", "checkForUpdates": False}}


@dataclasses.dataclass(frozen=True)
class HubUser:
    """A system user the hub spawns servers as: their hub name is their login name."""

    name: str
    uid: int
    home: Path
    made_here: bool

    def data_dir(self) -> Path:
        """Where the extension keeps this person's data (platformdirs' default)."""
        return self.home / ".local" / "share" / "jupyter-design-projects"


def open_to_others(path: Path) -> bool:
    """Whether another user can run `path`: every folder up to it searchable by others."""
    real = Path(os.path.realpath(path))
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in (real, *real.parents))


def users_python() -> Path:
    """A Python the hub's users can run with this project's packages: the venv's own when
    they can reach its interpreter; else `.venv/hub-users`, made once from the system's
    python3 of the same version, seeing the project's venv as a site dir (its .pth files,
    the editable install's among them, included)."""
    if open_to_others(Path(sys.executable)):
        return Path(sys.executable)
    python = USERS_VENV / "bin" / "python"
    if python.exists():
        return python
    system = Path(f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}")
    assert system.exists() and open_to_others(system), (
        f"the hub's users cannot run {os.path.realpath(sys.executable)} and there is no "
        f"{system} to make {USERS_VENV} from")
    subprocess.run([str(system), "-m", "venv", "--without-pip", str(USERS_VENV)], check=True,
                   capture_output=True, timeout=120)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"], check=True,
                             capture_output=True, text=True, timeout=60).stdout.strip()
    Path(purelib, "jdp-project-venv.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in site.getsitepackages()))
    return python


def _until(check: Callable[[], Any], what: str, deadline_s: float = START_DEADLINE_S,
           log: Path | None = None) -> Any:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"{what} within {deadline_s:g} s" + (f":\n{tail(log)}" if log else ""))


@contextlib.contextmanager
def hub_users(names: list[str]) -> Iterator[list[HubUser]]:
    """System users `jdphub-<name>` with homes (0755, as many distributions make them) in a
    folder of this harness's: made with `useradd --system` (needs root), and removed,
    homes included, afterwards. One a killed run left, with nothing running as it, is
    made again with an empty home. The venv must be readable by them."""
    base = Path(tempfile.mkdtemp(prefix="jdp-hub-homes-"))
    os.chmod(base, 0o755)
    users: list[HubUser] = []
    try:
        for name in names:
            login = USER_PREFIX + name
            made = False
            try:
                left = pwd.getpwnam(login)
            except KeyError:
                left = None
            if left is not None and not processes_of({left.pw_uid}):
                # a killed run's user, its home and data still there: made again, clean
                subprocess.run(["userdel", "--remove", login], capture_output=True,
                               timeout=60, check=False)
                left = None
            if left is None:
                home = base / login
                subprocess.run(["useradd", "--system", "--create-home", "--home-dir",
                                str(home), "--shell", "/usr/sbin/nologin", "--user-group",
                                login], check=True, capture_output=True, timeout=60)
                made = True
            entry = pwd.getpwnam(login)
            os.chmod(entry.pw_dir, 0o755)
            users.append(HubUser(login, entry.pw_uid, Path(entry.pw_dir), made))
        yield users
    finally:
        for user in users:
            if user.made_here:
                subprocess.run(["userdel", "--remove", user.name], capture_output=True,
                               timeout=60, check=False)
        shutil.rmtree(base, ignore_errors=True)


def processes_of(uids: set[int]) -> list[int]:
    """The pids of every process running as one of `uids`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@dataclasses.dataclass
class Hub:
    public_url: str
    api_token: str
    users: dict[str, HubUser]
    log_file: Path
    #: requests a browser context of `browser_context` tried outside the public URL
    blocked: list[str] = dataclasses.field(default_factory=list)

    @property
    def api(self) -> httpx.Client:
        return httpx.Client(base_url=f"{self.public_url}/hub/api", timeout=30.0,
                            headers={"Authorization": f"token {self.api_token}"},
                            verify=loopback_tls())

    def user_url(self, name: str, path: str = "") -> str:
        return f"{self.public_url}/user/{self.users[name].name}/{path}"

    def start_servers(self) -> None:
        """Every user's server, started at once through the hub's API, ready."""
        with self.api as api:
            for user in self.users.values():
                answer = api.post(f"/users/{user.name}/server")
                assert answer.status_code in (201, 202), (answer.text, tail(self.log_file))

            def ready() -> bool:
                return all(api.get(f"/users/{u.name}").json()["servers"].get("", {})
                           .get("ready") for u in self.users.values())

            _until(ready, "every user's server ready", log=self.log_file)

    def browser_context(self, chromium: Any) -> Any:
        """A browser context that reaches only the hub's public URL: anything else (the
        servers' own loopback ports, their services, the internet) is aborted and noted."""
        context = chromium.new_context(viewport={"width": 1400, "height": 900})

        def route(request_route: Any) -> None:
            url = request_route.request.url
            if url.startswith(self.public_url + "/") or url.startswith(("data:", "blob:")):
                request_route.continue_()
            else:
                self.blocked.append(url)
                request_route.abort("blockedbyclient")

        context.route("**/*", route)
        return context

    def log_in(self, context: Any, name: str) -> Any:
        """A page of `context` logged in to the hub as `name`, through its login form."""
        page = context.new_page()
        page.goto(f"{self.public_url}/hub/login")
        page.fill("#username_input", self.users[name].name)
        page.fill("#password_input", PASSWORD)
        page.click("#login_submit")
        page.wait_for_url(lambda url: "/hub/login" not in url)
        return page

    def in_kernel(self, name: str, code: str) -> str:
        """Run `code` in a new kernel of `name`'s server (through the hub's proxy, with
        the harness's token); its stdout and any error, as text. The kernel is removed."""
        return asyncio_run(_kernel_output(self.user_url(name), self.api_token, code))


def asyncio_run(work: Any) -> Any:
    """`work` run to its end on a thread of its own (Playwright's sync API holds this
    thread's event loop)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result(START_DEADLINE_S + 60)


async def _kernel_output(server_url: str, token: str, code: str) -> str:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    headers = {"Authorization": f"token {token}"}
    async with httpx.AsyncClient(timeout=60.0, headers=headers, verify=loopback_tls()) as http:
        answer = await http.post(f"{server_url}api/kernels", json={"name": "python3"})
        assert answer.status_code == 201, answer.text
        kernel = answer.json()["id"]
        try:
            socket = await websocket_connect(HTTPRequest(
                f"ws{server_url[4:]}api/kernels/{kernel}/channels", headers=headers,
                request_timeout=60.0))
            try:
                return await _executed(socket, code)
            finally:
                await _closed(socket)
        finally:
            await http.delete(f"{server_url}api/kernels/{kernel}")


async def _executed(socket, code: str) -> str:
    """Run `code` over the kernel's open channels; its stream output and errors."""
    msg_id = secrets.token_hex(8)
    socket.write_message(json.dumps({
        "channel": "shell", "parent_header": {}, "metadata": {}, "buffers": [],
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "",
                   "session": secrets.token_hex(8), "version": "5.3", "date": ""},
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False}}))
    out, deadline = "", time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        raw = await asyncio.wait_for(socket.read_message(),
                                     max(0.1, deadline - time.monotonic()))
        assert raw is not None, "the kernel's channels closed"
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["header"]["msg_type"]
        if kind == "stream":
            out += msg["content"]["text"]
        elif kind == "error":
            out += f"{msg['content']['ename']}: {msg['content']['evalue']}\n"
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            return out
    raise AssertionError(f"the kernel did not finish within {START_DEADLINE_S:g} s")


async def _closed(socket) -> None:
    """Close the channels and wait (bounded) until tornado has closed the TCP stream:
    `close()` only starts the closing handshake, and a connection left open when its loop
    ends (a failed assertion above, say) is a socket for the garbage collector, which
    fails a later, innocent test with a ResourceWarning."""
    socket.close()
    with contextlib.suppress(TimeoutError):
        while await asyncio.wait_for(socket.read_message(), 10.0) is not None:
            pass


def hub_config(tmp: Path, users: list[HubUser], public_port: int, token: str,
               environment: dict[str, str], more: str = "") -> str:
    """The hub's `jupyterhub_config.py`: loopback ports, the npm proxy, Dummy
    authentication, local processes as each user, the harness as an admin service,
    `environment` (what `c.Spawner.environment` gives every server), then `more` (config
    lines of a test's own, e.g. a per-user callable in `c.Spawner.environment`)."""
    settings = tmp / "lab-settings"
    for name, value in LAB_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value))
    python = users_python()
    env = {"JUPYTERLAB_SETTINGS_DIR": str(settings),
           # the project venv's Jupyter config (its server extensions) and data (the
           # labextensions), wherever the users' Python lives
           "JUPYTER_CONFIG_PATH": str(VENV / "etc" / "jupyter"),
           "JUPYTER_PATH": str(VENV / "share" / "jupyter"),
           "PATH": f"{python.parent}{os.pathsep}/usr/bin{os.pathsep}/bin", **environment}
    return f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {public_port}
c.JupyterHub.public_url = "http://127.0.0.1:{public_port}"  # JUPYTERHUB_PUBLIC_URL
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.command = [{str(HTTP_PROXY)!r}]
c.ConfigurableHTTPProxy.pid_file = {str(tmp / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{tmp / "jupyterhub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(tmp / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(tmp / "jupyterhub.pid")!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allowed_users = {sorted(u.name for u in users)!r}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{str(python)!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.args = ["--LabApp.expose_app_in_browser=True"]
c.Spawner.start_timeout = {int(START_DEADLINE_S)}
c.Spawner.http_timeout = {int(START_DEADLINE_S)}
c.Spawner.environment = {env!r}
c.JupyterHub.services = [{{"name": "harness", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "harness", "services": ["harness"], "scopes": [
    "admin:users", "admin:servers", "access:servers", "list:users", "read:users"]}}]
{more}
"""


@contextlib.contextmanager
def running_hub(logs: Path, users: list[HubUser], environment: dict[str, str] | None = None,
                more_config: str = "") -> Iterator[Hub]:
    """`jupyterhub` on a free loopback port (see `hub_config`), stopped on exit with every
    process it started; an AssertionError if one of the users' processes outlives it. Its
    folder (config, database, shared settings: readable by the users' servers) is removed
    afterwards; its log is copied into `logs`."""
    assert HTTP_PROXY.exists(), (f"{HTTP_PROXY} is missing: `python3 tasks.py test` "
                                 "installs configurable-http-proxy there")
    tmp = Path(tempfile.mkdtemp(prefix="jdp-hub-"))
    os.chmod(tmp, 0o755)
    port, token = free_port(), secrets.token_hex(24)
    config = tmp / "jupyterhub_config.py"
    config.write_text(hub_config(tmp, users, port, token, environment or {}, more_config))
    log_file = tmp / "jupyterhub.log"
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    with log_file.open("wb") as log:
        process = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(config)],
                                   cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{port}", token, {u.name[len(USER_PREFIX):]: u for u in users},
              log_file)
    try:
        def up() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"jupyterhub exited:\n{tail(log_file)}")
            try:
                return httpx.get(f"{hub.public_url}/hub/api/", timeout=5.0,
                                 verify=loopback_tls()).status_code == 200
            except httpx.TransportError:
                return False

        _until(up, "the hub answering on its public URL", log=log_file)
        yield hub
    finally:
        try:
            _stop(process, {u.uid for u in users}, log_file)
        finally:
            logs.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                shutil.copyfile(log_file, logs / "jupyterhub.log")
            shutil.rmtree(tmp, ignore_errors=True)


def _stop(process: subprocess.Popen, uids: set[int], log_file: Path) -> None:
    """SIGTERM the hub (it stops the servers it spawned and its proxy), SIGKILL after a
    grace; then any process still running as a harness user, by pid; none may remain."""
    if process.poll() is None:
        stop(process, STOP_DEADLINE_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the proxy, should the hub have left it
    deadline = time.monotonic() + STOP_DEADLINE_S  # a service sees its parent gone in 1 s
    while processes_of(uids) and time.monotonic() < deadline:
        time.sleep(0.25)
    left = processes_of(uids)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, (f"{len(left)} process(es) of the hub's users outlived it by "
                      f"{STOP_DEADLINE_S:g} s:\n{tail(log_file)}")
