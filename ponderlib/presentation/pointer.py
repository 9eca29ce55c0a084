"""Chapter 3 (pointer attention)'s tables, as Markdown that a cell tagged ``remove-input`` shows with
:func:`ponderlib.presentation.tables.show`: exact match by length (:func:`sort_length_table`), the decoders
live and at one large budget (:func:`decoder_table`, :func:`converged_decoder_table`), the hulls live and
near the paper's setting (:func:`hull_table`, :func:`hull_polygon_table`), and any per-seed columns of
committed evidence (:func:`per_seed_table`). The chapter's sentences are its own Markdown.

Fractions are written with three decimals. A seed's values are listed in the order the mappings give them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.experiments.pointer import mean_and_half_range, updates_to_reach
from ponderlib.figures import style
from ponderlib.presentation.tables import markdown_table

HULL_METRICS = ("accuracy", "area_coverage", "invalid")
"""The per-point-count metrics a hull table reads, each ``{n: [one value per seed]}``."""

PAPER_HULLS = {"Vinyals et al. (trained on 5-50)": {5: 0.920, 10: 0.870}, "a public reproduction": {5: 0.938, 10: 0.879}}
"""The published polygon accuracies a hull figure marks: the paper's Table 1 row for 5 to 50 points and
a public reproduction's (256 units, Adam decaying, a beam of 3), by number of points."""


def per_seed_table(seeds: Sequence[int], columns: Mapping[str, Sequence[float]], digits: int = 3) -> str:
    """One row per seed and one column per entry of ``columns`` (header -> one fraction per seed, in the
    order of ``seeds``), with a last row of the means: a report's per-seed table of committed evidence.

    >>> print(per_seed_table([0, 1], {"exact match": [0.5, 1.0]}))
    | seed | exact match |
    |---:|---:|
    | 0 | 0.500 |
    | 1 | 1.000 |
    | mean | 0.750 |
    """
    seeds = list(seeds)
    if not seeds or not columns:
        raise ValueError("seeds and columns must each hold at least one entry")
    for name, values in columns.items():
        if len(values) != len(seeds):
            raise ValueError(f"column {name!r} has {len(values)} values, one per seed ({len(seeds)}) expected")
    rows = [[seed, *(f"{values[i]:.{digits}f}" for values in columns.values())] for i, seed in enumerate(seeds)]
    rows.append(["mean", *(f"{statistics.mean(values):.{digits}f}" for values in columns.values())])
    return markdown_table(["seed", *columns], rows, align="r" * (len(columns) + 1))


def sort_length_table(by_length: Mapping[int, Mapping[int, float]], lengths: Sequence[int] = (5, 10, 15, 20)) -> str:
    """Exact match at each of ``lengths``, one column per seed and their mean.

    Args:
        by_length: seed -> {array length: exact match} (a sorting run's ``by_length``).
        lengths: the rows.
    """
    seeds = list(by_length)
    if not seeds:
        raise ValueError("by_length must hold at least one seed, got none")
    rows = []
    for n in lengths:
        values = [by_length[seed][n] for seed in seeds]
        rows.append([n, *(f"{v:.3f}" for v in values), f"{statistics.mean(values):.3f}"])
    return markdown_table(["length", *(f"seed {seed}" for seed in seeds), "mean"], rows, align="r" * (len(seeds) + 2))


def decoder_table(comparison: Mapping[str, Mapping[int, Any]]) -> str:
    """The decoders' exact match per seed, its mean and half-range, and their mean element accuracy.

    Args:
        comparison: decoder -> seed -> a sorting result (its ``test.exact_match`` and
            ``test.element_accuracy``, fractions).
    """
    if not comparison:
        raise ValueError("comparison must hold at least one decoder, got none")
    seeds = list(next(iter(comparison.values())))
    rows = []
    for decoder, runs in comparison.items():
        exact = [runs[seed].test.exact_match for seed in seeds]
        elements = [runs[seed].test.element_accuracy for seed in seeds]
        mean, half_range = mean_and_half_range(exact)
        rows.append(
            [
                style.label(decoder),
                ", ".join(f"{x:.3f}" for x in exact),
                f"{mean:.3f} ± {half_range:.3f}",
                f"{statistics.mean(elements):.3f}",
            ]
        )
    header = [
        "decoder",
        "exact match, " + ", ".join(f"seed {s}" for s in seeds),
        "mean ± half-range",
        "element accuracy, mean",
    ]
    return markdown_table(header, rows, align="lrrr")


def _updates(update: int | None) -> str:
    return "never" if update is None else f"{update:,}"


