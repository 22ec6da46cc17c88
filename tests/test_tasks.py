"""The decisions of tasks.py (the README's two commands): which Node.js can build the
extension, when the extension needs a rebuild, and how `jupyter lab` is started."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("version", "usable"), [
    (None, False),
    ((18, 20), False),
    ((20, 18), False),
    ((20, 19), True),
    ((21, 7), False),
    ((22, 11), False),
    ((22, 12), True),
    ((23, 0), True),
    ((24, 3), True),
])
def test_node_is_usable_exactly_where_the_builder_accepts_it(tasks, version, usable):
    assert tasks.node_usable(version) is usable


def test_build_is_needed_when_the_output_is_missing(tasks, tmp_path):
    source = tmp_path / "index.ts"
    source.write_text("x")
    assert tasks.build_needed([source], tmp_path / "out" / "package.json") is True


@pytest.mark.parametrize(("output_age", "needed"), [(-10, True), (0, False), (10, False)])
def test_build_is_needed_when_a_source_is_newer_than_the_output(tasks, tmp_path, output_age,
                                                                needed):
    source, output = tmp_path / "index.ts", tmp_path / "package.json"
    source.write_text("x")
    output.write_text("{}")
    os.utime(source, (1_000_000, 1_000_000))
    os.utime(output, (1_000_000 + output_age, 1_000_000 + output_age))
    assert tasks.build_needed([source], output) is needed


def test_extension_sources_cover_the_typescript_style_and_lockfile(tasks):
    names = {p.relative_to(tasks.LABEXT_SRC).as_posix() for p in tasks.extension_sources()}
    assert {"package.json", "yarn.lock", "src/index.ts", "style/index.css",
            "reveal-assets.mjs"} <= names
    assert not any(name.startswith(("node_modules/", "lib/")) for name in names)


QUICKSTART_URL = "--LabApp.default_url=/lab/tree/notebooks/quickstart.ipynb"


@pytest.mark.parametrize(("args", "root", "display", "expected"), [
    ([], False, True, [QUICKSTART_URL]),
    ([], True, True, [QUICKSTART_URL, "--allow-root"]),
    ([], False, False, [QUICKSTART_URL, "--no-browser"]),
    (["--allow-root", "--no-browser"], True, False,
     [QUICKSTART_URL, "--allow-root", "--no-browser"]),
    (["--port=9999"], True, False,
     [QUICKSTART_URL, "--port=9999", "--allow-root", "--no-browser"]),
])
def test_lab_arguments_pass_extra_args_through_and_add_what_the_machine_needs(
        tasks, args, root, display, expected):
    assert tasks.lab_arguments(args, root=root, display=display) == expected


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert script.rstrip().endswith("exec python3 tasks.py test")
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_the_venv_is_made_bare_and_uv_goes_in_with_this_pythons_pip(
        tasks, tmp_path, monkeypatch):
    import sys

    venv = tmp_path / ".venv"
    monkeypatch.setattr(tasks, "VENV", venv)
    monkeypatch.setattr(tasks, "PYTHON", venv / "bin" / "python")
    monkeypatch.setattr(tasks, "UV", venv / "bin" / "uv")
    calls = []
    monkeypatch.setattr(tasks, "run", lambda *args, **_kw: calls.append([str(a) for a in args]))
    tasks.ensure_venv()
    assert tasks.ensure_uv() == venv / "bin" / "uv"
    assert calls == [
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "--quiet", "--disable-pip-version-check", f"uv=={tasks.lock.UV_VERSION}"]]


PYPROJECT = """[project]
dependencies = ["httpx>=0.28"]
[project.optional-dependencies]
test = ["pytest>=9"]
mutation = ["mutmut>=3.8,<4"]
[build-system]
requires = ["hatchling>=1.25"]
"""


@pytest.fixture
def sandbox(tasks, tmp_path, monkeypatch):
    """tasks.py pointed at a copy of the project's install inputs in tmp_path, with `run`
    recording commands instead of running them."""
    root = tmp_path / "clone"
    (root / "labextension" / "src").mkdir(parents=True)
    (root / "labextension" / "style").mkdir()
    for name in ("package.json", "yarn.lock", "tsconfig.json", ".yarnrc.yml"):
        (root / "labextension" / name).write_text("{}")
    (root / "labextension" / "src" / "index.ts").write_text("export {};")
    (root / "jupyter-config").mkdir()
    (root / "jupyter-config" / "install.json").write_text("{}")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "requirements.lock").write_text(
        f"{tasks.lock.DIGEST_PREFIX}{tasks.lock.inputs_digest(root / 'pyproject.toml')}\n")
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    out = root / "jupyter_design_projects" / "labextension"
    for name, value in {"ROOT": root, "VENV": venv, "BIN": venv / "bin",
                        "PYTHON": venv / "bin" / "python", "LABEXT_SRC": root / "labextension",
                        "LABEXT_OUT": out, "JUPYTER_CONFIG": root / "jupyter-config",
                        "LOCK": root / "requirements.lock", "UV": venv / "bin" / "uv"}.items():
        monkeypatch.setattr(tasks, name, value)
    monkeypatch.setattr(tasks, "ensure_uv", lambda: venv / "bin" / "uv")
    calls: list[list[str]] = []

    def run(*args, **_kwargs):
        calls.append([str(a) for a in args])
        if "-e" in args:  # what the build hook leaves behind
            (out / "static").mkdir(parents=True, exist_ok=True)
            (out / "package.json").write_text("{}")

    monkeypatch.setattr(tasks, "run", run)
    monkeypatch.setattr(tasks, "ensure_node", lambda env: None)
    return root, out, calls


def pip_installs(calls):
    return [c for c in calls if "-e" in c]


def test_install_puts_the_lock_in_then_the_project_alone_through_the_build_hook(
        tasks, sandbox):
    root, out, calls = sandbox
    tasks.install("test")
    uv, python = str(tasks.UV), str(tasks.PYTHON)
    assert calls == [
        [uv, "pip", "install", "--quiet", "--python", python, "--require-hashes", "-r",
         str(root / "requirements.lock")],
        [uv, "pip", "install", "--quiet", "--python", python, "--no-deps",
         "--no-build-isolation", "-e", "."]]
    assert not (tasks.VENV / "share").exists()


def test_lab_and_test_share_one_install_and_mutation_adds_its_extra_unpinned(tasks, sandbox):
    root, out, calls = sandbox
    tasks.install("test")
    tasks.install("lab")
    assert len(pip_installs(calls)) == 1  # the lock holds both extras
    calls.clear()
    tasks.install("test,mutation")
    assert calls[-1] == [str(tasks.UV), "pip", "install", "--quiet", "--python",
                         str(tasks.PYTHON), "mutmut>=3.8,<4"]


def test_a_lock_older_than_pyprojects_dependencies_stops_the_install_saying_why(
        tasks, sandbox):
    root, out, calls = sandbox
    pyproject = root / "pyproject.toml"
    pyproject.write_text(PYPROJECT.replace('test = ["pytest>=9"]',
                                           'test = ["pytest>=9", "jupyterhub>=5"]'))
    with pytest.raises(SystemExit) as stopped:
        tasks.install("test")
    assert "pyproject.toml's dependencies changed" in str(stopped.value)
    assert "python3 tasks.py lock" in str(stopped.value)
    assert calls == []  # nothing installed from a lock that does not match


def test_a_change_outside_the_dependency_tables_keeps_the_lock(tasks, sandbox):
    root, out, calls = sandbox
    pyproject = root / "pyproject.toml"
    pyproject.write_text(PYPROJECT + "[tool.pytest.ini_options]\naddopts = '-ra'\n")
    tasks.install("test")
    assert len(pip_installs(calls)) == 1


def test_a_missing_lock_or_one_not_made_by_tasks_py_stops_the_install(tasks, sandbox):
    root, out, calls = sandbox
    lock_file = root / "requirements.lock"
    lock_file.write_text("httpx==0.28.1\n")
    with pytest.raises(SystemExit, match="was not made by `python3 tasks.py lock`"):
        tasks.install("test")
    lock_file.unlink()
    with pytest.raises(SystemExit, match="missing"):
        tasks.install("test")


def test_the_lock_is_compiled_for_every_platform_with_hashes_and_the_build_backend(
        tasks, tmp_path, monkeypatch):
    """`tasks.py lock`: uv resolves pyproject's extras plus the build requirements (stdin),
    and the lock's first line is the digest of what it was made from."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(PYPROJECT)
    seen = {}

    def compile_(command, **kwargs):
        seen.update(command=command, stdin=kwargs["input"])
        return tasks.subprocess.CompletedProcess(command, 0, "httpx==0.28.1 \\\n", "")

    monkeypatch.setattr(tasks.lock.subprocess, "run", compile_)
    tasks.lock.refresh(Path("uv"), pyproject, tmp_path / "requirements.lock")
    command = seen["command"]
    assert {"--universal", "--generate-hashes"} <= set(command)
    assert command[-2:] == ["pyproject.toml", "-"] and seen["stdin"] == "\n".join(
        ["hatchling>=1.25", *tasks.lock.TOOLS])
    assert [command[i + 1] for i, a in enumerate(command) if a == "--extra"] == ["test", "lab"]
    text = (tmp_path / "requirements.lock").read_text()
    assert text.splitlines()[0] == tasks.lock.DIGEST_PREFIX + tasks.lock.inputs_digest(pyproject)
    tasks.lock.check(pyproject, tmp_path / "requirements.lock")  # fresh: no error


