"""Small numerical helpers the engine, the tasks and the layers above share: a mean, correlations, a
least-squares slope and rounding for JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean of ``values`` (at least one number), summed in their order: over seeds, say.

    >>> mean([1.0, 2.0, 6.0])
    3.0
    """
    return sum(values) / len(values)


def pearson_correlation(x: torch.Tensor, y: torch.Tensor) -> float:
    """Pearson's ``r`` between two 1-d tensors of equal length; NaN when either is constant."""
    if x.dim() != 1 or x.shape != y.shape or x.shape[0] < 2:
        raise ValueError(f"x and y must be 1-d of the same length >= 2, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    x, y = x.double() - x.double().mean(), y.double() - y.double().mean()
    denominator = (x.square().sum() * y.square().sum()).sqrt()
    return float("nan") if denominator == 0 else (x * y).sum().div(denominator).item()


def within_group_correlation(x: torch.Tensor, y: torch.Tensor, groups: torch.Tensor) -> float:
    """Pearson's ``r`` between ``x`` and ``y`` after removing each group's mean from both.

    The partial correlation of ``x`` and ``y`` given a categorical variable ``groups`` (for example a
    position in a sequence): only the variation *within* each group counts, so a correlation that
    comes from both depending on the group vanishes. Groups of one element contribute nothing. NaN
    when nothing varies within any group.

    Args:
        x, y: 1-d tensors of one length ``n >= 2``.
        groups: 1-d integer tensor of length ``n``, the group of each element (any non-negative ids).
    """
    if groups.dim() != 1 or groups.shape != x.shape or groups.dtype.is_floating_point or groups.dtype == torch.bool:
        raise ValueError(f"groups must be a 1-d integer tensor shaped like x {tuple(x.shape)}, got {groups.dtype} {tuple(groups.shape)}")
    if bool((groups < 0).any()):
        raise ValueError("groups must be non-negative group ids")
    size = int(groups.max()) + 1 if groups.numel() else 0
    counts = torch.zeros(size, dtype=torch.float64, device=x.device).index_add_(0, groups, torch.ones_like(x, dtype=torch.float64))

    def centred(v: torch.Tensor) -> torch.Tensor:
        sums = torch.zeros(size, dtype=torch.float64, device=v.device).index_add_(0, groups, v.double())
        return v.double() - (sums / counts.clamp(min=1))[groups]

    return pearson_correlation(centred(x), centred(y))


def least_squares_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """The slope of the least-squares line of ``y`` on ``x``: ``cov(x, y) / var(x)``.

    Raises:
        ValueError: ``x`` and ``y`` differ in length, or ``x`` holds fewer than two distinct values.
    """
    if len(x) != len(y) or len(set(x)) < 2:
        raise ValueError(
            f"x and y must have the same length and x at least two distinct values, got lengths {len(x)} and {len(y)}"
        )
    mean_x, mean_y = mean(x), mean(y)
    return sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y)) / sum((a - mean_x) ** 2 for a in x)


def round_or_none(value: float | None) -> float | None:
    """``value`` to 4 decimals for a JSON summary; None (and NaN) as None."""
    return None if value is None or math.isnan(value) else round(value, 4)
