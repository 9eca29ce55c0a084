"""Markdown that renders the same in Jupyter, on Colab and in the built book (MyST).

:func:`markdown_table` builds a GitHub-style table; :func:`show` wraps Markdown for display. The book's
configuration asks MyST-NB to parse generated Markdown as MyST (``nb_render_markdown_format``), so
``$...$`` in a generated cell is math and a table is a table. Every chapter's tables write numbers over
seeds with the helpers here: a mean and its spread (:func:`mean_range`, :func:`range_mean`,
:func:`mean_sd`), a correlation (:func:`signed`, :func:`correlation_range`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

from IPython.display import Markdown

from ponderlib.core.records import finite_numbers
from ponderlib.core.stats import mean
from ponderlib.core.validation import check_groups, check_int, check_not_empty, ensure_type, short
from ponderlib.sweep.evidence import Evidence

MAX_DIGITS = 17
"""The most decimals a table writes (``digits``): a float64 holds 17 significant digits, and a larger count
(``digits=10**9``) would build a string of a gigabyte."""


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None) -> str:
    """A Markdown table with ``header`` and ``rows`` (each as long as ``header``).

    ``align`` gives one letter per column, ``l``, ``r`` or ``c`` (left when omitted). A ``|`` inside a
    cell is escaped, so a cell never splits a row.

    >>> print(markdown_table(["tau", "error"], [[0.01, "3 %"]], align="rr"))
    | tau | error |
    |---:|---:|
    | 0.01 | 3 % |
    """
    if isinstance(header, str) or not isinstance(header, Sequence):
        raise TypeError(f"header must be a sequence of column names, got {type(header).__name__}")
    header = list(header)
    if not header:
        raise ValueError("header must name at least one column")
    align = align or "l" * len(header)
    if len(align) != len(header) or set(align) - set("lrc"):
        raise ValueError(f"align must be one of l, r, c per column ({len(header)} letters), got {align!r}")
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    for i, row in enumerate(rows):
        if isinstance(row, str) or not isinstance(row, Sequence):
            raise ValueError(f"rows[{i}] must be a sequence of cells, got {type(row).__name__}")
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] has {len(row)} cells, the header {len(header)}")
        lines.append("| " + " | ".join(map(_cell, row)) + " |")
    return "\n".join(lines)


def show(markdown: str) -> Markdown:
    """``markdown`` as a displayable object (a notebook shows it rendered, the book parses it as MyST)."""
    return Markdown(markdown)


def listed(values: Sequence[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; ``""`` for none.

    >>> listed(["8", "1", "5"])
    '8, 1 and 5'
    """
    if isinstance(values, str):
        raise TypeError(f"values must be a sequence of strings, got one str {short(repr(values))}")
    values = list(values)
    if len(values) <= 1:
        return "".join(values)
    return f"{', '.join(values[:-1])} and {values[-1]}"


def min_to_max(values: Sequence[float], digits: int = 2) -> str:
    """``"min to max"`` of ``values``, each to ``digits`` decimals: the spread the tables write of numbers over
    seeds (:func:`mean_range`, :func:`range_mean`; a correlation's, with its sign: :func:`correlation_range`).

    >>> min_to_max([0.5, 0.25, 1.0])
    '0.25 to 1.00'
    """
    return f"{min(values):.{digits}f} to {max(values):.{digits}f}"


def mean_range(values: Sequence[float], digits: int = 2) -> str:
    """``"mean (min to max)"`` over seeds.

    >>> mean_range([1, 2, 6])
    '3.00 (1.00 to 6.00)'
    """
    values = finite(values, digits=digits)
    return f"{mean(values):.{digits}f} ({min_to_max(values, digits)})"


def range_mean(values: Sequence[float], digits: int = 2) -> str:
    """``"min to max (mean m)"`` over seeds.

    >>> range_mean([0.5, 0.25, 1.0])
    '0.25 to 1.00 (mean 0.58)'
    """
    values = finite(values, digits=digits)
    return f"{min_to_max(values, digits)} (mean {mean(values):.{digits}f})"


def mean_sd(values: Sequence[float], digits: int = 2) -> str:
    """``"mean ± sd"`` over seeds (the sample standard deviation; the mean alone for one value).

    >>> mean_sd([1.0, 3.0], 1), mean_sd([2.0])
    ('2.0 ± 1.4', '2.00')
    """
    values = finite(values, digits=digits)
    average = mean(values)
    if len(values) == 1:
        return f"{average:.{digits}f}"
    try:
        sd = math.sqrt(sum((v - average) ** 2 for v in values) / (len(values) - 1))
    except OverflowError:
        raise ValueError(f"values must spread less than a float's range (their variance overflows), got {short(repr(values))}") from None
    return f"{average:.{digits}f} ± {sd:.{digits}f}"