def converged_decoder_table(runs: Mapping[str, Sequence[Mapping]], thresholds: Sequence[float] = (0.95, 0.99)) -> str:
    """The decoders at one large budget, from run summaries (a preset's evidence): exact match on the test
    arrays at the end, per seed and its mean, and for each of ``thresholds`` the training update at which
    held-out exact match first reached it (:func:`~ponderlib.experiments.pointer.updates_to_reach`), per
    seed, "never" when no evaluation did.

    Args:
        runs: decoder -> its runs' summaries (``exact_match``, ``curve`` and ``seed``), in seed order.
        thresholds: fractions of held-out arrays sorted exactly.
    """
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each decoder to at least one run summary")
    if not thresholds or not all(0.0 < threshold <= 1.0 for threshold in thresholds):
        raise ValueError(f"thresholds must be fractions in (0, 1], at least one; got {list(thresholds)}")
    seeds = [summary["seed"] for summary in next(iter(runs.values()))]
    rows = []
    for decoder, summaries in runs.items():
        if [summary["seed"] for summary in summaries] != seeds:
            raise ValueError(f"every decoder must hold the seeds {seeds} in that order; {decoder} holds others")
        exact = [summary["exact_match"] for summary in summaries]
        first = [
            " / ".join(_updates(updates_to_reach(s["curve"], "exact_match", threshold)) for s in summaries)
            for threshold in thresholds
        ]
        rows.append([style.label(decoder), ", ".join(f"{x:.3f}" for x in exact), f"{statistics.mean(exact):.3f}", *first])
    header = [
        "decoder",
        "exact match at the end, " + ", ".join(f"seed {s}" for s in seeds),
        "mean",
        *(f"first at {threshold:.0%} held out (updates), per seed" for threshold in thresholds),
    ]
    return markdown_table(header, rows, align="lrr" + "r" * len(thresholds))


def _check_hull_metrics(metrics: Mapping[str, Mapping[int, Sequence[float]]], more: Sequence[str] = ()) -> None:
    names = (*more, *HULL_METRICS)
    missing = [name for name in names if name not in metrics]
    if missing:
        raise ValueError(f"metrics must hold {', '.join(names)}; {', '.join(missing)} missing")


def _points_label(n: int, trained_max: int) -> str:
    return f"{n} (longer than trained)" if n > trained_max else str(n)


def _per_seed(values: Sequence[float]) -> str:
    return ", ".join(f"{value:.3f}" for value in values)


def hull_polygon_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """Polygon accuracy and area coverage per seed, with the means of both, of exact-sequence accuracy and
    of invalid outputs, one row per point count (counts above ``trained_max`` marked "longer than
    trained"): the table of hulls near the paper's setting.

    Args:
        metrics: ``"polygon_accuracy"`` and the names of :data:`HULL_METRICS` -> {point count: one
            fraction per seed} (as :func:`ponderlib.experiments.pointer.metric_by_points` gives them).
        point_counts: the rows.
        trained_max: the most points a training set had.
    """
    _check_hull_metrics(metrics, ("polygon_accuracy",))
    rows = []
    for n in point_counts:
        polygon, area = metrics["polygon_accuracy"][n], metrics["area_coverage"][n]
        rows.append([
            _points_label(n, trained_max), _per_seed(polygon), f"{statistics.mean(polygon):.3f}",
            f"{statistics.mean(metrics['accuracy'][n]):.3f}", _per_seed(area), f"{statistics.mean(area):.3f}",
            f"{statistics.mean(metrics['invalid'][n]):.3f}",
        ])
    header = ["points", "polygon accuracy per seed", "mean", "exact sequence, mean", "area coverage per seed",
              "mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrrrr")


def hull_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """Hull accuracy per seed and its mean, mean area coverage and mean fraction of invalid outputs, one
    row per point count; counts above ``trained_max`` are marked "longer than trained".

    Args:
        metrics: ``"accuracy"``, ``"area_coverage"``, ``"invalid"`` -> {point count: one fraction per seed}
            (as :func:`ponderlib.experiments.pointer.metric_by_points` gives them).
        point_counts: the rows.
        trained_max: the most points a training set had.
    """
    _check_hull_metrics(metrics)
    rows = []
    for n in point_counts:
        accuracy = metrics["accuracy"][n]
        rows.append(
            [
                _points_label(n, trained_max),
                _per_seed(accuracy),
                f"{statistics.mean(accuracy):.3f}",
                f"{statistics.mean(metrics['area_coverage'][n]):.3f}",
                f"{statistics.mean(metrics['invalid'][n]):.3f}",
            ]
        )
    header = ["points", "accuracy per seed", "accuracy, mean", "area coverage, mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrr")
