"""The planar convex hull task for pointer networks (Vinyals et al. 2015, sec. 4.2 and Table 1).

A sample is a set of ``n`` points ``P_1 .. P_n`` uniform in the unit square, ``n`` uniform in
``[min_points, max_points]``; a batch pads every set to the same width ``N`` and carries the
lengths and a validity mask. The answer is the hull's vertices as pointers into the input, in the
paper's order: counter-clockwise, starting from the vertex with the lowest index, followed by the
end pointer (index ``N``, the network's extra "end" position; see
:class:`ponderlib.mechanisms.pointer.PointerNetwork` with ``end_pointer=True``). Vinyals et al. close the
polygon by repeating the first vertex before the end; here the end pointer alone closes it, one
decoder step fewer and the same polygon.

The reference hulls come from SciPy (``scipy.spatial.ConvexHull``, Qhull), whose 2-D vertices are
counter-clockwise; this module only rotates them to start at the lowest index. Polygon validity
and areas for the metrics come from shapely. Both are called once per sample (they take one point
set at a time), in data generation and evaluation only, never in the model.

Point sets a user gives (:func:`hull_order`, :func:`hull_batch_from_points`, :func:`polygon_area`)
may be arrays, tensors or nested lists of numbers (anything else: ``TypeError``). Degenerate ones
get a one-line ``ValueError`` naming the argument instead of Qhull's error: a coordinate that is
NaN or infinite, fewer than three distinct points, or points all on one line (no hull with an
area). A point given twice is valid and counts once: a hull corner is named by the lowest index of
the points at it, so the right sequence stays unique.

Metrics (the paper's Table 1): **accuracy**, the fraction of outputs whose sequence equals the
target exactly (the convention above makes the right sequence unique: a rotation or the clockwise
order counts as wrong); **polygon accuracy**, the fraction that name the same polygon (the hull's
vertices in counter-clockwise order from any starting vertex: a rotation counts as right, the
clockwise order does not), a measure the book adds to the paper's; and **area coverage**,
the area of the output polygon over the true hull's area, averaged over the outputs that are valid
polygons (at least 3 vertices, no self-intersection); the fraction of invalid outputs is reported
beside it (the paper writes FAIL where outputs are not polygons). After training the outputs may
come from a beam search (``beam_width``) instead of greedy decoding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from scipy.spatial import ConvexHull, QhullError
from shapely.geometry import Polygon
from torch import nn

from ponderlib.core.config import DecayingLRConfig, default, option
from ponderlib.core.device import get_device
from ponderlib.core.engine import TrainResult, evaluating, fit, start_run
from ponderlib.core.seeds import stream_generator
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    MAX_WIDTH,
    check_counts,
    check_int,
    ensure_same_device,
    ensure_tensor,
    ensure_type,
)
from ponderlib.mechanisms.pointer import (
    MAX_BEAM_WIDTH,
    DecoderOutput,
    PointerNetwork,
    beam_search,
    check_decoding_sizes,
    check_pointers,
    greedy_decode,
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


@dataclass
class HullMetrics:
    """Table 1's metrics on a set of outputs: exact-sequence accuracy, mean area coverage of the
    valid outputs, the fraction of outputs that are not valid polygons, and polygon accuracy (the
    fraction that name the hull's polygon from any starting vertex, :func:`same_polygon`)."""

    accuracy: float
    area_coverage: float
    invalid: float
    polygon_accuracy: float


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
) -> HullBatch:
    """Draw ``batch_size`` point sets uniform in the unit square, with their hulls.

    Args:
        batch_size: number of sets, ``>= 1``.
        min_points, max_points: set sizes are uniform in ``[min_points, max_points]``,
            ``3 <= min_points <= max_points``.
        generator: a ``torch.Generator``, for reproducible data (drawn on its device).
        device: where the tensors go (default: the generator's device, else the default device).
        pad_to: pad to this width instead of ``max_points``.
    """
    check_counts(MAX_BATCH, batch_size=batch_size)
    check_point_counts(min_points, max_points)
    if pad_to is not None:
        check_int("pad_to", pad_to, minimum=max_points, maximum=MAX_LENGTH)
    return _draw_hulls(batch_size, min_points, max_points, generator, device, pad_to)


