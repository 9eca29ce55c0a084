"""A run's summary, one type whether the run was trained a moment ago or read back from a results file.

:class:`RunSummary` is the JSON record a run reports (its task, seed, config, the numbers it measured and
its learning curve): ``result.summary()`` of a live run, and each run of a results file such as the
committed evidence (:class:`~ponderlib.sweep.evidence.Evidence`), are both one. Its :class:`Curve` answers
the questions the chapters ask of a learning curve (when did it reach a value, how much did it gain
since an evaluation, was it still rising), for a live :class:`~ponderlib.core.engine.History` and for a
record alike. Each entry is read by name and checked, with an error that names the entry and what it
holds (:func:`summary_value`, :func:`summary_number`, :func:`summary_numbers`, for any mapping).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ponderlib.core.validation import (
    check_finite,
    check_int,
    check_not_empty,
    short,
)


def finite_numbers(name: str, values: Any, what: str = "number") -> list[float]:
    """``values`` as a list of at least one float, none NaN or infinite, naming ``name``: ``TypeError`` for what
    is not a collection of numbers (a str included), ``ValueError`` for none, a NaN or an infinity."""
    check_not_empty(name, values, what)
    if any(isinstance(v, (str, bytes)) for v in values):  # float("1") would read a text as a number
        raise TypeError(f"{name} must hold numbers, got {short(repr(list(values)))}")
    try:
        values = [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers, got {short(repr(list(values)))}") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name} must hold no NaN or infinity, got {short(repr(values))}")
    return values


@dataclass(frozen=True)
class Curve:
    """A run's learning curve: at each held-out evaluation, the training updates done (``update``), and each
    series the run recorded there (``metrics``: the mean training loss since the evaluation before,
    ``loss``, then every held-out metric, in the order recorded).

    :meth:`of` reads it from a live run's :class:`~ponderlib.core.engine.History` (its own numbers) or
    from a summary's ``curve`` (rounded to 4 decimals, as results files keep it), so that a live run and
    the committed evidence are asked the same questions the same way.
    """

    update: tuple[int, ...]
    metrics: Mapping[str, Sequence[float | None]]

    @classmethod
    def of(cls, curve: Any) -> Curve:
        """``curve`` as a :class:`Curve`: itself, a :class:`~ponderlib.core.engine.History` (held-out metrics
        only), or a summary's ``curve`` (a mapping of ``update`` and one list per series); ``TypeError``
        otherwise."""
        if isinstance(curve, Curve):
            return curve
        if isinstance(curve, Mapping):
            return cls.from_json(curve)
        if hasattr(curve, "update") and hasattr(curve, "metrics"):
            return cls(tuple(curve.update), dict(curve.metrics))
        raise TypeError(f"curve must be a History or a summary's curve (a mapping), got {type(curve).__name__}")

    @classmethod
    def from_json(cls, curve: Mapping[str, Any]) -> Curve:
        """A summary's ``curve``; ``ValueError`` naming ``update`` when it has none."""
        updates = summary_value(curve, "update", "curve")
        return cls(tuple(updates), {name: values for name, values in curve.items() if name != "update"})

    def to_json(self) -> dict[str, list]:
        """The curve as a summary holds it (``update``, then each series)."""
        return {"update": list(self.update), **{name: list(values) for name, values in self.metrics.items()}}

    def values(self, metric: str) -> list[float]:
        """Held-out ``metric`` at each evaluation; ``ValueError`` naming the metrics recorded when it is not
        one of them, or when a value is missing, NaN or infinite."""
        values = self.metrics.get(metric) if isinstance(metric, str) else None
        if not values:
            names = ", ".join(repr(name) for name in self.metrics)
            raise ValueError(f"metric must be one the curve recorded ({names}); got {metric!r}")
        if len(values) != len(self.update):
            raise ValueError(f"the curve holds {len(self.update)} updates but {len(values)} values of {metric!r}")
        finite_numbers(f"curve[{metric!r}]", values, "evaluation")
        return list(values)

    def reach(self, metric: str, threshold: float) -> int | None:
        """The first training update at which ``metric`` reached ``threshold`` (at least it), or None when no
        evaluation did: how fast a run learns.

        >>> curve = Curve.of({"update": [500, 1000, 1500],
        ...                   "exact_match": [0.6, 0.96, 0.9]})
        >>> curve.reach("exact_match", 0.95)
        1000
        """
        values = self.values(metric)
        check_finite("threshold", threshold)
        return next((int(update) for update, value in zip(self.update, values) if value >= threshold), None)

    def gain_since(self, metric: str, update: int) -> float:
        """How much ``metric`` changed from training update ``update`` (one the curve evaluated) to the last
        evaluation: near zero when a run had stopped improving.

        >>> curve = Curve.of({"update": [1000, 2000, 3000],
        ...                   "accuracy": [0.8, 0.9, 0.92]})
        >>> round(curve.gain_since("accuracy", 2000), 4)
        0.02
        """
        values = self.values(metric)
        check_int("update", update, minimum=0)
        evaluated = [int(u) for u in self.update]
        if update not in evaluated:
            raise ValueError(f"update must be one the curve evaluated ({evaluated[0]} to {evaluated[-1]}); got {update}")
        return values[-1] - values[evaluated.index(update)]

    def rising_at_end(self, metric: str) -> bool:
        """Whether ``metric`` was still improving when the budget ended: its last value is above its value
        halfway through the evaluations (``values[len(values) // 2]``)."""
        values = self.values(metric)
        return values[-1] > values[len(values) // 2]


class RunSummary(dict):
    """A run's JSON summary, as a run reports it and a results file keeps it: a ``dict`` (what is written is
    what is read back), with the entries every run has as attributes.

    One type for a live run (``result.summary()``) and a record read back (``Evidence(...).runs()``), so
    every reader of runs takes either. :meth:`of` takes a trained result, a summary, or any mapping that
    is one.
    """

    @classmethod
    def of(cls, run: Any) -> RunSummary:
        """``run``'s summary: ``run.summary()`` for a trained result, ``run`` itself for a summary (a record
        of a results file, such as the committed evidence); ``ValueError`` for anything else."""
        if isinstance(run, RunSummary):
            return run
        if hasattr(run, "summary"):
            return cls.of(run.summary())
        if isinstance(run, Mapping):
            return cls.from_json(run)
        raise ValueError(f"run must be a trained result or its summary (a mapping), got {type(run).__name__}")

    @classmethod
    def from_json(cls, summary: Mapping[str, Any]) -> RunSummary:
        """A summary as JSON holds it; ``TypeError`` unless it is a mapping."""
        if not isinstance(summary, Mapping):
            raise TypeError(f"run's summary must be a mapping, got {type(summary).__name__}")
        return cls(summary)

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON writes it: a plain ``dict``, entries in their order."""
        return dict(self)

    @property
    def task(self) -> str:
        return summary_value(self, "task")

    @property
    def seed(self) -> int:
        return summary_value(self, "seed")

    @property
    def config(self) -> Mapping[str, Any]:
        """The run's config, every field (``TrainConfig.to_dict``)."""
        return summary_value(self, "config")

    @property
    def curve(self) -> Curve:
        """The learning curve (:class:`Curve`); ``ValueError`` for a summary without one."""
        return Curve.from_json(summary_value(self, "curve"))


def summary_value(summary: Mapping[str, Any], name: str, where: str = "run's summary") -> Any:
    """``summary[name]``; ``ValueError`` naming ``where`` and the entry when ``summary`` is no mapping, or
    the entry is missing or None (a record written before the entry existed, or a run that never measured it)."""
    if not isinstance(summary, Mapping):
        raise TypeError(f"{where} must be a mapping (a run's summary), got {type(summary).__name__}")
    value = summary.get(name)
    if value is None:
        raise ValueError(f"{where} must have the entry {name!r}; it has {short(', '.join(map(str, summary)))}")
    return value


def _number_in(value: Any, low: float, high: float) -> bool:
    # NaN is not; nor an infinity, or an integer too large for a float (10**400 in a JSON file: float() overflows)
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    return number and low <= value <= high and abs(value) <= sys.float_info.max


def summary_number(
    summary: Mapping[str, Any], name: str, low: float = -math.inf, high: float = math.inf, where: str = "run's summary"
) -> float:
    """:func:`summary_value`, which must be a number in ``[low, high]`` (NaN refused), naming the entry."""
    value = summary_value(summary, name, where)
    if not _number_in(value, low, high):
        raise ValueError(f"{where} entry {name!r} must be a number in [{low:g}, {high:g}], got {short(repr(value))}")
    return float(value)


def summary_numbers(
    summary: Mapping[str, Any],
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    where: str = "run's summary",
    keyed: bool = False,
) -> Any:
    """:func:`summary_value`, which must be a non-empty list of numbers (``keyed``: a mapping to numbers,
    one per difficulty), each in ``[low, high]`` (NaN refused), naming the entry; returned as it is."""
    value = summary_value(summary, name, where)
    container = "mapping" if keyed else "list"
    values = list(value.values()) if keyed and isinstance(value, Mapping) else value
    if not isinstance(values, list) or not values or not all(_number_in(v, low, high) for v in values):
        raise ValueError(
            f"{where} entry {name!r} must be a non-empty {container} of numbers in [{low:g}, {high:g}], "
            f"got {short(repr(value))}"
        )
    return value
