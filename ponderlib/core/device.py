"""Choosing the device every tensor and model in the book lives on.

CUDA when present, else CPU. The environment variable ``PONDERLIB_DEVICE`` (for example ``cpu``,
``cuda`` or ``cuda:1``) overrides the automatic choice, so a chapter can be forced onto the CPU on a
GPU machine without editing it.
"""

from __future__ import annotations

import os

import torch

ENV_VAR = "PONDERLIB_DEVICE"

SUPPORTED = ("cpu", "cuda")
"""The device types the book's models are tested on (``meta`` holds no data; ``mps`` is untested)."""


def get_device(device: str | torch.device | None = None) -> torch.device:
    """Return the device to use.

    Order of precedence: the ``device`` argument, then ``$PONDERLIB_DEVICE``, then CUDA if
    available, else CPU. Asking for CUDA on a machine without it raises ``ValueError``.
    """
    name = "device"
    if device is None:
        name = ENV_VAR if os.environ.get(ENV_VAR) else "device"
        device = os.environ.get(ENV_VAR) or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"{name} must name a torch device such as 'cpu' or 'cuda', got {str(device)[:40]!r}") from exc
    if resolved.type not in SUPPORTED:
        raise ValueError(f"{name} must be a CPU or CUDA device ('cpu', 'cuda', 'cuda:1'), got {str(resolved)!r}")
    if resolved.type == "cpu" and resolved.index is not None:
        raise ValueError(f"{name} must be 'cpu' without an index (torch has one CPU device), got {str(resolved)!r}")
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name}={str(resolved)!r} was requested but CUDA is not available; use 'cpu'")
    if resolved.type == "cuda" and resolved.index is not None and resolved.index >= torch.cuda.device_count():
        raise ValueError(f"{name}={str(resolved)!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return resolved
