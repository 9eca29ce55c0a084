"""What chapter 3 computes about pointer networks on sorting and convex hulls: summaries over seeds,
beam search against greedy decoding on the same arrays, decoded examples for the attention maps and
the hull pictures, and whether a run was still improving when its budget ended (from its history, or
from the learning curve its summary holds, as the committed evidence does).

Every set drawn here after training comes from the ``"scoring"`` stream of the run's own seed
(:func:`~ponderlib.core.seeds.stream_generator`): a chapter names the run and the sizes, never a seed.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch

from ponderlib.core.engine import evaluating
from ponderlib.core.records import finite_numbers
from ponderlib.core.seeds import stream_generator
from ponderlib.core.validation import check_choice, check_int, ensure_type
from ponderlib.mechanisms.decoding import beam_search, greedy_decode
from ponderlib.mechanisms.pointer import PointerNetwork
from ponderlib.tasks.convex_hull import HullMetrics, HullResult
from ponderlib.tasks.convex_hull_data import check_point_counts, hull_batch
from ponderlib.tasks.sorting import SortResult, sort_metrics
from ponderlib.tasks.sorting_data import check_lengths, sort_batch

HULL_METRICS = ("accuracy", "polygon_accuracy", "area_coverage", "invalid")
"""The fields of :class:`~ponderlib.tasks.convex_hull.HullMetrics` that :func:`metric_by_points` reads."""


def mean_and_half_range(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-range ``(max - min) / 2`` of per-seed numbers (at least one), in their unit."""
    finite_numbers("values", values)
    return statistics.mean(values), (max(values) - min(values)) / 2


def mean_curve(curves: Sequence[Mapping[int, float | None]]) -> dict[int, float | None]:
    """The mean over seeds of per-seed curves ``{length: value}`` (exact match against array length,
    say): at every length of the first curve, the mean of the seeds' values, or None where any seed
    has None (a model that cannot run at that length). Every curve must have the same lengths."""
    if len(curves) == 0:
        raise ValueError("curves must hold at least one curve, got none")
    for index, curve in enumerate(curves):
        ensure_type(f"curves[{index}]", curve, Mapping)
        measured = [value for value in curve.values() if value is not None]  # None: a length the model cannot run
        if measured:
            finite_numbers(f"curves[{index}]", measured)
    lengths = list(curves[0])
    for index, curve in enumerate(curves):
        if sorted(curve) != sorted(lengths):
            raise ValueError(f"curves[{index}] has lengths {sorted(curve)}, curves[0] has {sorted(lengths)}")
    return {
        n: None if any(curve[n] is None for curve in curves) else statistics.mean(curve[n] for curve in curves)
        for n in lengths
    }


@dataclass(frozen=True)
class BeamScore:
    """Beam search of one width against greedy decoding on the same arrays.

    Attributes:
        exact_match: the fraction of arrays the beam's best output sorts exactly.
        greedy_agreement: the fraction of arrays on which that output is greedy decoding's own, right or
            wrong: 1.0 where the most likely position at every step is also on the most likely whole
            output the beam finds, so a wider search cannot change the score.
    """

    exact_match: float
    greedy_agreement: float


def score_beam_widths(
    model: PointerNetwork,
    beam_widths: Sequence[int],
    length: int,
    values: str = "int",
    order: str = "asc",
    samples: int = 512,
    *,
    seed: int,
    device: torch.device | str | None = None,
) -> dict[int, BeamScore]:
    """:class:`BeamScore` of ``model`` decoding with each beam width in ``beam_widths`` (1 is greedy
    decoding), every width on the same ``samples`` arrays of ``length`` elements, drawn from the
    ``"scoring"`` stream of the run seeded with ``seed``."""
    if len(beam_widths) == 0:
        raise ValueError("beam_widths must hold at least one width, got none")
    for width in beam_widths:
        check_int("beam_width", width, minimum=1)
    check_int("length", length, minimum=1)
    batch = sort_batch(samples, length, length, values, order, generator=stream_generator(seed, "scoring", device))
    with evaluating(model):
        greedy = greedy_decode(model, batch.inputs, batch.lengths).pointers  # (B, T)
        beams = {width: beam_search(model, batch.inputs, batch.lengths, width)[0] for width in beam_widths}
    return {
        width: BeamScore(sort_metrics(pointers, batch).exact_match, (pointers == greedy).all(dim=1).float().mean().item())
        for width, pointers in beams.items()
    }


