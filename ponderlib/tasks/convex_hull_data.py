"""Convex hulls' data (Vinyals et al. 2015, sec. 4.2): point sets, their hulls in the paper's order, areas.

A sample is a set of ``n`` points ``P_1 .. P_n`` uniform in the unit square, ``n`` uniform in
``[min_points, max_points]``; a batch pads every set to the same width ``N`` and carries the
lengths and a validity mask. The answer is the hull's vertices as pointers into the input, in the
paper's order: counter-clockwise, starting from the vertex with the lowest index, followed by the
end pointer (index ``N``, the network's extra "end" position; see
:class:`ponderlib.mechanisms.pointer.PointerNetwork` with ``end_pointer=True``). Vinyals et al. close the
polygon by repeating the first vertex before the end; here the end pointer alone closes it, one
decoder step fewer and the same polygon.

The reference hulls come from SciPy (``scipy.spatial.ConvexHull``, Qhull), whose 2-D vertices are
counter-clockwise; this module only rotates them to start at the lowest index. Areas come from
shapely. Both are called once per sample (they take one point set at a time), in data generation
and evaluation only, never in the model.

Point sets a user gives (:func:`hull_order`, :func:`hull_batch_from_points`, :func:`polygon_area`)
may be arrays, tensors or nested lists of numbers (anything else: ``TypeError``). Degenerate ones
get a one-line ``ValueError`` naming the argument instead of Qhull's error: a coordinate that is
NaN or infinite, fewer than three distinct points, or points all on one line (no hull with an
area). A point given twice is valid and counts once: a hull corner is named by the lowest index of
the points at it, so the right sequence stays unique.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.spatial import ConvexHull, QhullError
from shapely.geometry import Polygon

from ponderlib.core.device import get_device
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    check_counts,
    check_int,
    ensure_tensor,
)

MIN_POINTS = 3
"""A hull needs three points that are not on one line."""



@dataclass
class HullBatch:
    """A padded batch of point sets and their hulls.

    Attributes:
        points: ``(B, N, 2)`` float32 coordinates in ``[0, 1)^2``; padded points are 0.
        lengths: ``(B,)`` int64, the number of points ``n`` of each set.
        mask: ``(B, N)`` bool, True at real points.
        targets: ``(B, N + 1)`` int64: the hull vertices (counter-clockwise from the lowest index),
            then ``N`` (the end pointer), then -1.
        hull_areas: ``(B,)`` float64 areas of the true hulls.
    """

    points: torch.Tensor
    lengths: torch.Tensor
    mask: torch.Tensor
    targets: torch.Tensor
    hull_areas: torch.Tensor



def as_points(name: str, points: object, dtype: type = np.float64) -> np.ndarray:
    """``points`` as an ``(n, 2)`` array of finite numbers of ``dtype``, or a one-line error naming ``name``:
    ``TypeError`` for anything that is not numbers, ``ValueError`` for another shape or a coordinate
    that is NaN or infinite (in ``dtype``: 1e39 is infinite in float32)."""
    refused = TypeError(f"{name} must be an array of numbers of shape (n, 2), got {type(points).__name__}")
    try:
        with np.errstate(over="ignore"):  # a float32 overflow becomes inf, refused below
            array = np.asarray(points, dtype=dtype)
    except (TypeError, ValueError):  # not numbers, or a ragged nesting
        raise refused from None
    if array.ndim == 0:  # a number, or None (which numpy reads as NaN)
        raise refused
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got {array.shape}")
    finite = np.isfinite(array).all(axis=1)  # (n,)
    if not finite.all():
        row = int(np.argmin(finite))
        where = "" if dtype == np.float64 else f" in {np.dtype(dtype).name} (|x| <= {np.finfo(dtype).max:.3g})"
        raise ValueError(f"{name} must be finite{where}, found {array[row].tolist()} at row {row}")
    return array



def hull_order(points: np.ndarray, name: str = "points") -> list[int]:
    """The hull vertices of ``points (n, 2)``, counter-clockwise from the lowest index.

    SciPy's 2-D ``ConvexHull.vertices`` are counter-clockwise; points on an edge (not corners) are
    not vertices. ``points`` may be any array-like of numbers (``TypeError`` otherwise). A point
    given more than once counts once: a corner is named by the lowest index of the points at it.
    Raises ``ValueError`` naming ``points`` (or ``name``, the argument the caller was given) when it
    is not of shape ``(n, 2)``, a coordinate is NaN or infinite, it holds fewer than three distinct
    points, or they all lie on one line (the hull would have no area).
    """
    points = as_points(name, points)
    if points.shape[0] < MIN_POINTS:
        raise ValueError(f"{name} must have shape (n, 2) with n >= {MIN_POINTS}, got {points.shape}")
    exponent, duplicates = _extremes_and_duplicates(points[None], np.array([len(points)]))
    return _hull_order(name, points, int(exponent[0]), bool(duplicates[0]))



def _extremes_and_duplicates(points: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a padded batch ``points (B, N, 2)`` of ``lengths (B,)`` (padding zero), in one vectorised
    pass: the exponent ``e`` of each set's largest coordinate (``max |x| < 2**e``, for
    :func:`_hull_vertices`) and whether two of its points coincide, both ``(B,)``."""
    _, exponents = np.frexp(np.abs(points).max(axis=(1, 2)))  # (B,)
    x, y = points[..., 0], points[..., 1]  # (B, N) each
    same = (x[:, :, None] == x[:, None, :]) & (y[:, :, None] == y[:, None, :])  # (B, N, N)
    real = np.arange(points.shape[1]) < lengths[:, None]  # (B, N)
    same &= real[:, :, None] & real[:, None, :]
    return exponents, np.triu(same, 1).any(axis=(1, 2))  # a pair i < j of real points that coincide



