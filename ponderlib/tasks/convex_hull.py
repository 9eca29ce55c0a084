"""Planar convex hulls for pointer networks (Vinyals et al. 2015, sec. 4.2, Table 1): loss, metrics, training.

The data (point sets, their hulls in the paper's order, areas, the teacher's next vertex) is
:mod:`ponderlib.tasks.convex_hull_data`; this module holds the loss, the metrics, the config and
training. Polygon validity for the metrics comes from shapely, called once per output.

Metrics (the paper's Table 1): **accuracy**, the fraction of outputs whose sequence equals the
target exactly (the data's order, counter-clockwise from the lowest index, makes the right sequence unique: a rotation or the clockwise
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
from torch import nn

from ponderlib.core.config import DecayingLRConfig, default, option
from ponderlib.core.engine import TrainResult, fit, start_run
from ponderlib.core.seeds import stream_generator
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    MAX_WIDTH,
    check_counts,
    check_int,
    ensure_same_device,
    ensure_type,
)
from ponderlib.mechanisms.decoding import check_pointers, decode
from ponderlib.mechanisms.pointer import MAX_BEAM_WIDTH, DecoderOutput, PointerNetwork, check_decoding_sizes
from ponderlib.tasks.convex_hull_data import HullBatch, check_point_counts, hull_batch, next_vertex, polygon_area


@dataclass
class HullMetrics:
    """Table 1's metrics on a set of outputs: exact-sequence accuracy, mean area coverage of the
    valid outputs, the fraction of outputs that are not valid polygons, and polygon accuracy (the
    fraction that name the hull's polygon from any starting vertex, :func:`same_polygon`)."""

    accuracy: float
    area_coverage: float
    invalid: float
    polygon_accuracy: float


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
    return hull_metrics(decode(model, batch.points, batch.lengths, beam_width), batch)


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


SUMMARY_KEYS = {"exact_match_by_points": "accuracy", "polygon_accuracy": "polygon_accuracy",
                "area_coverage": "area_coverage", "invalid": "invalid"}
"""A hull run summary's metrics, each ``{"5": value, ...}`` by point count, and the field of
:class:`HullMetrics` each holds: the exact-sequence accuracy is ``exact_match_by_points``, as sorting's is
``exact_match_by_length``; ``accuracy`` alone names the held-out ``curve``'s (``evidence/MIGRATIONS.md``,
2026-12-07)."""


@dataclass
class HullResult(TrainResult):
    """A trained hull pointer network, its history, and its metrics by point count."""

    task = "convex_hull"

    by_points: dict[int, HullMetrics] | None = None
    """Metrics on fresh sets of each point count (greedy, or with the config's ``beam_width``),
    measured by :func:`train_hull`."""

    def metrics(self) -> dict:
        by_points = self.by_points or {}
        return {key: {str(n): round_or_none(getattr(m, name)) for n, m in by_points.items()}
                for key, name in SUMMARY_KEYS.items()}


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
        model, lambda: hull_batch(config.batch_size, config.min_points, config.max_points, generator=data, check=False), loss_fn, evaluate,
        config, target_metric="accuracy", desc=f"pointer hull {config.min_points}-{config.max_points} points",
        on_evaluate=on_evaluate,
    )
    result = HullResult(model=model, config=config, fit=fitted, device=device)
    result.by_points = hull_metrics_by_points(
        model, range(config.min_points, config.test_max_points + 1), config.test_size,
        config.seed, device, config.beam_width,
    )
    return result