@dataclass
class SortExample:
    """One array decoded greedily by a trained sorting model, on the CPU.

    Attributes:
        inputs: ``(N,)`` the values; only the first ``length`` are real.
        length: ``n``, the number of real values.
        pointers: ``(N,)`` the position chosen at each decoder step, -1 after the ``n``-th.
        attention: ``(N, N)`` the decoder's distribution at each step (for the pointer, ``p(C_i = j)``).
    """

    inputs: torch.Tensor
    length: int
    pointers: torch.Tensor
    attention: torch.Tensor


def sort_examples(
    result: SortResult, count: int, min_len: int, max_len: int, device: torch.device | str | None = None
) -> list[SortExample]:
    """``count`` arrays of ``min_len`` to ``max_len`` elements, of the run's values and order, drawn from
    the ``"scoring"`` stream of its seed and decoded greedily by its model (on ``device``, default the
    run's), for attention maps."""
    check_int("count", count, minimum=1)
    check_lengths(min_len, max_len)
    device = result.device if device is None else device
    config = result.config
    batch = sort_batch(count, min_len, max_len, config.values, config.order, generator=config.generator("scoring", device))
    with evaluating(result.model):
        decoded = greedy_decode(result.model, batch.inputs, batch.lengths)
    return [
        SortExample(batch.inputs[k].cpu(), int(batch.lengths[k]), decoded.pointers[k].cpu(), decoded.attention[k].cpu())
        for k in range(count)
    ]


@dataclass
class HullExample:
    """One point set decoded greedily by a trained hull model, on the CPU.

    Attributes:
        points: ``(n, 2)`` the real points.
        predicted: the output's vertices in order, the end pointer left out.
        true: the true hull's vertices, counter-clockwise from the lowest index.
        pointers: ``(T,)`` the position chosen at each decoder step (the end as ``N``, -1 after it).
        attention: ``(T, N + 1)`` ``p(C_i = j)`` at each decoder step; column ``N`` is the end.
    """

    points: torch.Tensor
    predicted: list[int]
    true: list[int]
    pointers: torch.Tensor
    attention: torch.Tensor

    @property
    def length(self) -> int:
        """``n``, the number of points."""
        return self.points.shape[0]

    @property
    def exact(self) -> bool:
        """Whether the output is the true hull, vertex for vertex and in the same order."""
        return self.predicted == self.true


def hull_examples(
    result: HullResult, count: int, min_points: int, max_points: int, device: torch.device | str | None = None
) -> list[HullExample]:
    """``count`` sets of ``min_points`` to ``max_points`` points drawn from the ``"scoring"`` stream of the
    run's seed and decoded greedily by its model (on ``device``, default the run's), for pictures of
    predicted against true hulls."""
    check_int("count", count, minimum=1)
    check_point_counts(min_points, max_points)
    device = result.device if device is None else device
    batch = hull_batch(count, min_points, max_points, generator=result.config.generator("scoring", device))
    with evaluating(result.model):
        decoded = greedy_decode(result.model, batch.points, batch.lengths)
    width = batch.points.shape[1]  # N: pointers below it are points, N itself is the end
    examples = []
    for k in range(count):
        n = int(batch.lengths[k])
        examples.append(HullExample(
            points=batch.points[k, :n].cpu(),
            predicted=[j for j in decoded.pointers[k].tolist() if 0 <= j < width],
            true=[j for j in batch.targets[k].tolist() if 0 <= j < width],
            pointers=decoded.pointers[k].cpu(),
            attention=decoded.attention[k].cpu(),
        ))
    return examples


def metric_by_points(results: Sequence[HullResult], metric: str) -> dict[int, list[float]]:
    """One metric of :class:`~ponderlib.tasks.convex_hull.HullMetrics` (``"accuracy"``,
    ``"polygon_accuracy"``, ``"area_coverage"`` or ``"invalid"``, each a fraction) per point count, one
    value per run in the order of ``results``: ``{n: [run 1's, run 2's, ...]}``, at the point counts of
    the first run."""
    check_choice("metric", metric, HULL_METRICS)
    if len(results) == 0:
        raise ValueError("results must hold at least one run, got none")
    by_points: list[Mapping[int, HullMetrics]] = [result.by_points for result in results]
    return {n: [getattr(run[n], metric) for run in by_points] for n in by_points[0]}
