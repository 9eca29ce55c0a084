"""The chapters' set-up cell, run for real in a kernel that starts the way a Colab session does.

Colab's starting point, rebuilt in a temporary folder (once for the module):

- a new virtual environment whose own site-packages holds what Colab pins and has imported before
  the first cell runs: ipywidgets 7.7.1 (with its widgetsnbextension 3.6 and jupyterlab_widgets),
  IPython 7.34.0 and ipykernel 5.5.6 (google-colab requires ``ipython==7.34.0``,
  ``ipykernel==5.5.6``), plus a stand-in ``google.colab`` whose ``output.enable_custom_widget_manager``
  counts its calls;
- the rest of Colab's stack (torch, numpy, matplotlib, scipy, shapely, tqdm, ...) is this test run's
  own environment, seen through a ``.pth`` line that comes after the venv's site-packages, so the
  venv's ipywidgets 7 wins and nothing is downloaded again. The ``.pth`` names a folder of symbolic
  links to this environment's site-packages, minus ponderlib (installed editable here) and the
  packages the venv holds itself, so pip sees one version of each;
- GitHub, which the cell installs from, is a local git repository made from this working tree
  (tracked and untracked-not-ignored files), tagged ``v<ponderlib.__version__>``; git reaches it
  through ``url.<file URL>.insteadOf=<repository URL>``, set in the kernel's environment
  (GIT_CONFIG_COUNT/KEY/VALUE), so the cell's ``%pip install git+<URL>@v<version>`` is untouched.

Each test starts a real kernel (jupyter_client) in that venv, from a clean environment (no PYTHONPATH,
no PONDERLIB_PROGRESS), imports ipywidgets and google.colab as Colab has, runs book/_setup_cell.ipy,
then uses ponderlib there. Needs git and the package index (pip builds ponderlib with setuptools);
without them the tests fail, saying so.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from dataclasses import dataclass

import pytest
import yaml
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

import ponderlib
from ponderlib.sweep import PRESETS

pytestmark = pytest.mark.slow  # builds a venv and starts a real kernel: `make test` runs it, `make test-fast` does not

ROOT = pathlib.Path(__file__).resolve().parents[1]
CELL = ROOT / "book" / "_setup_cell.ipy"
REPOSITORY_URL = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
TAG = f"v{ponderlib.__version__}"

# What a Colab session has before its first cell (google-colab pins IPython and ipykernel).
COLAB_PACKAGES = ["ipywidgets==7.7.1", "ipython==7.34.0", "ipykernel==5.5.6"]
# Left out of the folder the .pth line shows: ponderlib (Colab has none) and what the venv holds itself.
HIDDEN = {"ponderlib", "ipywidgets", "widgetsnbextension", "jupyterlab_widgets", "ipython", "ipykernel",
          "ipykernel_launcher"}
RESTART = "Restart the runtime (Runtime > Restart session)"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

FAKE_COLAB_OUTPUT = '''"""Stand-in for Colab's google.colab.output: counts the calls that enable the widget manager."""

custom_widget_manager_enabled = 0


def enable_custom_widget_manager():
    global custom_widget_manager_enabled
    custom_widget_manager_enabled += 1