def _draw_hulls(
    batch_size: int, min_points: int, max_points: int, generator: torch.Generator | None,
    device: torch.device | str | None = None, pad_to: int | None = None,
) -> HullBatch:
    """:func:`hull_batch` without its checks, for a training loop whose config was validated once."""
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


def hull_loss(output: DecoderOutput, targets: torch.Tensor) -> torch.Tensor:
    """Mean over real decoder steps of ``-log p(C_i = right next pointer)``, the end step included.

    Shapes: ``output.log_probs (B, T, N + 1)``, ``targets (B, N + 1)``; returns a scalar.
    """
    ensure_type("output", output, DecoderOutput)
    B, T, width = output.log_probs.shape
    right = next_vertex(targets.unsqueeze(1).expand(B, T, width), output.available)  # (B, T)
    step_valid = output.available.any(dim=-1)  # (B, T): False once a sample has ended
    log_p_right = output.log_probs.gather(-1, right.unsqueeze(-1)).squeeze(-1)  # (B, T)
    nll = torch.where(step_valid, -log_p_right, torch.zeros_like(log_p_right))  # (B, T)
    return nll.sum() / step_valid.sum()


def _vertex_cycles(pointers: torch.Tensor, end: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The vertices of outputs ``pointers (B, T)``, their entries below the end ``end`` and not -1,
    moved to the front in their order, -1 after them: ``(B, T)``, and how many each has, ``(B,)``."""
    is_vertex = (pointers >= 0) & (pointers < end)  # (B, T)
    front = torch.sort((~is_vertex).int(), dim=1, stable=True).indices  # (B, T): vertices first, in order
    vertices = torch.where(is_vertex.gather(1, front), pointers.gather(1, front), -1)  # (B, T)
    return vertices, is_vertex.sum(dim=1)


def same_polygon(pointers: torch.Tensor, batch: HullBatch) -> torch.Tensor:
    """Whether each output ``pointers (B, T)`` names the true hull's polygon: the hull's vertices in
    counter-clockwise order, starting at any of them, ``(B,)`` bool.

    An output's polygon is its vertices in order (what :func:`hull_metrics`' area coverage reads:
    the end and -1 are not vertices). It is the hull's when it has as many vertices and some
    rotation of them is the target's sequence: ``(2, 3, 4, 1)`` for the target ``(1, 2, 3, 4)``
    counts, the clockwise ``(1, 4, 3, 2)`` does not, nor a polygon with a vertex missing or added.
    Checked as :func:`hull_metrics` checks ``pointers``.
    """
    ensure_type("batch", batch, HullBatch)
    ensure_same_device(batch=batch.targets, pointers=pointers)
    end = batch.targets.shape[1] - 1
    check_pointers(pointers, batch.lengths, end=end)
    output, output_count = _vertex_cycles(pointers, end)  # (B, T), (B,)
    target, count = _vertex_cycles(batch.targets, end)  # (B, N + 1), (B,): count >= 3
    width = max(output.shape[1], target.shape[1])
    output = torch.nn.functional.pad(output, (0, width - output.shape[1]), value=-1)  # (B, W)
    target = torch.nn.functional.pad(target, (0, width - target.shape[1]), value=-1)  # (B, W)
    steps = torch.arange(width, device=pointers.device)  # (W,)
    # output rotated by every shift s: entry i is output[(i + s) mod count], compared on i < count.
    rotated = (steps.view(1, 1, -1) + steps.view(1, -1, 1)) % count.view(-1, 1, 1)  # (B, S = W, W)
    shifted = output.unsqueeze(1).expand(-1, width, -1).gather(2, rotated)  # (B, S, W)
    agrees = (shifted == target.unsqueeze(1)) | (steps >= count.unsqueeze(1)).unsqueeze(1)  # (B, S, W)
    return (output_count == count) & agrees.all(dim=2).any(dim=1)


def hull_metrics(pointers: torch.Tensor, batch: HullBatch) -> HullMetrics:
    """Accuracy, polygon accuracy (:func:`same_polygon`), area coverage and invalid fraction of
    output ``pointers (B, T)`` (the end pointer at ``N``, -1 after it) against ``batch``.

    ``TypeError`` unless ``pointers`` is an integer tensor and ``batch`` a :class:`HullBatch`;
    ``ValueError`` naming ``pointers`` for another batch size or a pointer that is none of -1, the
    end and a real point of its set.
    """
    ensure_type("batch", batch, HullBatch)
    ensure_same_device(batch=batch.targets, pointers=pointers)
    check_pointers(pointers, batch.lengths, end=batch.targets.shape[1] - 1)
    width = batch.targets.shape[1]
    steps = min(pointers.shape[1], width)
    padded = torch.full_like(batch.targets, -1)  # (B, N + 1)
    padded[:, :steps] = pointers[:, :steps]
    longer = (pointers[:, steps:] >= 0).any(dim=1)  # (B,) outputs longer than any target
    exact = (padded == batch.targets).all(dim=1) & ~longer
    end = width - 1
    points = batch.points.cpu().numpy()
    coverages = []
    for row, sequence in enumerate(pointers.cpu().tolist()):
        vertices = [j for j in sequence if 0 <= j < end]
        area = polygon_area(points[row, vertices])
        coverages.append(np.nan if area is None else area / batch.hull_areas[row].item())
    coverages = np.array(coverages)
    valid = ~np.isnan(coverages)
    return HullMetrics(
        accuracy=exact.float().mean().item(),
        area_coverage=float(coverages[valid].mean()) if valid.any() else float("nan"),
        invalid=float(1.0 - valid.mean()),
        polygon_accuracy=same_polygon(pointers, batch).float().mean().item(),
    )


def evaluate_hull(model: PointerNetwork, batch: HullBatch, beam_width: int = 1) -> HullMetrics:
    """Metrics of ``model`` on ``batch``, decoding greedily (``beam_width=1``) or with a beam search
    of ``beam_width`` beams (:func:`~ponderlib.mechanisms.pointer.beam_search`)."""
    ensure_type("model", model, PointerNetwork)
    ensure_type("batch", batch, HullBatch)
    check_int("beam_width", beam_width, minimum=1, maximum=MAX_BEAM_WIDTH)
    with evaluating(model):
        if beam_width == 1:
            pointers = greedy_decode(model, batch.points, batch.lengths).pointers
        else:
            pointers, _ = beam_search(model, batch.points, batch.lengths, beam_width)
    return hull_metrics(pointers, batch)


@torch.no_grad()
def hull_metrics_by_points(
    model: PointerNetwork,
    point_counts: range | list[int],
    samples: int,
    seed: int,
    device: torch.device | str | None = None,
    beam_width: int = 1,
) -> dict[int, HullMetrics]:
    """Metrics on fresh sets of exactly ``n`` points for each ``n`` in ``point_counts``, drawn from the
    ``"test"`` stream of the run seeded with ``seed`` (:func:`~ponderlib.core.seeds.stream_generator`),
    decoded greedily or with ``beam_width`` beams (:func:`evaluate_hull`)."""
    check_counts(MAX_BATCH, samples=samples)
    generator = stream_generator(seed, "test", device)
    return {n: evaluate_hull(model, hull_batch(samples, n, n, generator=generator), beam_width) for n in point_counts}


@dataclass
class HullConfig(DecayingLRConfig):
    """Everything that defines a convex hull run. The defaults train on 5 to 10 points on a 2-core CPU."""

    eval_size: int = default("eval_size", 512)
    eval_every: int = default("eval_every", 100)
    min_points: int = option(5, "fewest points in a training set (>= 3)")
    max_points: int = option(10, "most points in a training set")
    test_max_points: int = option(20, "after training, metrics at every point count from min-points to this")
    test_size: int = option(512, "point sets per point count in the test after training")
    hidden: int = option(64, "LSTM size")
    attention_dim: int = option(64, "size of v in the additive score")
    bidirectional: bool = option(True, "bidirectional encoder")
    beam_width: int = option(1, "beams in the test after training (1: greedy; held-out evaluation stays greedy)")

    def default_lr(self) -> float:
        return 5e-3

    def validate(self) -> None:
        check_point_counts(self.min_points, self.max_points)
        check_int("test_max_points", self.test_max_points, minimum=self.max_points, maximum=MAX_LENGTH)
        check_counts(MAX_WIDTH, hidden=self.hidden, attention_dim=self.attention_dim)
        check_counts(MAX_BATCH, test_size=self.test_size)
        check_int("beam_width", self.beam_width, minimum=1, maximum=MAX_BEAM_WIDTH)
        super().validate()  # batch_size and eval_size, before their products
        widths = {"hidden": self.hidden, "attention_dim": self.attention_dim}
        points = ("max_points", self.max_points + 1)  # the end pointer is one more position
        check_decoding_sizes({"batch_size": self.batch_size, "eval_size": self.eval_size}, points, widths)
        tested = ("test_max_points", self.min_points, self.test_max_points)
        check_decoding_sizes(
            {"test_size": self.test_size}, ("test_max_points", self.test_max_points + 1), widths, self.beam_width, tested
        )


@dataclass
class HullResult(TrainResult):
    """A trained hull pointer network, its history, and its metrics by point count."""

    task = "convex_hull"

    by_points: dict[int, HullMetrics] | None = None
    """Metrics on fresh sets of each point count (greedy, or with the config's ``beam_width``),
    measured by :func:`train_hull`."""

    def metrics(self) -> dict:
        by_points = self.by_points or {}
        return {name: {str(n): round_or_none(getattr(m, name)) for n, m in by_points.items()}
                for name in ("accuracy", "polygon_accuracy", "area_coverage", "invalid")}


def build_hull_model(config: HullConfig) -> PointerNetwork:
    """The pointer network with an end pointer that ``config`` describes (not yet on a device)."""
    return PointerNetwork("pointer", config.hidden, config.attention_dim, config.bidirectional,
                          config.max_points, input_size=2, end_pointer=True)


def train_hull(
    config: HullConfig | None = None, *, on_evaluate: Callable[[int, nn.Module], None] | None = None, **overrides
) -> HullResult:
    """Train a pointer network on convex hulls as ``config`` (or ``HullConfig(**overrides)``) says.

    Adam with gradient clipping on a fresh batch at every training update (its learning rate
    decaying by ``lr_decay`` every 1,000 updates, when below 1), with teacher forcing (the right next
    vertex fed at every decoder step), greedy evaluation every ``eval_every`` updates (target metric:
    ``accuracy``); then metrics at every point count from ``min_points`` to ``test_max_points`` on
    fresh sets, decoded with ``beam_width`` beams (1: greedy). ``on_evaluate(update, model)``: called after
    every held-out evaluation during training (:func:`~ponderlib.core.engine.fit`).
    """
    config = HullConfig.from_overrides(config, overrides)
    device = start_run(config)
    model = build_hull_model(config).to(device)
    data = config.generator("data", device)
    held_out = hull_batch(config.eval_size, config.min_points, config.max_points,
                          generator=config.generator("held_out", device))

    def loss_fn(model: PointerNetwork, batch: HullBatch) -> torch.Tensor:
        def teacher(available: torch.Tensor) -> torch.Tensor:
            return next_vertex(batch.targets, available)

        return hull_loss(model(batch.points, batch.lengths, teacher, check=False), batch.targets)

    def evaluate(model: PointerNetwork) -> dict[str, float]:
        metrics = evaluate_hull(model, held_out)
        return {"accuracy": metrics.accuracy, "polygon_accuracy": metrics.polygon_accuracy,
                "area_coverage": metrics.area_coverage}

    fitted = fit(
        model, lambda: _draw_hulls(config.batch_size, config.min_points, config.max_points, data), loss_fn, evaluate,
        config, target_metric="accuracy", desc=f"pointer hull {config.min_points}-{config.max_points} points",
        on_evaluate=on_evaluate,
    )
    result = HullResult(model=model, config=config, fit=fitted, device=device)
    result.by_points = hull_metrics_by_points(
        model, range(config.min_points, config.test_max_points + 1), config.test_size,
        config.seed, device, config.beam_width,
    )
    return result