def signed(r: float, digits: int = 2) -> str:
    """A correlation with its sign, ``"+0.24"``, or ``"undefined (constant N)"`` for NaN (the ponder steps
    did not vary, so ``r`` has no value).

    >>> signed(0.2393), signed(-0.5, 3), signed(float("nan"))
    ('+0.24', '-0.500', 'undefined (constant N)')
    """
    check_int("digits", digits, minimum=0, maximum=MAX_DIGITS)
    if isinstance(r, bool) or not isinstance(r, numbers.Real):
        raise TypeError(f"r must be a number (a correlation, NaN where undefined), got {type(r).__name__}")
    if not math.isnan(r) and not -1.0 - 1e-9 <= r <= 1.0 + 1e-9:  # a float's rounding may pass 1 by a hair
        raise ValueError(f"r must be a correlation in [-1, 1] (NaN where undefined), got {r!r}")
    return "undefined (constant N)" if math.isnan(r) else f"{r:+.{digits}f}"


def correlation_range(rs: Sequence[float], constant: str, count_undefined: bool = False) -> str:
    """The range of a correlation ``r`` over seeds, ``"-0.20 to +0.50"`` (:func:`signed`, two decimals), over the
    seeds where it is defined: a seed whose ``constant`` (the ponder steps) did not vary has none (NaN), said
    in words, ``"undefined (constant ...)"``, where no seed has one; with ``count_undefined``, how many seeds
    have none follows the range.

    >>> correlation_range([0.5, float("nan"), -0.2], "$N$")
    '-0.20 to +0.50'
    >>> correlation_range([float("nan")], "$N$")
    'undefined (constant $N$)'
    >>> correlation_range([0.5, float("nan")], "$N$",
    ...                   count_undefined=True)
    '+0.50 to +0.50; undefined in 1 of 2 (constant $N$)'
    """
    defined = [r for r in rs if not math.isnan(r)]
    if not defined:
        return f"undefined (constant {constant})"
    text = f"{signed(min(defined))} to {signed(max(defined))}"
    undefined = len(rs) - len(defined)
    return f"{text}; undefined in {undefined} of {len(rs)} (constant {constant})" if count_undefined and undefined else text


def finite(values: Sequence[float], name: str = "values", digits: int | None = None) -> list[float]:
    """``values`` as a list of at least one number, none NaN or infinite (a table never prints ``nan`` or
    ``inf`` for a run's result, nor a mean of ``inf`` and ``-inf``); ``name`` is the argument an error names
    (``TypeError`` for what is not a collection of numbers). ``digits``, where given, must be an integer in
    ``[0, MAX_DIGITS]``: the decimals the caller writes."""
    if digits is not None:
        check_int("digits", digits, minimum=0, maximum=MAX_DIGITS)
    values = finite_numbers(name, values)
    if not math.isfinite(sum(values)):  # the mean a table writes would be inf
        raise ValueError(f"{name} must sum to a finite number (a float's range), got {short(repr(values))}")
    return values


def require_groups(name: str, groups: Mapping) -> None:
    """Refuse an empty ``groups`` (label -> runs) or a label with no runs, naming the argument ``name``:
    a table of nothing would hide a missing evidence set."""
    check_groups(name, groups)


def evidence_table(sets: Sequence) -> str:
    """A reproduction report's list of evidence sets, one row per set (an
    :class:`~ponderlib.sweep.evidence.Evidence`): its preset, runs (of those planned), training updates per
    run, CPU-minutes of training (one thread per run), the machine and torch it ran on, and the commit."""
    check_not_empty("sets", sets, "evidence set")
    for index, evidence in enumerate(sets):
        ensure_type(f"sets[{index}]", evidence, Evidence)
    rows = []
    for evidence in sets:
        cost = evidence.cost()
        runs = f"{cost['runs']}" if evidence.complete else f"{cost['runs']} of {evidence.preset.runs}"
        rows.append([
            f"`{evidence.name}`", runs, f"{cost['updates']:,}", f"{cost['cpu_minutes']:.0f}",
            ", ".join(cost["devices"]) + f"; torch {', '.join(cost['torch'])}" if cost["runs"] else "(not run yet)",
            ", ".join(cost["commits"]) or "(none)",
        ])
    header = ["evidence set", "runs", "updates per run", "CPU-minutes", "ran on", "commit"]
    return markdown_table(header, rows, align="lrrrll")
