"""Markdown that renders the same in Jupyter, on Colab and in the built book (MyST).

:func:`markdown_table` builds a GitHub-style table; :func:`show` wraps Markdown for display. The book's
configuration asks MyST-NB to parse generated Markdown as MyST (``nb_render_markdown_format``), so
``$...$`` in a generated cell is math and a table is a table.
"""

from __future__ import annotations

from collections.abc import Sequence

from IPython.display import Markdown


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
    header = list(header)
    if not header:
        raise ValueError("header must name at least one column")
    align = align or "l" * len(header)
    if len(align) != len(header) or set(align) - set("lrc"):
        raise ValueError(f"align must be one of l, r, c per column ({len(header)} letters), got {align!r}")
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    for i, row in enumerate(rows):
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] has {len(row)} cells, the header {len(header)}")
        lines.append("| " + " | ".join(map(_cell, row)) + " |")
    return "\n".join(lines)


def verdict(rate) -> str:
    """A paper claim's verdict from its rate over the evidence's seeds (a
    :class:`~ponderlib.sweep.evidence.Rate`): reproduced in every seed, not reproduced (in at most a
    quarter of them), or mixed in between.

    >>> from ponderlib.sweep.evidence import Rate
    >>> verdict(Rate(20, 20))
    'reproduced in every seed (20 of 20 seeds)'
    >>> verdict(Rate(5, 20)), verdict(Rate(6, 20))
    ('not reproduced (5 of 20 seeds)', 'mixed: 6 of 20 seeds')
    """
    if rate.holds == rate.runs:
        return f"reproduced in every seed ({rate})"
    return f"not reproduced ({rate})" if rate.holds <= rate.runs // 4 else f"mixed: {rate}"


def number_word(n: int) -> str:
    """``n`` in words up to ten, in digits above: "three seeds", "20 seeds".

    >>> number_word(3), number_word(12)
    ('three', '12')
    """
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    return words[n] if 0 <= n < len(words) else str(n)


def show(markdown: str) -> Markdown:
    """``markdown`` as a displayable object (a notebook shows it rendered, the book parses it as MyST)."""
    return Markdown(markdown)


def listed(values: Sequence[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; ``""`` for none.

    >>> listed(["8", "1", "5"])
    '8, 1 and 5'
    """
    values = list(values)
    if len(values) <= 1:
        return "".join(values)
    return f"{', '.join(values[:-1])} and {values[-1]}"


def graded(holds: int, out_of: int, cases: str) -> str:
    """A verdict from how many of ``out_of`` ``cases`` bear a claim out: "reproduced" (all), "not
    reproduced" (none) or "partly" (some), with the count.

    >>> graded(3, 3, "runs")
    'reproduced: 3 of 3 runs'
    >>> graded(2, 5, "seeds")
    'partly: 2 of 5 seeds'
    >>> graded(0, 4, "taus")
    'not reproduced: 0 of 4 taus'
    """
    if out_of < 1 or not 0 <= holds <= out_of:
        raise ValueError(f"holds must lie in [0, out_of] and out_of be at least 1, got {holds} of {out_of}")
    word = "reproduced" if holds == out_of else "not reproduced" if holds == 0 else "partly"
    return f"{word}: {holds} of {out_of} {cases}"


def evidence_table(sets: Sequence) -> str:
    """A reproduction report's list of evidence sets, one row per set (an
    :class:`~ponderlib.sweep.evidence.Evidence`): its preset, runs (of those planned), training updates per
    run, CPU-minutes of training (one thread per run), the machine and torch it ran on, and the commit."""
    if len(sets) == 0:
        raise ValueError("sets must hold at least one evidence set, got none")
    rows = []
    for evidence in sets:
        cost = evidence.cost()
        runs = f"{cost['runs']}" if evidence.complete else f"{cost['runs']} of {evidence.preset.runs}"
        rows.append([
            f"`{evidence.name}`", runs, f"{cost['updates']:,}", f"{cost['cpu_minutes']:.0f}",
            ", ".join(cost["devices"]) + f"; torch {', '.join(cost['torch'])}", ", ".join(cost["commits"]),
        ])
    header = ["evidence set", "runs", "updates per run", "CPU-minutes", "ran on", "commit"]
    return markdown_table(header, rows, align="lrrrll")
