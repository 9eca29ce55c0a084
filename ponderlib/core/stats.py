"""Small numerical helpers the engine and the tasks share: a correlation and rounding for JSON."""

from __future__ import annotations

import math

import torch


def pearson_correlation(x: torch.Tensor, y: torch.Tensor) -> float:
    """Pearson's ``r`` between two 1-d tensors of equal length; NaN when either is constant."""
    if x.dim() != 1 or x.shape != y.shape or x.shape[0] < 2:
        raise ValueError(f"x and y must be 1-d of the same length >= 2, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    x, y = x.double() - x.double().mean(), y.double() - y.double().mean()
    denominator = (x.square().sum() * y.square().sum()).sqrt()
    return float("nan") if denominator == 0 else (x * y).sum().div(denominator).item()


def round_or_none(value: float | None) -> float | None:
    """``value`` to 4 decimals for a JSON summary; None (and NaN) as None."""
    return None if value is None or math.isnan(value) else round(value, 4)
