"""A fork server for the Python processes a test run starts by the hundred (the reference
services, the Jupyter servers): one process per pytest worker imports their modules once,
then forks a fresh child for each start, which runs `python -m MODULE ARGS` as an exec'd
interpreter would (its own environment, folder, standard streams and session; the module
run as `__main__`; its atexit handlers at exit). Each start is still a new process with
nothing of an earlier test's in it; what it skips is the interpreter's start and the
imports (about 3 CPU-seconds for a Jupyter server, 1 for a service's first Design call).

`Zygote.spawn()` returns a `Forked`, which a caller uses as it would a `subprocess.Popen`
(pid, poll, wait, terminate, kill, stdout). The fork server is the child's parent, so it
reaps it and reports its exit status here; `python -m tests.zygote FD MODULE...` is the
server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_MAX_MESSAGE = 1 << 20
#: the environment the fork server starts with: the run's, as it was before any test
#: changed it (a child gets the environment its caller passes)
_START_ENV = dict(os.environ)


class Forked:
    """A child of the fork server, with the part of `subprocess.Popen`'s API the tests use."""

    def __init__(self, args: Sequence[str], pid: int, stdout) -> None:
        self.args = list(args)
        self.pid = pid
        self.stdout = stdout
        self.stdin = self.stderr = None
        self.returncode: int | None = None
        self._exited = threading.Event()

    def _exit(self, status: int) -> None:
        self.returncode = status
        self._exited.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._exited.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # not yet reaped: the pid is still this child's
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __repr__(self) -> str:
        return f"<Forked pid={self.pid} returncode={self.returncode}>"


class Zygote:
    """The client of one fork server, started on first use with `preload` imported."""

    def __init__(self, preload: Sequence[str]) -> None:
        self.preload = list(preload)
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._server: subprocess.Popen | None = None
        self._replies: list[int] = []
        self._reply = threading.Condition()
        self._children: dict[int, Forked] = {}
        self._early: dict[int, int] = {}  # exits read before their spawn's reply was handled

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(_START_ENV)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.zygote", str(theirs.fileno()), *self.preload],
            pass_fds=[theirs.fileno()], cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        threading.Thread(target=self._read, args=(ours,), name="zygote reader",
                         daemon=True).start()
        return ours

    def _read(self, sock: socket.socket) -> None:
        while True:
            try:
                data = sock.recv(_MAX_MESSAGE)
            except OSError:
                data = b""
            if not data:  # the server is gone: nothing it started will be reported
                with self._reply:
                    self._replies.append(-1)
                    self._reply.notify_all()
                return
            message = json.loads(data)
            if "pid" in message:
                with self._reply:
                    self._replies.append(message["pid"])
                    self._reply.notify_all()
            else:
                with self._reply:
                    child = self._children.pop(message["exit"], None)
                    if child is None:
                        self._early[message["exit"]] = message["status"]
                if child is not None:
                    child._exit(message["status"])

    def spawn(self, module: str, args: Sequence[str], *, env: Mapping[str, str], cwd: Path,
              stdout: int | None, stderr: int | None, new_session: bool = False) -> Forked:
        """Run `python -m module *args` in a fresh child. `stdout` and `stderr` are file
        descriptors, subprocess.PIPE (stdout only) or subprocess.STDOUT (stderr only);
        stdin is /dev/null."""
        read_end = pipe_write = None
        if stdout == subprocess.PIPE:
            read_end, pipe_write = os.pipe()
            stdout = pipe_write
        out = stdout if stdout is not None else 1  # this process's own streams, by fd:
        err = out if stderr == subprocess.STDOUT else (  # pytest may have swapped sys.stdout
            stderr if stderr is not None else 2)
        null = os.open(os.devnull, os.O_RDONLY)
        request = json.dumps({"module": module, "args": list(args), "env": dict(env),
                              "cwd": str(cwd), "new_session": new_session}).encode()
        try:
            with self._lock:
                if self._sock is None:
                    self._sock = self._start()
                socket.send_fds(self._sock, [request], [null, out, err])
                with self._reply:
                    while not self._replies:
                        self._reply.wait()
                    pid = self._replies.pop(0)
                    if pid < 0:
                        raise OSError("the fork server has stopped")
                    piped = os.fdopen(read_end, "rb") if read_end is not None else None
                    read_end = None
                    child = Forked([sys.executable, "-m", module, *args], pid, piped)
                    status = self._early.pop(pid, None)
                    if status is None:
                        self._children[pid] = child
                if status is not None:
                    child._exit(status)
                return child
        finally:
            for fd in (null, pipe_write, read_end):
                if fd is not None:
                    os.close(fd)

    def popen(self, command: Sequence[str], *, stdin: int | None = None, stdout=None,
              stderr=None, env: Mapping[str, str] | None = None, cwd: Path | str | None = None,
              start_new_session: bool = False) -> Forked:
        """`spawn` with `subprocess.Popen`'s arguments, for a `[sys.executable, "-m",
        MODULE, *ARGS]` command: what a caller that takes a `popen` passes on."""
        if list(command[:2]) != [sys.executable, "-m"] or len(command) < 3:
            raise ValueError(f"not a `python -m` command: {command!r}")
        if stdin not in (None, subprocess.DEVNULL):
            raise ValueError("a forked child's stdin is /dev/null")
        return self.spawn(command[2], command[3:], env=os.environ if env is None else env,
                          cwd=Path(cwd or os.getcwd()), stdout=_fd(stdout),
                          stderr=_fd(stderr), new_session=start_new_session)

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes the reader; the server sees EOF
                self._sock.close()
                self._sock = None
            if self._server is not None:  # it stops when its socket closes
                try:
                    self._server.wait(10)
                except subprocess.TimeoutExpired:
                    self._server.kill()
                    self._server.wait()
                self._server = None