def test_the_committed_lock_matches_pyproject_and_pins_every_package_with_hashes():
    """CI installs what is committed: the lock was made from pyproject as it is."""
    spec = importlib.util.spec_from_file_location("lock", ROOT / "tasklib" / "lock.py")
    lock = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lock)
    lock.check(ROOT / "pyproject.toml", ROOT / "requirements.lock")
    pins = [line for line in (ROOT / "requirements.lock").read_text().splitlines()
            if line and not line.startswith((" ", "#"))]
    assert pins and all("==" in pin and pin.endswith("\\") for pin in pins)
    names = {pin.split("==")[0] for pin in pins}
    assert {"hatchling", "hatch-jupyter-builder", "jupyter-builder", "pytest", "jupyterlab",
            "mcp", "pip", "editables"} <= names


def test_install_is_skipped_until_an_input_changes(tasks, sandbox):
    root, out, calls = sandbox
    tasks.install("test")
    tasks.install("test")
    assert len(pip_installs(calls)) == 1
    (root / "jupyter-config" / "install.json").write_text('{"changed": true}')
    tasks.install("test")
    assert len(pip_installs(calls)) == 2


def test_a_changed_extension_source_deletes_the_stale_build_and_reinstalls(tasks, sandbox):
    root, out, calls = sandbox
    tasks.install("test")
    stale = out / "static" / "remoteEntry.old.js"
    stale.write_text("old")
    os.utime(out / "package.json", (1_000_000, 1_000_000))
    (root / "labextension" / "src" / "index.ts").write_text("export const x = 1;")
    tasks.install("test")
    assert len(pip_installs(calls)) == 2
    assert not stale.exists()  # the hook's skip-if-exists would have shipped it


