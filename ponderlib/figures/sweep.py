"""The figure of a sweep: one metric against one grid field, each seed a point (a shade of its method's
colour) and the mean over seeds a line, one colour per method (:mod:`ponderlib.figures.style`, the same
in every chapter), drawn in the book's style (:func:`~ponderlib.figures.style.book_figure`).

It reads the records of a results file (:func:`ponderlib.sweep.load_results`, or a
:class:`~ponderlib.sweep.SweepReport`'s ``records``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, NullLocator

from ponderlib.core.stats import mean
from ponderlib.figures import style
from ponderlib.sweep import run_metrics
from ponderlib.sweep.results import check_record

TASK_METHODS = {"sequence_parity": "act", "convex_hull": "pointer"}
"""The method of a task whose runs name none (sequence parity is ACT's task; convex hulls the pointer network's)."""

AXIS_LABELS = {
    "tau": r"time penalty $\tau$",
    "lambda_p": r"prior parameter $\lambda_p$",
    "beta": r"KL weight $\beta$",
    "n_elems": "parity vector length (elements)",
    "hidden": "GRU cell size (units)",
    "halting_bias_init": "initial halting bias $b_h$",
    "ponder_difficulty_correlation": "r(difficulty, ponder steps)",
    "final_accuracy": "held-out accuracy (fraction correct)",
    "mean_ponder_steps": "mean ponder steps at inference",
    "exact_match": "exact match on the test set (fraction)",
    "element_accuracy": "element accuracy on the test set (fraction)",
    "reached_target": "fraction of seeds reaching the target",
    "seconds_to_target": "seconds to the target (s)",
    "seconds": "training time (s)",
    "updates": "training updates",
}
"""Axis labels, with units, for the usual grid fields and metrics; other names are used as they are."""


def method_of(record: Mapping[str, Any]) -> str:
    """The method a run trained, a key of :data:`ponderlib.figures.style.STYLES`: the config's ``method``
    (parity, chains) or ``decoder`` (sorting), or the task's one method (:data:`TASK_METHODS`)."""
    config = record["config"]
    if "method" in config:
        return config["method"]
    if "decoder" in config:
        return config["decoder"]
    if record["task"] not in TASK_METHODS:
        raise ValueError(f"record of task {record['task']!r} names no method or decoder")
    return TASK_METHODS[record["task"]]


@style.book_figure
def plot_sweep(
    records: Sequence[Mapping[str, Any]],
    x: str,
    metric: str,
    where: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Figure:
    """``metric`` against the config field ``x``: every seed as a dot (one shade of the method's colour per
    seed), the mean over seeds as a line, one colour per method; the legend under the axes.

    Args:
        records: a sweep's records (one per run).
        x: the config field on the horizontal axis (a grid field: ``"tau"``, ``"lambda_p"``); the axis
            is logarithmic when its values are positive and span two decades or more. Eight values or
            fewer each get a tick (and no other ticks); more, ticks at whole numbers when the values are.
        metric: a metric of :func:`ponderlib.sweep.run_metrics` (``"final_accuracy"``,
            ``"mean_ponder_steps"``, ``"exact_match_by_length.20"``).
        where: ``{field: value}`` the runs' configs must match (to pick one value of a third grid field).
        title: the title (short: the figure is :data:`~ponderlib.figures.style.MAX_WIDTH` wide); default
            the metric, the field and the number of seeds.

    Raises ``TypeError`` naming a record that is not a sweep record, or a ``where`` that is no mapping;
    ``ValueError`` when no run matches, the runs lack ``x`` or ``metric``, or the runs left differ in
    a grid field other than ``x`` and the method (pick one value with ``where``).
    """
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
        raise TypeError(f"records must be a list of sweep records, got {type(records).__name__}")
    for index, record in enumerate(records):
        check_record(record, f"records[{index}]")
    if where is not None and not isinstance(where, Mapping):
        raise TypeError(f"where must be a mapping {{field: value}} or None, got {type(where).__name__}")
    where = dict(where or {})
    chosen = [r for r in records if all(r["config"].get(k) == v for k, v in where.items())]
    if not chosen:
        raise ValueError(f"no run matches where={where!r} among the {len(records)} records")
    config = chosen[0]["config"]
    if x not in config:
        raise ValueError(f"x={x!r} is not a config field of the runs; fields: {', '.join(config)}")
    measured = dict.fromkeys(name for record in chosen for name in run_metrics(record["summary"]))
    if metric not in measured:
        raise ValueError(f"metric={metric!r} is not measured by the runs; metrics: {', '.join(measured)}")
    for field in dict.fromkeys(name for r in chosen for name in r["point"]):
        values = {json.dumps(r["config"].get(field)) for r in chosen}
        if field not in (x, "method", "decoder") and len(values) > 1:
            raise ValueError(
                f"the runs differ in {field!r} ({', '.join(sorted(values))}) besides x={x!r}: pick one with where={{{field!r}: ...}}"
            )

    by_method: dict[str, dict[float, list[tuple[int, float]]]] = {}
    for record in chosen:
        value = run_metrics(record["summary"]).get(metric)
        if value is not None:  # seconds_to_target exists only where the target was reached
            by_method.setdefault(method_of(record), {}).setdefault(record["config"][x], []).append(
                (record["seed"], value)
            )

    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 3.9))
    n_seeds = 0
    for method, by_x in by_method.items():
        seeds = sorted({seed for runs in by_x.values() for seed, _ in runs})
        shade = dict(zip(seeds, style.seed_colors(method, len(seeds))))
        xs = sorted(by_x)
        points = [(v, seed, y) for v in xs for seed, y in by_x[v]]
        ax.scatter(
            [v for v, _, _ in points],
            [y for _, _, y in points],
            s=16,
            c=[shade[seed] for _, seed, _ in points],
            alpha=0.7,
            linewidths=0,
        )
        per_x = max(len(runs) for runs in by_x.values())
        label = "one seed" if per_x == 1 else f"each seed (dots), mean of {per_x} seeds (line)"
        ax.plot(
            xs,
            [mean([y for _, y in by_x[v]]) for v in xs],
            "o-",
            color=style.color(method),
            ms=5,
            label=f"{style.label(method)}: {label}",
        )
        n_seeds = max(n_seeds, per_x)
    xs_all = sorted({record["config"][x] for record in chosen})
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_all)
    if numeric and min(xs_all) > 0 and max(xs_all) >= 100 * min(xs_all):
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    if numeric and len(xs_all) <= 8:
        ax.set_xticks(xs_all, [f"{v:g}" for v in xs_all])
        ax.xaxis.set_minor_locator(NullLocator())
    elif numeric and all(float(v).is_integer() for v in xs_all):
        style.integer_ticks(ax.xaxis)
    ax.set_xlabel(AXIS_LABELS.get(x, x))
    ax.set_ylabel(AXIS_LABELS.get(metric, metric))
    seeds_text = "one seed" if n_seeds == 1 else f"{n_seeds} seeds"
    ax.set_title(title or f"{metric} against {x}, {seeds_text}")
    style.legend_below(fig, ax, ncol=1)
    return fig
