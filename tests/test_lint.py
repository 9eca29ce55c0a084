"""The code passes the project's linter (pyproject.toml's [tool.ruff]), the chapters' code cells included, so style is
checked, not hoped for."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it is in requirements/build.txt)")
    done = subprocess.run([ruff, "check", "ponderlib", "tests", "benchmarks", "scripts", "conftest.py", "book"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
