"""Choosing the device every tensor and model in the book lives on.

CUDA when present, else CPU. The environment variable ``PONDERLIB_DEVICE`` (for example ``cpu``,
``cuda`` or ``cuda:1``) overrides the automatic choice, so a chapter can be forced onto the CPU on a
GPU machine without editing it.
"""

from __future__ import annotations

import os

import torch

ENV_VAR = "PONDERLIB_DEVICE"


def get_device(device: str | torch.device | None = None) -> torch.device:
    """Return the device to use.

    Order of precedence: the ``device`` argument, then ``$PONDERLIB_DEVICE``, then CUDA if
    available, else CPU. Asking for CUDA on a machine without it raises ``ValueError``.
    """
    if device is None:
        device = os.environ.get(ENV_VAR) or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"device must name a torch device such as 'cpu' or 'cuda', got {device!r}") from exc
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={str(resolved)!r} was requested but CUDA is not available; use 'cpu'")
    return resolved
