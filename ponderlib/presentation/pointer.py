"""Chapter 3 (pointer attention)'s tables, as Markdown: exact match by length, the decoders live and at
one large budget, the hulls live and near the paper's setting, and per-seed columns of committed evidence.
Fractions are written with three decimals; seeds in the order the mappings give them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.core.records import Curve, summary_value
from ponderlib.core.validation import check_not_empty, short
from ponderlib.experiments.pointer import HULL_METRICS, mean_and_half_range
from ponderlib.figures import style
from ponderlib.presentation.tables import finite, markdown_table, require_groups

HULL_TABLE_METRICS = tuple(name for name in HULL_METRICS if name != "polygon_accuracy")
"""The metrics of :data:`~ponderlib.experiments.pointer.HULL_METRICS` every hull table reads, each a
mapping ``{n: values}``, one value per seed (:func:`hull_polygon_table` reads ``polygon_accuracy`` too)."""

PAPER_HULLS = {
    "Vinyals et al. 2015, Table 1 (trained on 5-50)": {5: 0.920, 10: 0.870},
    "gchaperon/pointer-networks (trained on 5-50)": {5: 0.854, 10: 0.697},
}
"""The published hull accuracies a hull figure marks, by number of points, each under its source (the
legend's text): the accuracies Vinyals et al. report in Table 1 for a Ptr-Net trained on 5 to 50 points
(these two could not be checked against the paper's own table while chapter 3 was written; its report
says so), and those of the replication github.com/gchaperon/pointer-networks (README at commit f44ce77,
"Compare with Table 1": trained on 5 to 50 points in the paper's SGD setting; its author finds the
results "considerably off")."""


def _per_seed(values: Sequence[float]) -> str:
    return ", ".join(f"{value:.3f}" for value in finite(values))


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
    if not isinstance(columns, Mapping):
        raise TypeError(f"columns must be a mapping, header -> one value per seed; got {type(columns).__name__}")
    seeds = list(seeds)
    if not seeds or not columns:
        raise ValueError("seeds and columns must each hold at least one entry")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct (one row per seed), got {seeds}")
    for name, values in columns.items():
        if len(values) != len(seeds):
            raise ValueError(f"column {name!r} has {len(values)} values, one per seed ({len(seeds)}) expected")
        finite(values, f"columns[{name!r}]", digits)
    rows = [[seed, *(f"{values[i]:.{digits}f}" for values in columns.values())] for i, seed in enumerate(seeds)]
    rows.append(["mean", *(f"{statistics.mean(values):.{digits}f}" for values in columns.values())])
    return markdown_table(["seed", *columns], rows, align="r" * (len(columns) + 1))


def sort_length_table(by_length: Mapping[int, Mapping[int, float]], lengths: Sequence[int] = (5, 10, 15, 20)) -> str:
    """Exact match at each of ``lengths`` (the rows), one column per seed and their mean (``by_length``:
    seed -> {array length: exact match}, a sorting run's ``by_length``)."""
    require_groups("by_length", by_length)
    check_not_empty("lengths", lengths, "length")
    seeds = list(by_length)
    rows = []
    for n in lengths:
        if any(n not in by_length[seed] for seed in seeds):
            raise ValueError(f"lengths holds {n}, which a seed of by_length has no exact match for")
        values = finite([by_length[seed][n] for seed in seeds], f"by_length's exact match at length {n}")
        rows.append([n, *(f"{v:.3f}" for v in values), f"{statistics.mean(values):.3f}"])
    return markdown_table(["length", *(f"seed {seed}" for seed in seeds), "mean"], rows, align="r" * (len(seeds) + 2))


def decoder_table(comparison: Mapping[str, Mapping[int, Any]]) -> str:
    """The decoders' exact match per seed, its mean and half-range, and their mean element accuracy
    (``comparison``: decoder -> seed -> a sorting result, its ``test.exact_match`` and ``test.element_accuracy``)."""
    require_groups("comparison", comparison)
    seeds = list(next(iter(comparison.values())))
    rows = []
    for decoder, runs in comparison.items():
        if not isinstance(runs, Mapping) or sorted(runs) != sorted(seeds):
            raise ValueError(f"comparison[{decoder!r}] must map the seeds {seeds} (the first decoder's) to results, got {short(repr(runs))}")
        for seed in seeds:
            if not hasattr(getattr(runs[seed], "test", None), "exact_match"):
                raise TypeError(f"comparison[{decoder!r}][{seed!r}] must be a sorting result (its test.exact_match), "
                                f"got {type(runs[seed]).__name__}")
        exact = [runs[seed].test.exact_match for seed in seeds]
        elements = [runs[seed].test.element_accuracy for seed in seeds]
        mean, half_range = mean_and_half_range(exact)
        rows.append([style.label(decoder), _per_seed(exact), f"{mean:.3f} ± {half_range:.3f}",
                     f"{statistics.mean(elements):.3f}"])
    header = ["decoder", "exact match, " + ", ".join(f"seed {s}" for s in seeds), "mean ± half-range",
              "element accuracy, mean"]
    return markdown_table(header, rows, align="lrrr")


def _updates(update: int | None) -> str:
    return "never" if update is None else f"{update:,}"


def converged_decoder_table(runs: Mapping[str, Sequence[Mapping]], thresholds: Sequence[float] = (0.95, 0.99)) -> str:
    """The decoders at one large budget, from run summaries (a preset's evidence): exact match on the test
    arrays at the end, per seed and its mean, and for each of ``thresholds`` the training update at which
    held-out exact match first reached it (:meth:`~ponderlib.core.records.Curve.reach`), per
    seed, "never" when no evaluation did. ``runs``: decoder -> its runs' summaries (``exact_match``,
    ``curve`` and ``seed``), in seed order; ``thresholds``: fractions of held-out arrays sorted exactly."""
    require_groups("runs", runs)
    if isinstance(thresholds, str) or not thresholds or not all(
        isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and 0.0 < threshold <= 1.0
        for threshold in thresholds
    ):
        raise ValueError(f"thresholds must be fractions in (0, 1], at least one; got {list(thresholds)}")
    for decoder, summaries in runs.items():
        for index, summary in enumerate(summaries):
            for entry in ("seed", "exact_match", "curve"):
                summary_value(summary, entry, f"runs[{decoder!r}][{index}]")
    seeds = [summary["seed"] for summary in next(iter(runs.values()))]
    rows = []
    for decoder, summaries in runs.items():
        if [summary["seed"] for summary in summaries] != seeds:
            raise ValueError(f"every decoder must hold the seeds {seeds} in that order; {decoder} holds others")
        exact = [summary["exact_match"] for summary in summaries]
        first = [" / ".join(_updates(Curve.of(s["curve"]).reach("exact_match", threshold)) for s in summaries)
                 for threshold in thresholds]
        rows.append([style.label(decoder), _per_seed(exact), f"{statistics.mean(exact):.3f}", *first])
    header = ["decoder", "exact match at the end, " + ", ".join(f"seed {s}" for s in seeds), "mean",
              *(f"first at {threshold:.0%} held out (updates), per seed" for threshold in thresholds)]
    return markdown_table(header, rows, align="lrr" + "r" * len(thresholds))


def _check_hull_metrics(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], more: Sequence[str] = ()
) -> None:
    check_not_empty("point_counts", point_counts, "point count")
    names = (*more, *HULL_TABLE_METRICS)
    missing = [name for name in names if name not in metrics]
    if missing:
        raise ValueError(f"metrics must hold {', '.join(names)}; {', '.join(missing)} missing")
    for name in names:
        require_groups(f"metrics[{name!r}]", metrics[name])


def _points_label(n: int, trained_max: int, metrics: Mapping) -> str:
    if any(n not in by_points for by_points in metrics.values()):
        raise ValueError(f"point_counts holds {n}, which metrics has no values for")
    seeds = {name: len(finite(by_points[n], f"metrics[{name!r}][{n}]")) for name, by_points in metrics.items()}
    if len(set(seeds.values())) > 1:  # a mean over other seeds than the column beside it
        raise ValueError(f"metrics must hold one value per seed of every metric at {n} points, got {seeds} values")
    return f"{n} (longer than trained)" if n > trained_max else str(n)


def hull_polygon_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """The hulls near the paper's setting, one row per point count: polygon accuracy and area coverage
    per seed with their means, and the means of exact-sequence accuracy and of invalid outputs.
    ``metrics`` holds ``"polygon_accuracy"`` besides :func:`hull_table`'s."""
    _check_hull_metrics(metrics, point_counts, ("polygon_accuracy",))
    rows = []
    for n in point_counts:
        label = _points_label(n, trained_max, metrics)
        polygon, area = metrics["polygon_accuracy"][n], metrics["area_coverage"][n]
        rows.append([label, _per_seed(polygon), f"{statistics.mean(polygon):.3f}",
                     f"{statistics.mean(metrics['accuracy'][n]):.3f}", _per_seed(area), f"{statistics.mean(area):.3f}",
                     f"{statistics.mean(metrics['invalid'][n]):.3f}"])
    header = ["points", "polygon accuracy per seed", "mean", "exact sequence, mean", "area coverage per seed",
              "mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrrrr")


def hull_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """Hull accuracy per seed and its mean, mean area coverage and mean fraction of invalid outputs, one
    row per point count (``point_counts``; above ``trained_max`` marked "longer than trained").
    ``metrics``: :data:`HULL_TABLE_METRICS` -> {point count: one fraction per seed}, as
    :func:`ponderlib.experiments.pointer.metric_by_points` gives them."""
    _check_hull_metrics(metrics, point_counts)
    rows = []
    for n in point_counts:
        label = _points_label(n, trained_max, metrics)
        accuracy = metrics["accuracy"][n]
        rows.append([label, _per_seed(accuracy), f"{statistics.mean(accuracy):.3f}",
                     f"{statistics.mean(metrics['area_coverage'][n]):.3f}", f"{statistics.mean(metrics['invalid'][n]):.3f}"])
    header = ["points", "accuracy per seed", "accuracy, mean", "area coverage, mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrr")
