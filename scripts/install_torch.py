"""Install the torch build the book pins, the right one for this machine: CPU or CUDA.

``pip install torch==2.13.0`` from the package index gives, on Linux, the CUDA build: several GB of
CUDA libraries for a machine that has no NVIDIA GPU. So:

- with an NVIDIA GPU (``nvidia-smi -L`` lists one): ``torch==VERSION`` from the package index, which
  is the CUDA build on Linux;
- without one, on Linux: the CPU build ``torch==VERSION+cpu`` from PyTorch's CPU wheel index, when
  that index answers within a few seconds;
- otherwise (macOS and Windows, whose index wheels are CPU builds, or an offline machine whose pip
  already has a CPU wheel through ``--find-links`` or a mirror): ``torch==VERSION`` from what pip
  can reach.

Nothing is installed when the right build is already there. Usage, from the Makefile:
``python scripts/install_torch.py [--version 2.13.0] [--dry-run]``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

VERSION = "2.13.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def has_nvidia_gpu() -> bool:
    """Whether ``nvidia-smi -L`` runs and lists at least one GPU."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


def index_reachable(index: str = CPU_INDEX, timeout: float = 5.0) -> bool:
    """Whether the wheel index answers for torch's page within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(f"{index.rstrip('/')}/torch/", timeout=timeout) as response:
            return response.status == 200
    except (OSError, ValueError, urllib.error.URLError):
        return False


def installed_torch() -> str | None:
    """The installed torch's version string (e.g. ``2.13.0+cpu``), or None."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def choose(version: str, platform: str, gpu: bool, cpu_index_reachable: bool) -> tuple[list[str], str]:
    """The pip arguments that install torch ``version`` here, and the reason, in one line."""
    if gpu:
        return [f"torch=={version}"], "an NVIDIA GPU is present: the CUDA build from the package index"
    if not platform.startswith("linux"):
        return [f"torch=={version}"], f"no NVIDIA GPU on {platform}: the package index's build is the CPU one"
    if cpu_index_reachable:
        return ([f"torch=={version}+cpu", "--extra-index-url", CPU_INDEX],
                f"no NVIDIA GPU: the CPU build from {CPU_INDEX}")
    return ([f"torch=={version}"],
            f"no NVIDIA GPU and {CPU_INDEX} cannot be reached: torch=={version} from what pip can reach "
            "(a CPU wheel where one is provided, e.g. through --find-links)")


def already_right(installed: str | None, version: str, gpu: bool) -> bool:
    """Whether the installed torch is ``version`` in the build this machine needs."""
    if installed is None or installed.split("+")[0] != version:
        return False
    return gpu != installed.endswith("+cpu") or not sys.platform.startswith("linux")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=VERSION, help=f"torch release (default {VERSION})")
    parser.add_argument("--dry-run", action="store_true", help="print the pip command, install nothing")
    args = parser.parse_args(argv)
    gpu = has_nvidia_gpu()
    installed = installed_torch()
    if already_right(installed, args.version, gpu):
        print(f"install_torch: torch {installed} is already installed")
        return 0
    reachable = not gpu and sys.platform.startswith("linux") and index_reachable()
    pip_arguments, reason = choose(args.version, sys.platform, gpu, reachable)
    command = [sys.executable, "-m", "pip", "install", *pip_arguments]
    print(f"install_torch: {reason}\n  {' '.join(command)}")
    if args.dry_run:
        return 0
    subprocess.run(command, check=True)
    installed = installed_torch()
    print(f"install_torch: installed torch {installed}")
    if not gpu and sys.platform.startswith("linux") and installed and not installed.endswith("+cpu"):
        print("install_torch: warning: this is the CUDA build on a machine without an NVIDIA GPU; it works "
              f"on the CPU but is large. Reach {CPU_INDEX} (or give pip a CPU wheel) for the CPU build.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
