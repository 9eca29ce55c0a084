"""What gets installed where: ranges for `pip install ponderlib`, a lock for the book, the runtime on Binder,
the CPU or CUDA torch for the machine (scripts/install_torch.py)."""

from __future__ import annotations

import functools
import http.server
import importlib.metadata
import importlib.util
import pathlib
import re
import socket
import threading

import pytest
import tomllib
from packaging.requirements import Requirement

ROOT = pathlib.Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")

spec = importlib.util.spec_from_file_location("install_torch", ROOT / "scripts" / "install_torch.py")
install_torch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(install_torch)


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lines(path: pathlib.Path) -> list[str]:
    """Requirement lines of ``path`` (comments and blank lines dropped), following ``-r`` includes."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            lines += _lines((path.parent / line[3:].strip()).resolve())
        elif line:
            lines.append(line)
    return lines


def _pins(path: pathlib.Path) -> dict[str, str]:
    return {_name(m.group(1)): m.group(2) for line in _lines(path) if (m := PIN.match(line))}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_pip_install_ponderlib_keeps_ranges():
    for requirement in map(Requirement, _project()["dependencies"]):
        assert not any(s.operator in ("==", "===") for s in requirement.specifier), (
            f"pyproject.toml pins {requirement}: `pip install ponderlib` must keep ranges"
        )


@pytest.mark.parametrize("lock", ["runtime.txt", "build.txt"])
def test_locks_pin_every_package_exactly(lock):
    lines = [line for line in _lines(REQUIREMENTS / lock) if not line.startswith("-")]
    assert lines, f"{lock} is empty"
    loose = [line for line in lines if not PIN.match(line)]
    assert not loose, f"{lock} has requirements without an exact version: {loose}"


def test_locks_hold_their_inputs_and_agree():
    runtime, build = _pins(REQUIREMENTS / "runtime.txt"), _pins(REQUIREMENTS / "build.txt")
    for requirement in map(Requirement, _project()["dependencies"]):
        if requirement.name == "torch":
            continue
        assert requirement.specifier.contains(runtime[_name(requirement.name)]), requirement
    for line in _lines(REQUIREMENTS / "build.in"):
        if not line.startswith("-"):
            requirement = Requirement(line)
            assert requirement.specifier.contains(build[_name(requirement.name)]), requirement
    assert {k: v for k, v in build.items() if k in runtime} == {k: runtime[k] for k in build if k in runtime}


def test_torch_is_left_to_the_install_script_and_no_cuda_library_is_locked():
    for lock in ("runtime.txt", "build.txt"):
        names = _pins(REQUIREMENTS / lock)
        assert "torch" not in names, f"{lock} pins torch: scripts/install_torch.py chooses its build"
        cuda = [name for name in names if name.startswith(("nvidia-", "cuda-")) or name == "triton"]
        assert not cuda, f"{lock} pins CUDA libraries {cuda}: it must be compiled against the CPU torch"


def test_binder_installs_the_cpu_torch_and_the_runtime_only():
    lines = _lines(ROOT / "binder" / "requirements.txt")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    assert f"torch=={install_torch.VERSION}+cpu" in lines
    binder = {_name(m.group(1)) for line in lines if (m := PIN.match(line))}
    build_only = {_name(Requirement(line).name) for line in _lines(REQUIREMENTS / "build.in") if not line.startswith("-")}
    build_only -= set(_pins(REQUIREMENTS / "runtime.txt"))
    assert build_only, "build.in names nothing beyond the runtime"
    assert not binder & build_only, f"Binder installs build/test packages {sorted(binder & build_only)}"
    assert binder - {"torch"} == set(_pins(REQUIREMENTS / "runtime.txt"))


def test_a_reader_installs_torch_the_runtime_and_ponderlib_only():
    """The top-level requirements.txt (the book's design: what a reader installs to run the chapters in
    their own Jupyter) is torch at the book's release, the runtime lock and ponderlib, nothing more."""
    raw = [line.split("#", 1)[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    assert [line for line in raw if line] == [f"torch=={install_torch.VERSION}", "-r requirements/runtime.txt", "-e ."]
    lines = _lines(ROOT / "requirements.txt")
    reader = {_name(m.group(1)) for line in lines if (m := PIN.match(line))}
    assert reader - {"torch"} == set(_pins(REQUIREMENTS / "runtime.txt"))
    build_only = {_name(Requirement(line).name) for line in _lines(REQUIREMENTS / "build.in") if not line.startswith("-")}
    assert not reader & (build_only - set(_pins(REQUIREMENTS / "runtime.txt")))


def test_this_environment_is_the_lock():
    """`make setup` installed exactly the locked versions (and the torch the script chose)."""
    locked = _pins(REQUIREMENTS / "runtime.txt") | _pins(REQUIREMENTS / "build.txt")
    wrong = {}
    for name, version in locked.items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[name] = (version, installed)
    assert not wrong, f"installed versions differ from the lock (locked, installed): {wrong}; run `make setup`"
    assert importlib.metadata.version("torch").split("+")[0] == install_torch.VERSION


@pytest.mark.parametrize(
    ("platform", "gpu", "reachable", "arguments"),
    [
        ("linux", False, True, ["torch==2.13.0+cpu", "--extra-index-url", "https://download.pytorch.org/whl/cpu"]),
        ("linux", False, False, ["torch==2.13.0"]),
        ("linux", True, True, ["torch==2.13.0"]),
        ("linux", True, False, ["torch==2.13.0"]),
        ("darwin", False, False, ["torch==2.13.0"]),
        ("win32", False, True, ["torch==2.13.0"]),
    ],
)
def test_install_torch_chooses_the_build_for_the_machine(platform, gpu, reachable, arguments):
    chosen, reason = install_torch.choose("2.13.0", platform, gpu, reachable)
    assert chosen == arguments
    assert ("CUDA" in reason) == gpu


@pytest.mark.parametrize(
    ("installed", "gpu", "right"),
    [("2.13.0+cpu", False, True), ("2.13.0", True, True), ("2.13.0+cpu", True, False),
     ("2.12.1+cpu", False, False), (None, False, False)],
)
def test_install_torch_keeps_the_right_build(monkeypatch, installed, gpu, right):
    monkeypatch.setattr(install_torch.sys, "platform", "linux")
    assert install_torch.already_right(installed, "2.13.0", gpu) is right


def _serve(folder: pathlib.Path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_install_torch_probes_the_index_for_real(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "index.html").write_text("<a href='torch-2.13.0+cpu.whl'>torch</a>")
    server = _serve(tmp_path)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        assert install_torch.index_reachable(url, timeout=5)
        assert not install_torch.index_reachable(url + "/missing", timeout=5)
    finally:
        server.shutdown()
    with socket.socket() as closed:  # a port nothing listens on once this socket is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert not install_torch.index_reachable(f"http://127.0.0.1:{port}", timeout=5)
    assert not install_torch.index_reachable("not a url")


def test_install_torch_dry_run_prints_the_command(capsys):
    assert install_torch.main(["--dry-run", "--version", "0.0.1"]) == 0
    out = capsys.readouterr().out
    assert "install_torch:" in out and "torch==0.0.1" in out
