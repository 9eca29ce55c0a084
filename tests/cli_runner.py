"""``python -m ponderlib`` run as a user runs it: a fresh process, this checkout on its path, the CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m ponderlib ARGS`` from this checkout; its exit status, stdout and stderr (text)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu"}
    return subprocess.run(
        [sys.executable, "-m", "ponderlib", *args], capture_output=True, text=True, env=env, timeout=timeout
    )
