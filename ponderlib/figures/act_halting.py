"""Chapter 1's figures of ACT's halting mechanics, drawn from the numbers of single inputs: the halting units
``h_n`` and their running sum crossing ``1 - eps``, the ponder cost ``rho = N + R`` and its sawtooth as the
units are scaled, and ``N(t)`` of ACT inside an RNN, time step by time step. Runs over seeds and time
penalties are :mod:`ponderlib.figures.act`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ponderlib.core.records import finite_numbers
from ponderlib.core.validation import check_fraction, check_not_empty, check_rank
from ponderlib.figures import style


@style.book_figure
def plot_halting_sum(
    halting_units: Sequence[Sequence[float]], eps: float, labels: Sequence[str] | None = None
) -> Figure:
    """ACT's halting units ``h_n`` (bars) and their running sum (line) crossing ``1 - eps``, one panel per sample.

    Args:
        halting_units: ``h_n`` per sample, shape ``(B, max_ponder_steps)`` (nested lists or a tensor).
        eps: the slack of the halting threshold ``1 - eps``.
        labels: a title per panel (default ``"sample b"``).

    The bars up to ``N(t)`` are drawn in ACT's colour, with the last one cut to the remainder
    ``R(t)`` (the hatched part of ``h_N`` is the part ACT does not use); later steps are grey. Two
    panels in a row at most (three samples: a 2 x 2 grid, the legend in the fourth place; otherwise
    under the panels).
    """
    check_fraction("eps", eps, include_one=False)
    check_not_empty("halting_units", halting_units, "sample")
    rows = [finite_numbers(f"halting_units[{b}]", row, "h_n") for b, row in enumerate(halting_units)]
    if labels is not None and (isinstance(labels, str) or len(labels) != len(rows)):
        raise ValueError(f"labels must hold one title per sample ({len(rows)}), got {labels!r}")
    fig, axes, empty = style.panel_grid(len(rows), 3.0 if len(rows) > 1 else 4.3)
    color = style.color("act")
    for b, (ax, row) in enumerate(zip(axes, rows)):
        steps = list(range(1, len(row) + 1))
        running, cumulative = 0.0, []
        for h in row:
            running += h
            cumulative.append(running)
        crossed = [n for n, total in zip(steps, cumulative) if total >= 1.0 - eps]
        halt_step = crossed[0] if crossed else len(row)
        remainder = 1.0 - sum(row[: halt_step - 1])
        for n, h in zip(steps, row):
            if n < halt_step:
                ax.bar(n, h, color=color, width=0.6, label="used: $p_n$ ($h_n$, then $R$)")
            elif n == halt_step:
                ax.bar(n, remainder, color=color, width=0.6)
                if h > remainder:  # at the max_ponder_steps cap R can exceed h_N, and nothing goes unused
                    ax.bar(
                        n,
                        h - remainder,
                        bottom=remainder,
                        color="white",
                        edgecolor=color,
                        hatch="//",
                        width=0.6,
                        label="$h_N - R$: not used",
                    )
            else:
                ax.bar(n, h, color="#cccccc", width=0.6, label="after halting: $p_n = 0$")
        ax.plot(steps, cumulative, "o-", color="black", ms=4, lw=1, label="running sum of $h_n$")
        ax.axhline(1.0 - eps, color="black", ls="--", lw=0.8, label=rf"$1-\epsilon = {1.0 - eps:g}$")
        label = labels[b] if labels else f"sample {b}"
        ax.set_title(f"{label}\nN = {halt_step}, R = {remainder:.2f}, ρ = {halt_step + remainder:.2f}")
        ax.set_xlabel("ponder step n")
        ax.set_xticks(steps)
    for ax in axes[:: min(len(axes), 2)]:
        ax.set_ylabel("$h_n$ and running sum")
    fig.suptitle(r"ACT halts where the running sum of $h_n$ reaches $1 - \epsilon$")
    style.grid_legend(fig, axes, empty, ncol=2)
    return fig


@style.book_figure
def plot_ponder_cost_sawtooth(scales, ponder_steps, remainder, gradient) -> Figure:
    """``R``, ``N`` and ``rho = N + R`` as the halting units are scaled up, next to the gradient autograd gives ``rho``.

    Args:
        scales: the scale ``c`` of the halting units ``h_n = c a_n``, shape ``(C,)``, increasing.
        ponder_steps: ``N(t)`` at each scale, shape ``(C,)``.
        remainder: ``R(t)`` at each scale, shape ``(C,)``.
        gradient: ``d rho / d c`` from autograd at each scale, shape ``(C,)``.

    Between the points where ``N`` drops by one, ``R`` (and with it ``rho``) falls linearly with
    slope ``-sum_{n<N} a_n``; where ``N`` drops, ``R`` jumps up and ``rho`` jumps down. The slope is
    all the gradient sees (Graves eq. 14): a sawtooth in ``R``, a staircase of ramps in ``rho``.
    """
    check_not_empty("scales", scales, "scale")
    c = [float(v) for v in scales]
    steps = [float(v) for v in ponder_steps]
    remainders = [float(v) for v in remainder]
    color = style.color("act")
    fig, (ax_cost, ax_gradient) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.6))
    ax_cost.plot(c, [n + r for n, r in zip(steps, remainders)], color=color, label=r"$\rho = N + R$")
    ax_cost.step(c, steps, where="post", color="black", ls="--", lw=1, label="$N$")
    ax_cost.plot(c, remainders, color=color, ls=":", lw=2, label="$R$ (a sawtooth)")
    ax_cost.set_ylabel("ponder steps")
    ax_cost.set_title(r"$R$ jumps where $N$ drops")
    ax_gradient.plot(c, [float(v) for v in gradient], color=color, label=r"$d\rho / dc$ from autograd")
    ax_gradient.axhline(0.0, color="black", lw=0.6)
    ax_gradient.set_ylabel(r"$d\rho / dc$ from autograd")
    ax_gradient.set_title("The gradient: slope only")
    for ax in (ax_cost, ax_gradient):
        ax.set_xlabel(r"scale $c$ ($h_n = c\,a_n$)")
    style.legend_below(fig, ax_cost)
    return fig


@style.book_figure
def plot_sequence_ponder(steps, difficulty, correct=None, title: str | None = None) -> Figure:
    """ACT in an RNN: ``N(t)`` per sample (rows) and time step (columns), each cell labelled with ``N`` and the difficulty.

    Args:
        steps: ``N(t)``, shape ``(B, T)``.
        difficulty: non-zero entries of each input, shape ``(B, T)``.
        correct: optional ``(B, T)`` bool; wrong predictions are marked with a cross.
        title: the title (default: what the cells show).
    """
    check_rank("steps", steps, 2, "(B, T)")
    check_rank("difficulty", difficulty, 2, "(B, T)")
    steps_rows = [[int(n) for n in row] for row in steps.tolist()]
    difficulty_rows = difficulty.tolist()
    rows, columns = len(steps_rows), len(steps_rows[0])
    fig, ax = plt.subplots(figsize=(min(style.MAX_WIDTH, 1.6 + 0.95 * columns), 1.3 + 0.34 * rows))
    image = ax.imshow(steps_rows, cmap="Blues", aspect="auto", vmin=0)
    for b in range(rows):
        for t in range(columns):
            shade = "white" if steps_rows[b][t] > 0.6 * image.norm.vmax else "black"
            mark = "" if correct is None or bool(correct[b][t]) else " ✗"
            ax.text(
                t, b, f"N={steps_rows[b][t]} d={difficulty_rows[b][t]}{mark}", ha="center", va="center", color=shade
            )
    fig.colorbar(image, ax=ax, label="ponder steps $N(t)$", fraction=0.04, pad=0.02)
    ax.set_xticks(range(columns), [str(t + 1) for t in range(columns)])
    ax.set_yticks(range(rows))
    ax.set_xlabel("time step t")
    ax.set_ylabel("sample")
    ax.set_title(title or "ACT in an RNN: $N(t)$, d = difficulty")
    return fig