def _hull_order(name: str, points: np.ndarray, exponent: int, duplicates: bool) -> list[int]:
    """:func:`hull_order` of finite ``points (n, 2)``, ``n >= 3``, without the checks of its argument;
    ``exponent`` and ``duplicates`` from :func:`_extremes_and_duplicates`."""
    vertices = _hull_vertices(name, points, exponent)  # counter-clockwise
    if duplicates:  # the lowest index of the points that coincide with each vertex
        vertices = (points[vertices][:, None, :] == points[None, :, :]).all(axis=2).argmax(axis=1)
    vertices = vertices.tolist()
    first = vertices.index(min(vertices))
    return vertices[first:] + vertices[:first]



def _hull_vertices(name: str, points: np.ndarray, exponent: int) -> np.ndarray:
    """Qhull's counter-clockwise vertices of finite ``points (n, 2)`` whose largest coordinate is below
    ``2**exponent``, its errors turned into a one-line ``ValueError`` naming ``name``.

    Qhull computes areas in float64, and with coordinates beyond about ``2**±200`` those overflow or
    underflow (it then fails, or orders a triangle clockwise, without a word). Such points are first
    scaled by a power of two into ``[-1, 1]``: exactly, so the hull is the same. Other point sets go
    to Qhull as they are.
    """
    if abs(exponent) > _QHULL_EXPONENT:
        points = np.ldexp(points, -exponent)
    try:
        return ConvexHull(points).vertices
    except QhullError:
        pass
    distinct = len(np.unique(points, axis=0))
    if distinct < MIN_POINTS:
        raise ValueError(f"{name} must hold at least {MIN_POINTS} distinct points, got {distinct}")
    raise ValueError(f"{name} must not all lie on one line, nor within rounding of one (their hull would have no area)")



_QHULL_EXPONENT = 200
"""Coordinates up to ``2**200`` (about 1e60) in absolute value, and down to ``2**-200``, go to Qhull as
they are; others are scaled first (:func:`_hull_vertices`)."""



def polygon_area(points: np.ndarray) -> float | None:
    """Area of the polygon with vertices ``points (k, 2)`` in order, or None when it is not a valid
    polygon: fewer than 3 vertices, no area (all on one line), or self-intersecting, by shapely's
    ``is_valid``. ``points`` may be any array-like of numbers; ``TypeError`` for anything else,
    ``ValueError`` naming ``points`` for another shape or a coordinate that is NaN or infinite."""
    points = as_points("points", points)
    if len(points) < MIN_POINTS:
        return None
    polygon = Polygon(points)
    return polygon.area if polygon.is_valid and polygon.area > 0 else None



def hull_batch_from_points(point_sets: list[np.ndarray], device: torch.device | str | None = None,
                           pad_to: int | None = None) -> HullBatch:
    """A :class:`HullBatch` from explicit point sets, each ``(n, 2)``, padded to ``pad_to`` (default:
    the largest ``n``).

    ``point_sets``: a sequence of array-likes of numbers (a list of arrays, an array ``(B, n, 2)``).
    The batch holds float32 coordinates, and the targets and areas are those of the points as
    stored. Each set is checked as :func:`hull_order` checks ``points`` (finite in float32, at least
    three distinct points, not all on one line), the error naming ``point_sets[i]``.
    """
    if isinstance(point_sets, (str, bytes)) or not hasattr(point_sets, "__len__"):
        raise TypeError(f"point_sets must be a sequence of (n, 2) point sets, got {type(point_sets).__name__}")
    if len(point_sets) == 0:
        raise ValueError("point_sets must hold at least one point set, got none")
    point_sets = [as_points(f"point_sets[{row}]", p, np.float32) for row, p in enumerate(point_sets)]
    for row, point_set in enumerate(point_sets):
        if len(point_set) < MIN_POINTS:
            raise ValueError(f"point_sets[{row}] must have shape (n, 2) with n >= {MIN_POINTS}, got {point_set.shape}")
    width = max(len(p) for p in point_sets) if pad_to is None else pad_to
    check_int("pad_to", width, minimum=max(len(p) for p in point_sets), maximum=MAX_LENGTH)
    return _hull_batch(point_sets, device, width)