'''


def _clean_environment() -> dict:
    """This process's environment less what would leak this test run into the Colab venv or into
    git (PYTHONPATH, VIRTUAL_ENV, PONDERLIB_PROGRESS that conftest sets, GIT_DIR and the like)."""
    dropped = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PONDERLIB_PROGRESS"}
    return {name: value for name, value in os.environ.items() if name not in dropped and not name.startswith("GIT_")}


def _run(*command, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, env=env or _clean_environment())
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def _distribution_name(entry: str) -> str:
    """``ipywidgets-8.1.9.dist-info`` -> ``ipywidgets``; ``IPython`` -> ``ipython``."""
    name = entry.removesuffix(".py")
    return re.split(r"-|\.(?:dist|egg)-info$", name)[0].lower().replace("-", "_")


def _make_venv(folder: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """The Colab venv: its python and its own site-packages."""
    venv = folder / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    site = pathlib.Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())

    here = pathlib.Path(sysconfig.get_paths()["purelib"])
    shown = folder / "this-environment"
    shown.mkdir()
    for entry in here.iterdir():
        if entry.suffix == ".pth" or entry.name.startswith("__") or _distribution_name(entry.name) in HIDDEN:
            continue
        (shown / entry.name).symlink_to(entry)
    # Processed after the venv's own site-packages is on sys.path, so this folder comes after it.
    (site / "zz-colab-stack.pth").write_text(f"{shown}\n", encoding="utf-8")

    _run(python, "-m", "pip", "install", "--quiet", *COLAB_PACKAGES)
    colab = site / "google" / "colab"  # a namespace package "google", as in Colab (and protobuf's)
    colab.mkdir(parents=True)
    (colab / "__init__.py").write_text('"""Stand-in for Colab\'s google.colab."""\n', encoding="utf-8")
    (colab / "output.py").write_text(FAKE_COLAB_OUTPUT, encoding="utf-8")

    listed = {package["name"].lower(): package["version"] for package in json.loads(
        _run(python, "-m", "pip", "list", "--format=json").stdout)}
    seen = {name: listed.get(name) for name in ("torch", "numpy", "matplotlib", "scipy", "shapely", "tqdm")}
    if None in seen.values():
        pytest.fail(f"pip in the Colab venv does not see this environment's packages through the .pth line: {seen}")
    assert listed["ipywidgets"].startswith("7.7."), listed["ipywidgets"]
    assert "ponderlib" not in listed, "the Colab venv must start without ponderlib"
    return python, site


def _make_origin(folder: pathlib.Path) -> tuple[pathlib.Path, str]:
    """A git repository of this working tree, tagged as the publishing workflow tags a release;
    returns it and the tagged commit."""
    origin = folder / "origin"
    files = _run("git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked files deleted in the working tree are left out
            (origin / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, origin / name)
    git = ["git", "-C", origin, "-c", "user.name=test", "-c", "user.email=test@example.org",
           "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"]
    _run(*git, "init", "--quiet")
    _run(*git, "add", "--all", "--force")
    _run(*git, "commit", "--quiet", "-m", "the working tree")
    _run(*git, "tag", TAG)
    return origin, _run(*git, "rev-parse", "HEAD").stdout.strip()


@dataclass
class Colab:
    python: pathlib.Path  # the Colab venv's interpreter
    site: pathlib.Path  # its own site-packages
    environment: dict  # the kernel's environment variables
    content: pathlib.Path  # the kernel's working folder
    commit: str  # the commit tagged TAG in the stand-in for GitHub


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.fail("git is needed: pip installs ponderlib from a git tag")
    git_version = tuple(map(int, re.findall(r"\d+", _run("git", "--version").stdout)[:2]))
    if git_version < (2, 31):
        pytest.fail(f"git >= 2.31 is needed (GIT_CONFIG_COUNT redirects the repository URL), got {git_version}")
    folder = tmp_path_factory.mktemp("colab")
    python, site = _make_venv(folder)
    origin, commit = _make_origin(folder)
    environment = _clean_environment()
    environment.update({
        "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{origin.as_uri()}.insteadOf",
        "GIT_CONFIG_VALUE_0": REPOSITORY_URL,
    })
    content = folder / "content"  # Colab's working folder is /content
    content.mkdir()
    yield Colab(python, site, environment, content, commit)
    shutil.rmtree(folder, ignore_errors=True)  # 120 MB, mostly the venv


class Kernel:
    """A kernel in the Colab venv; ``run`` executes one cell and gathers what it sent back."""

    def __init__(self, python: pathlib.Path, environment: dict, cwd: pathlib.Path):
        kernels = cwd.parent / "kernels"
        (kernels / "colab").mkdir(parents=True, exist_ok=True)
        spec = {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Colab", "language": "python"}
        (kernels / "colab" / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        self.manager = KernelManager(kernel_name="colab", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
        self.manager.start_kernel(env=environment, cwd=str(cwd))
        self.client = self.manager.client()
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=120)
        except RuntimeError:
            self.close()
            raise

    def run(self, code: str, timeout: float = 120) -> dict:
        messages = []
        reply = self.client.execute_interactive(code, output_hook=messages.append, timeout=timeout)
        out = {"stdout": "", "stderr": "", "displays": [], "models": []}
        for message in messages:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                out[content["name"]] += content["text"]
            elif kind == "display_data":
                out["displays"].append(content["data"])
            elif kind == "comm_open":
                out["models"].append(content["data"]["state"].get("_model_name"))
            elif kind == "error":
                pytest.fail(f"the cell failed:\n{code}\n" + "\n".join(content["traceback"]))
        assert reply["content"]["status"] == "ok", reply["content"]
        return out

    def json(self, code: str) -> dict:
        """Run ``code``, whose last line prints one JSON object; return that object."""
        return json.loads(self.run(code)["stdout"].splitlines()[-1])

    def close(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel(colab):
    """A fresh Colab session: ponderlib not installed, ipywidgets and google.colab imported."""
    _run(colab.python, "-m", "pip", "uninstall", "--quiet", "--yes", "ponderlib")  # left by an earlier test
    session = Kernel(colab.python, colab.environment, colab.content)
    yield session
    session.close()


def _start_as_colab(kernel: Kernel, *also_imported: str) -> dict:
    return kernel.json(textwrap.dedent(f"""\
        import ipywidgets  # Colab imports these before the first cell
        import google.colab
        {"; ".join(f"import {name}" for name in also_imported) or "pass"}
        import importlib.util, json, os, sys
        print(json.dumps({{"ipywidgets": ipywidgets.__version__,
                          "ponderlib": importlib.util.find_spec("ponderlib") is not None,
                          "progress_variable": os.environ.get("PONDERLIB_PROGRESS"),
                          "path": os.environ.get("PYTHONPATH")}}))
        """))


def _restart_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if RESTART in line]


def test_setup_cell_on_colab_installs_the_tag_and_everything_works(colab, kernel):
    start = _start_as_colab(kernel)
    assert start == {"ipywidgets": "7.7.1", "ponderlib": False, "progress_variable": None, "path": None}

    setup = kernel.run(CELL.read_text(encoding="utf-8"), timeout=300)
    assert _restart_lines(setup["stdout"] + setup["stderr"]) == [], setup
    reinstalled = [name for name in ("torch", "numpy", "matplotlib", "scipy") if (colab.site / name).exists()]
    assert reinstalled == [], "pip must keep the packages Colab has"

    after = kernel.json(textwrap.dedent("""\
        import importlib.metadata, json, ipywidgets, ponderlib
        from google.colab import output
        from ponderlib.sweep.evidence import Evidence, evidence_folder
        print(json.dumps({"file": ponderlib.__file__, "version": ponderlib.__version__,
                          "evidence": str(evidence_folder()), "runs": len(Evidence.load("ut-chains-live").records),
                          "direct_url": json.loads(importlib.metadata.distribution("ponderlib").read_text("direct_url.json")),
                          "ipywidgets": ipywidgets.__version__,
                          "widget_manager": output.custom_widget_manager_enabled}))
        """))
    assert pathlib.Path(after["file"]).is_relative_to(colab.python.parents[1]), after["file"]
    assert not pathlib.Path(after["file"]).resolve().is_relative_to(ROOT), after["file"]
    assert after["version"] == ponderlib.__version__
    # The committed evidence comes with the install, so the chapters read it on Colab too.
    assert pathlib.Path(after["evidence"]).is_relative_to(colab.python.parents[1]), after["evidence"]
    assert after["runs"] == PRESETS["ut-chains-live"].runs
    assert after["direct_url"]["url"] == REPOSITORY_URL
    assert after["direct_url"]["vcs_info"]["requested_revision"] == TAG
    assert after["direct_url"]["vcs_info"]["commit_id"] == colab.commit, "not the local stand-in for GitHub"
    assert after["ipywidgets"] == "7.7.1", "installing ponderlib must not replace Colab's ipywidgets"
    assert after["widget_manager"] == 1

    switcher = kernel.run(textwrap.dedent("""\
        import matplotlib.pyplot as plt
        from ponderlib.figures.widgets import figure_switcher

        figures = {}
        for label in ["0.01", "0.1"]:
            figure, axes = plt.subplots(figsize=(2, 1.5))
            axes.set_title(f"tau = {label}")
            figures[label] = figure
        switcher = figure_switcher(figures, "tau")
        display(switcher)
        chooser, image = switcher.children
        first = image.value
        chooser.index = 1
        print(type(image).__name__, first != image.value)
        """))
    assert len([display for display in switcher["displays"] if WIDGET_VIEW in display]) == 1, switcher
    assert {"VBoxModel", "SelectionSliderModel", "ImageModel"} <= set(switcher["models"]), switcher["models"]
    assert "StackModel" not in switcher["models"], "ipywidgets 7 has no Stack"
    assert switcher["stdout"].split() == ["Image", "True"], "moving the slider must swap the image"

    # The explorables are anywidget widgets, which run on Colab's ipywidgets 7; the installed ponderlib
    # carries their JavaScript (package data), read when the class is defined.
    explorable = kernel.run(textwrap.dedent("""\
        from ponderlib.figures.explorables import ACTExplorable

        explorable = ACTExplorable([0.995, 0.5], eps=0.01)
        display(explorable)
        print(explorable.halting().ponder_steps.item(), "export default { render }" in explorable._esm)
        """))
    assert "AnyModel" in explorable["models"], explorable["models"]
    assert any(WIDGET_VIEW in display for display in explorable["displays"]), explorable
    assert explorable["stdout"].split() == ["1", "True"], explorable

    training = kernel.run(textwrap.dedent("""\
        from ponderlib.tasks.parity import train_parity

        result = train_parity(method="act", n_elems=4, hidden=8, batch_size=32, max_updates=20, eval_every=10,
                              eval_size=64, difficulty_eval_size=16, target_accuracy=None)
        """), timeout=180)
    assert "FloatProgressModel" in training["models"], (
        f"a training call must show a tqdm.auto progress bar (a widget in a kernel): {training}"
    )
    assert any(WIDGET_VIEW in display for display in training["displays"]), training


@pytest.fixture
def old_tqdm(colab):
    """A tqdm older than ponderlib's tqdm>=4.66 in the Colab venv, so that pip upgrades it."""
    _run(colab.python, "-m", "pip", "install", "--quiet", "tqdm==4.65.0")


def test_setup_cell_asks_for_a_restart_when_pip_replaces_an_imported_package(old_tqdm, kernel):
    # This session has imported the old tqdm before the set-up cell runs.
    assert _start_as_colab(kernel, "tqdm")["ponderlib"] is False

    setup = kernel.run(CELL.read_text(encoding="utf-8"), timeout=300)
    installed = kernel.json("import importlib.metadata, json; print(json.dumps(importlib.metadata.version('tqdm')))")
    assert installed != "4.65.0"
    assert _restart_lines(setup["stdout"] + setup["stderr"]) == [
        f"{RESTART}, then run this cell again: this session still runs tqdm 4.65.0 (pip just installed {installed})."
    ], setup
