"""Reading a run's JSON summary (a live result's ``summary()``, or a record of a results file such as the
committed evidence): each entry by name, checked, with an error that names the entry and what it holds.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Mapping
from typing import Any

from ponderlib.core.validation import (
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


def run_summary(run: Any) -> Mapping[str, Any]:
    """A run's JSON summary: ``run.summary()`` for a trained result, ``run`` itself when it is already a
    summary (a record of a sweep's results, such as the committed evidence)."""
    if hasattr(run, "summary"):
        return run.summary()
    if isinstance(run, Mapping):
        return run
    raise ValueError(f"run must be a trained result or its summary (a mapping), got {type(run).__name__}")


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
