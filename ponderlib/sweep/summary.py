"""A sweep's numbers, summarized: what each run measured, and the mean and spread over seeds per grid
point, as rows (:func:`summarize`) or text tables (:func:`format_summary`).

:mod:`ponderlib.figures.sweep` draws the same records.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ponderlib.core.records import summary_value
from ponderlib.sweep.results import check_record, run_key

RUN_FIELDS = ("reached_target", "seconds_to_target", "seconds", "updates")
"""Summary entries every task has (how the run went, not what the task measured): listed last."""

NOT_METRICS = {"seed", "torch_threads", "interrupted"}
"""Numeric summary entries that describe a run rather than measure it (config fields are excluded too)."""


def run_metrics(summary: Mapping[str, Any], keep_unmeasured: bool = False) -> dict[str, float]:
    """The numbers one run measured, from its summary: every number (bools as 0 or 1, so their mean
    over seeds is a fraction) except the config's fields, the seed and the thread count; a nested
    mapping (``exact_match_by_length``) as ``name.key``; None left out, and NaN or an infinity (not
    measured, as a correlation where every sample ran alike) left out too, or, with ``keep_unmeasured``,
    kept as NaN, so that a metric no seed measured is still listed (an integer too large for a float, as a results
    file may hold, counts as an infinity). ``TypeError`` unless ``summary`` is a mapping."""
    if not isinstance(summary, Mapping):
        raise TypeError(f"summary must be a run's summary (a mapping), got {type(summary).__name__}")
    skip = NOT_METRICS | set(summary.get("config", {})) | {"config"}
    metrics: dict[str, float] = {}

    def collect(prefix: str, mapping: Mapping) -> None:
        for name, value in mapping.items():
            if isinstance(value, Mapping):
                collect(f"{prefix}{name}.", value)
            elif isinstance(value, (bool, int, float)):
                finite = abs(value) <= sys.float_info.max  # NaN and infinities are not, nor an int float() overflows
                if keep_unmeasured or finite:
                    metrics[f"{prefix}{name}"] = float(value) if finite else math.nan

    collect("", {name: value for name, value in summary.items() if name not in skip})
    return metrics


def _spread(values: list[float]) -> dict[str, float | int | None]:
    """``n``, mean, sample standard deviation, min and max of the finite ``values``; None where there are
    too few (no seed measured the metric: every statistic None)."""
    measured = [value for value in values if math.isfinite(value)]
    if not measured:
        return {"n": 0, "mean": None, "std": None, "min": None, "max": None}
    return {
        "n": len(measured),
        "mean": math.fsum(value / len(measured) for value in measured),  # no overflow near float's largest
        "std": statistics.stdev(measured) if len(measured) > 1 else None,
        "min": min(measured),
        "max": max(measured),
    }


def summarize(records: Iterable[Mapping]) -> list[dict]:
    """Mean and spread over seeds per grid point, for every metric the runs measured (:func:`run_metrics`).

    Runs are grouped by task and whole config but the seed, so sweeps with different fixed fields
    stay apart; a run listed twice counts once. ``TypeError`` naming the first record that is not a
    sweep record (:func:`~ponderlib.sweep.results.check_record`).

    Returns:
        one row per group, in the order first seen: ``{"task", "point", "config", "seeds",
        "metrics": {name: {"n", "mean", "std", "min", "max"}}}``, where ``config`` is the config
        without the seed, ``std`` the sample standard deviation over seeds (None for one seed) and
        ``n`` the number of seeds that measured the metric (``seconds_to_target`` exists only where
        the target was reached; a metric NaN in every seed has ``n`` 0 and the rest None).
    """
    if not isinstance(records, Iterable):
        raise TypeError(f"records must be an iterable of sweep records, got {type(records).__name__}")
    groups: dict[str, dict] = {}
    seen: set[str] = set()
    for index, record in enumerate(records):
        check_record(record, f"records[{index}]")
        config = record["config"]
        key = run_key(record["task"], config)
        if key in seen:
            continue
        seen.add(key)
        setting = {name: value for name, value in config.items() if name != "seed"}
        group = groups.setdefault(
            run_key(record["task"], setting),
            {"task": record["task"], "point": record["point"], "config": setting, "seeds": [], "values": {}},
        )
        group["seeds"].append(record["seed"])
        for name, value in run_metrics(record["summary"], keep_unmeasured=True).items():
            group["values"].setdefault(name, []).append(value)
    return [
        {**{k: v for k, v in group.items() if k != "values"}, "metrics": {n: _spread(v) for n, v in group["values"].items()}}
        for group in groups.values()
    ]


def format_summary(rows: Sequence[Mapping], nested: bool = False) -> str:
    """:func:`summarize`'s rows as text: one table per metric, one line per grid point (the fields that
    differ between rows, the number of seeds, mean, std, min, max over seeds).

    Metrics inside a mapping (``accuracy_by_difficulty.7``: one per difficulty or length) get a table
    each only with ``nested=True``; otherwise a last line counts them.
    """
    if not isinstance(rows, Sequence) or isinstance(rows, str) or not all(isinstance(row, Mapping) for row in rows):
        raise TypeError(f"rows must be summarize()'s list of rows (mappings), got {type(rows).__name__}")
    if not rows:
        return "no runs"
    for index, row in enumerate(rows):
        for entry in ("task", "point", "config", "metrics"):
            summary_value(row, entry, f"rows[{index}]")
    columns = ["task"] if len({row["task"] for row in rows}) > 1 else []
    for row in rows:
        for name in row["point"]:
            if name not in columns:
                columns.append(name)
    for name in rows[0]["config"]:
        if name not in columns and len({json.dumps(row["config"].get(name)) for row in rows}) > 1:
            columns.append(name)
    every_metric = dict.fromkeys(name for row in rows for name in row["metrics"])
    metrics = sorted((name for name in every_metric if nested or "." not in name), key=lambda name: name in RUN_FIELDS)
    blocks = []
    for metric in metrics:
        header = [*columns, "seeds", "mean", "std", "min", "max"]
        lines = [header]
        for row in rows:
            if metric not in row["metrics"]:
                continue
            stats = row["metrics"][metric]
            setting = [row["task"] if name == "task" else row["config"].get(name, row["point"].get(name)) for name in columns]
            numbers = [stats[k] for k in ("mean", "std", "min", "max")]
            lines.append([*map(_cell, setting), str(stats["n"]), *map(_cell, numbers)])
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        table = ["  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in lines]
        blocks.append("\n".join([metric, *table]))
    if len(metrics) < len(every_metric):
        groups = sorted({name.split(".")[0] for name in every_metric if "." in name})
        blocks.append(f"and {len(every_metric) - len(metrics)} metrics per difficulty or length ({', '.join(groups)}): see --json")
    return "\n\n".join(blocks)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