def _fd(stream) -> int | None:
    return stream if stream is None or isinstance(stream, int) else stream.fileno()


#: what the run's fork server imports once: the reference service (its MCP SDK too, which
#: the service loads on its first Design call) and the Jupyter servers
PRELOAD = ("jupyter_design_projects.server.cli", "jupyter_design_projects.server.design.mcp",
           "mcp.server.streamable_http_manager", "jupyterlab.labapp",
           "jupyter_server.serverapp")

#: this process's fork server, started on its first use
ZYGOTE = Zygote(PRELOAD)


# ---------------------------------------------------------------- the server


def _serve(sock: socket.socket) -> None:
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C to the run is the workers' to handle
    import selectors

    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj == wake_read:
                os.read(wake_read, 4096)
                _reap(sock)
                continue
            try:
                data, fds, _, _ = socket.recv_fds(sock, _MAX_MESSAGE, 3)
            except OSError:
                data = b""
            if not data:  # the worker closed its end: stop; children live on, parentless
                return
            request = json.loads(data)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                selector.close()
                _child(request, fds, [sock.fileno(), wake_read, wake_write])
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"pid": pid}).encode())
            _reap(sock)


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        sock.send(json.dumps({"exit": pid, "status": os.waitstatus_to_exitcode(status)}).encode())


def _child(request: dict, fds: list[int], server_fds: list[int]) -> None:
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for fd in server_fds:
            os.close(fd)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if request["new_session"]:
            os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        import runpy

        sys.argv = [request["module"], *request["args"]]
        try:
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exit_:
            if exit_.code is None:
                code = 0
            elif isinstance(exit_.code, int):
                code = exit_.code
            else:
                print(exit_.code, file=sys.stderr)
                code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main(argv: list[str]) -> None:
    import importlib

    sock = socket.socket(fileno=int(argv[0]))
    for name in argv[1:]:
        importlib.import_module(name)
    _serve(sock)


if __name__ == "__main__":
    main(sys.argv[1:])