def _hull_batch(point_sets: list[np.ndarray], device: torch.device | str | None, width: int) -> HullBatch:
    """:func:`hull_batch_from_points` of float32 point sets already checked (finite, ``n >= 3``, at most
    ``width`` points), for the training loop's batches."""
    device = get_device(device)
    points = np.zeros((len(point_sets), width, 2), dtype=np.float32)
    for row, point_set in enumerate(point_sets):
        points[row, : len(point_set)] = point_set
    sizes = np.array([len(p) for p in point_sets])
    exponents, duplicates = _extremes_and_duplicates(points, sizes)  # (B,) each
    targets = np.full((len(point_sets), width + 1), -1, dtype=np.int64)
    areas = np.zeros(len(point_sets))
    for row, point_set in enumerate(point_sets):
        point_set = point_set.astype(np.float64)
        order = _hull_order(f"point_sets[{row}]", point_set, int(exponents[row]), bool(duplicates[row]))
        targets[row, : len(order) + 1] = order + [width]
        areas[row] = Polygon(point_set[order]).area
    lengths = torch.from_numpy(sizes).to(device)
    return HullBatch(
        points=torch.from_numpy(points).to(device),
        lengths=lengths,
        mask=torch.arange(width, device=device) < lengths.unsqueeze(1),
        targets=torch.from_numpy(targets).to(device),
        hull_areas=torch.from_numpy(areas).to(device),
    )



def hull_batch(
    batch_size: int,
    min_points: int = 5,
    max_points: int = 10,
    *,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    pad_to: int | None = None,
    check: bool = True,
) -> HullBatch:
    """Draw ``batch_size`` point sets uniform in the unit square, with their hulls.

    Args:
        batch_size: number of sets, ``>= 1``.
        min_points, max_points: set sizes are uniform in ``[min_points, max_points]``,
            ``3 <= min_points <= max_points``.
        generator: a ``torch.Generator``, for reproducible data (drawn on its device).
        device: where the tensors go (default: the generator's device, else the default device).
        pad_to: pad to this width instead of ``max_points``.
        check: False skips the checks, for a training loop whose config was validated once.
    """
    if check:
        check_counts(MAX_BATCH, batch_size=batch_size)
        check_point_counts(min_points, max_points)
        if pad_to is not None:
            check_int("pad_to", pad_to, minimum=max_points, maximum=MAX_LENGTH)
    device = generator.device if generator is not None else get_device(device)
    lengths = torch.randint(min_points, max_points + 1, (batch_size,), generator=generator, device=device)
    coordinates = torch.rand(batch_size, max_points, 2, generator=generator, device=device).cpu().numpy()
    point_sets = [coordinates[row, :n] for row, n in enumerate(lengths.tolist())]
    return _hull_batch(point_sets, device, max_points if pad_to is None else pad_to)



def check_point_counts(min_points: int, max_points: int) -> None:
    """Raise unless ``3 <= min_points <= max_points <= MAX_LENGTH``
    (:data:`~ponderlib.core.validation.MAX_LENGTH`)."""
    check_int("min_points", min_points, minimum=MIN_POINTS, maximum=MAX_LENGTH)
    check_int("max_points", max_points, minimum=min_points, maximum=MAX_LENGTH)



def next_vertex(targets: torch.Tensor, available: torch.Tensor) -> torch.Tensor:
    """The right next pointer: the first entry of ``targets`` (vertices, then the end) still
    available; the teacher of :class:`~ponderlib.mechanisms.pointer.PointerNetwork` and the loss's target.

    Shapes: ``targets (..., N + 1)`` with -1 padding, ``available (..., N + 1)`` bool -> ``(...)``
    int64; 0 where nothing is available (a finished sample).
    """
    ensure_tensor("targets", targets)
    ensure_tensor("available", available)
    open_target = available.gather(-1, targets.clamp(min=0)) & (targets >= 0)  # (..., N + 1)
    first = open_target.int().argmax(dim=-1, keepdim=True)  # (..., 1)
    return torch.where(open_target.any(dim=-1), targets.gather(-1, first).squeeze(-1), 0)
