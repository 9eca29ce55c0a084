"""Where and from what a run ran, recorded beside its numbers: runs are not bit-reproducible across
CPUs (matrix products round differently from one processor to another, and thousands of training
updates amplify the difference), so a number without its machine is half a fact.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import torch

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the ``ponderlib`` package: a git checkout when the book's repository is."""


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def device_name(device: torch.device) -> str:
    """The GPU's name for a CUDA device, else the CPU's model name."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return cpu_model()


def source_revision(root: Path = PACKAGE_ROOT) -> dict:
    """The git commit the library was loaded from and whether its files differ from that commit
    (``None`` for both outside a git checkout, or without git)."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return {"git_commit": None, "git_dirty": None}
    status = git("status", "--porcelain", "--untracked-files=no", "--", "ponderlib")
    return {"git_commit": commit.strip(), "git_dirty": None if status is None else bool(status.strip())}