def test_help_prints_the_commands_and_exits_zero():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(Path(__file__).parents[1] / "tasks.py"),
                           "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "python3 tasks.py test" in done.stdout and "python3 tasks.py lab" in done.stdout


def test_each_lab_run_gets_a_fresh_demo_data_dir(tasks):
    first, rest = tasks.lab_data_dir(["--port", "9"])
    second, _ = tasks.lab_data_dir([])
    try:
        assert rest == ["--port", "9"]
        assert first != second and first.is_dir() and not any(first.iterdir())
    finally:
        first.rmdir()
        second.rmdir()


def test_data_dir_keeps_the_named_one_and_is_not_passed_to_jupyter(tasks, tmp_path):
    folder, rest = tasks.lab_data_dir(["--no-browser", "--data-dir", str(tmp_path / "d")])
    assert folder == (tmp_path / "d").resolve() and folder.is_dir()
    assert rest == ["--no-browser"]


def test_data_dir_without_a_directory_is_refused(tasks):
    with pytest.raises(SystemExit):
        tasks.lab_data_dir(["--data-dir"])


def test_a_lab_run_on_a_fresh_demo_dir_removes_it_when_jupyterlab_stops(
        tasks, tmp_path, monkeypatch):
    """`tasks.py lab` without --data-dir leaves no jdp-demo-* folder behind: a stand-in
    `jupyter` writes into the demo dir it was given, and records its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "seen.txt"
    fake = bin_dir / "jupyter"
    fake.write_text("#!/bin/sh\n"
                    f'echo "$JDP_DATA_DIR $*" > {seen}\n'
                    'echo demo > "$JDP_DATA_DIR/journal.sqlite3"\n'
                    "exit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr(tasks, "ensure_venv", lambda: None)
    monkeypatch.setattr(tasks, "install", lambda extras: None)
    monkeypatch.setattr(tasks, "BIN", bin_dir)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        tasks.lab(["--no-browser"])
    assert stopped.value.code == 3  # JupyterLab's own exit code
    data_dir, args = seen.read_text().split(" ", 1)
    assert Path(data_dir).name.startswith("jdp-demo-")
    assert not Path(data_dir).exists()
    assert QUICKSTART_URL in args.split()


def test_lab_data_dirs_are_private_and_a_loose_named_one_is_tightened(tasks, tmp_path):
    fresh, _ = tasks.lab_data_dir([])
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    try:
        named, _ = tasks.lab_data_dir(["--data-dir", str(tmp_path / "new" / "d")])
        tightened, _ = tasks.lab_data_dir(["--data-dir", str(loose)])
        for folder in (fresh, named, tightened):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    finally:
        fresh.rmdir()


def test_the_service_the_lab_starts_under_its_data_dir_keeps_it_private(tasks, tmp_path):
    """`tasks.py lab --data-dir DIR` sets JDP_DATA_DIR=DIR; the server extension starts the
    reference service in DIR/reference-service (labserver/__init__.py): all of it private."""
    from jupyter_design_projects.embedded import start_embedded

    folder, _ = tasks.lab_data_dir(["--data-dir", str(tmp_path / "lab")])
    previous = os.umask(0o022)
    try:
        service = start_embedded(folder / "reference-service")
    finally:
        os.umask(previous)
    try:
        for path in [folder, *folder.rglob("*")]:
            wanted = 0o700 if path.is_dir() else 0o600
            assert stat.S_IMODE(path.stat().st_mode) == wanted, path
        assert (folder / "reference-service" / "reference-service.log").exists()
    finally:
        service.stop()


# ---------------------------------------------------------------- test tiers and mutation


TWO = ["-n", "2"]


SPLIT = ["-n", "3", "--worker-split"]


@pytest.mark.parametrize(("args", "expected"), [
    ([], [*SPLIT, "--durations=15"]),
    (["-x", "tests/core"], [*SPLIT, "--durations=15", "-x", "tests/core"]),
    (["-n", "0", "tests/core"], ["--durations=15", "-n", "0", "tests/core"]),
    (["--fast"], [*TWO, "--fast"]),
    (["--fast", "-x"], [*TWO, "--fast", "-x"]),
    (["--fast", "-n", "0"], ["--fast", "-n", "0"]),
    (["--fast", "-n0"], ["--fast", "-n0"]),
    (["--durations=5"], [*SPLIT, "--durations=5"]),
    (["--durations", "3"], [*SPLIT, "--durations", "3"]),
])
def test_the_fast_tier_runs_on_two_workers_a_full_run_on_three_and_prints_the_15_slowest(
        tasks, args, expected):
    assert tasks.pytest_arguments(args) == expected


def _test_command(tasks, monkeypatch, *, chromium):
    """`tasks.test` with its installs and exec replaced: `chromium` stands in for
    ensure_chromium; returns what ran, in order."""
    calls: list[str] = []
    monkeypatch.setattr(tasks, "ensure_venv", lambda: None)
    monkeypatch.setattr(tasks, "ensure_chromium", chromium)
    monkeypatch.setattr(tasks, "ensure_http_proxy", lambda env: calls.append("proxy"))
    monkeypatch.setattr(tasks.os, "chdir", lambda path: None)
    monkeypatch.setattr(tasks.os, "execve", lambda *args: calls.append("pytest"))
    return calls


def test_chromium_is_installed_while_the_python_install_runs(tasks, monkeypatch):
    apt_running, install_done = threading.Event(), threading.Event()

    def chromium():
        apt_running.set()
        # the Python install has not ended: it waits for this one to have started
        assert not install_done.is_set()

    calls = _test_command(tasks, monkeypatch, chromium=chromium)

    def install(extras, beside_build=None):
        assert apt_running.wait(10), "apt-get did not start beside the install"
        calls.append("install")
        install_done.set()

    monkeypatch.setattr(tasks, "install", install)
    tasks.test([])
    assert calls == ["install", "proxy", "pytest"]


def test_a_failed_apt_get_shows_its_output_and_stops_before_pytest(
        tasks, monkeypatch, capsys):
    calls = _test_command(tasks, monkeypatch, chromium=tasks.ensure_chromium)
    monkeypatch.setattr(tasks, "install", lambda extras, beside_build=None: None)
    monkeypatch.setattr(tasks, "CHROMIUM", Path("/nonexistent/chromium"))
    monkeypatch.setattr(tasks.os, "geteuid", lambda: 0)
    monkeypatch.setattr(tasks.shutil, "which", lambda name: f"/usr/bin/{name}")
    ran = []

    def apt(command, **kwargs):
        ran.append(command[:2])
        return tasks.subprocess.CompletedProcess(command, 100, "E: Unable to locate package",
                                                 "")

    monkeypatch.setattr(tasks.subprocess, "run", apt)
    with pytest.raises(tasks.subprocess.CalledProcessError):
        tasks.test([])
    assert ran == [["apt-get", "update"]]
    assert "E: Unable to locate package" in capsys.readouterr().out
    assert calls == []  # neither the proxy nor pytest


def test_the_fast_tier_installs_no_browser(tasks, monkeypatch):
    def chromium():
        raise AssertionError("the fast tier runs no browser")

    calls = _test_command(tasks, monkeypatch, chromium=chromium)
    monkeypatch.setattr(tasks, "install", lambda extras, beside_build=None: calls.append(
        "install"))
    tasks.test(["--fast"])
    assert calls == ["install", "pytest"]


def test_a_test_run_writes_bytecode_caches_even_where_the_caller_said_not_to(
        tasks, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = tasks.test_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PATH"].startswith(str(tasks.BIN))


def test_the_fast_tier_leaves_out_the_slow_kinds_declared_in_conftest():
    import subprocess
    import sys

    def collected(*extra: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *extra,
             "tests/test_packaging.py", "tests/test_mutation_score.py"],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}

    assert collected("-m", "packaging") == {"tests/test_packaging.py"}
    assert collected("--fast") == {"tests/test_mutation_score.py"}


def test_mutation_runs_mutmut_then_writes_the_report(tasks, monkeypatch):
    calls, execs = [], []
    monkeypatch.setattr(tasks, "ensure_venv", lambda: None)
    monkeypatch.setattr(tasks, "install", lambda extras: calls.append(("install", extras)))
    monkeypatch.setattr(tasks, "run", lambda *args, **kwargs: calls.append(args))
    monkeypatch.setattr(tasks.os, "chdir", lambda path: None)
    monkeypatch.setattr(tasks.os, "execve", lambda path, argv, env: execs.append(argv))
    tasks.mutation(["--max-children", "1"])
    assert calls[0] == ("install", "test,mutation")
    assert calls[1] == (tasks.BIN / "mutmut", "run", "--max-children", "1")
    assert execs == [[str(tasks.PYTHON), str(tasks.ROOT / "tests" / "mutation_score.py")]]
    calls.clear()
    tasks.mutation([])
    assert calls[1][:3] == (tasks.BIN / "mutmut", "run", "--max-children")
    assert tasks.COMMANDS["mutation"] is tasks.mutation


def test_screenshots_retakes_only_the_pictures_into_the_docs(tasks, monkeypatch):
    ran = []
    monkeypatch.setattr(tasks, "test", ran.append)
    tasks.screenshots(["-x"])
    assert ran == [["-n", "0", "-m", "screenshots", "--retake-screenshots", "-x"]]
    assert tasks.COMMANDS["screenshots"] is tasks.screenshots
    assert tasks.COMMANDS["lock"] is tasks.lock_command


def test_a_fresh_install_warms_the_caches_while_the_extension_builds(tasks, sandbox,
                                                                     monkeypatch):
    root, out, calls = sandbox

    @contextlib.contextmanager
    def beside(command):
        calls.append(["beside", *command])
        yield
        calls.append(["waited"])

    monkeypatch.setattr(tasks, "beside", beside)
    tasks.install("test", beside_build=["warm"])
    assert [c[0] if c[0] in ("beside", "waited") else c[-1] for c in calls] == [
        str(root / "requirements.lock"), "beside", ".", "waited"]
    assert calls[1] == ["beside", "warm"]
    calls.clear()
    tasks.install("test", beside_build=["warm"])  # nothing changed: no install, no warming
    assert calls == []


def test_beside_waits_for_its_command_and_kills_one_past_its_deadline(tasks, tmp_path):
    done, late = tmp_path / "done", tmp_path / "late"
    write_after = "import sys, time; time.sleep(float(sys.argv[1])); open(sys.argv[2], 'w')"
    with tasks.beside([sys.executable, "-c", write_after, "0.2", str(done)]):
        pass
    assert done.exists()  # waited for
    with tasks.beside([sys.executable, "-c", write_after, "30", str(late)], deadline_s=0.5):
        pass
    assert not late.exists()  # killed at its deadline, not waited out
