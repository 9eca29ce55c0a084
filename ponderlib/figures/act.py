"""Chapter 1's figures: ACT's halting units and ponder cost, ponder time against difficulty over seeds
and during training, the time penalty over seeds, and ACT inside an RNN.

Every figure function takes measured data (tensors or lists), returns a ``matplotlib`` ``Figure``
with labelled axes (units where there are units) and a title that says what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ponderlib.figures import style


def plot_halting_sum(halting_units: Sequence[Sequence[float]], eps: float, labels: Sequence[str] | None = None) -> Figure:
    """ACT's halting units ``h_n`` (bars) and their running sum (line) crossing ``1 - eps``, one panel per sample.

    Args:
        halting_units: ``h_n`` per sample, shape ``(B, max_ponder_steps)`` (nested lists or a tensor).
        eps: the slack of the halting threshold ``1 - eps``.
        labels: a title per panel (default ``"sample b"``).

    The bars up to ``N(t)`` are drawn in ACT's colour, with the last one cut to the remainder
    ``R(t)`` (the hatched part of ``h_N`` is the part ACT does not use); later steps are grey.
    """
    rows = [[float(h) for h in row] for row in halting_units]
    fig, axes = plt.subplots(1, len(rows), figsize=(3.2 * len(rows), 3.0), sharey=True, squeeze=False)
    color = style.color("act")
    for b, (ax, row) in enumerate(zip(axes[0], rows)):
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
                ax.bar(n, h, color=color, width=0.6)
            elif n == halt_step:
                ax.bar(n, remainder, color=color, width=0.6)
                if h > remainder:  # at the max_ponder_steps cap R can exceed h_N, and nothing goes unused
                    ax.bar(n, h - remainder, bottom=remainder, color="white", edgecolor=color, hatch="//", width=0.6)
            else:
                ax.bar(n, h, color="#cccccc", width=0.6)
        ax.plot(steps, cumulative, "o-", color="black", ms=3, lw=1, label=r"$\sum_{n' \leq n} h_{n'}$")
        ax.axhline(1.0 - eps, color="black", ls="--", lw=0.8, label=rf"$1-\epsilon = {1.0 - eps:g}$")
        ax.set_title(labels[b] if labels else f"sample {b}", fontsize=9)
        ax.text(
            0.03, 0.97, f"N = {halt_step}\nR = {remainder:.2f}\nρ = {halt_step + remainder:.2f}",
            transform=ax.transAxes, va="top", fontsize=8,
        )
        ax.set_xlabel("ponder step n")
        ax.set_xticks(steps)
    axes[0, 0].set_ylabel("halting unit $h_n$ / running sum")
    axes[0, -1].legend(fontsize=7, loc="upper right")
    fig.suptitle("ACT halts at the first step whose running sum of $h_n$ reaches $1 - \\epsilon$")
    fig.tight_layout()
    return fig


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
    c = [float(v) for v in scales]
    steps = [float(v) for v in ponder_steps]
    remainders = [float(v) for v in remainder]
    color = style.color("act")
    fig, (ax_cost, ax_gradient) = plt.subplots(1, 2, figsize=(9.5, 3.4))
    ax_cost.plot(c, [n + r for n, r in zip(steps, remainders)], color=color, label=r"$\rho = N + R$")
    ax_cost.step(c, steps, where="post", color="black", ls="--", lw=1, label="$N$")
    ax_cost.plot(c, remainders, color=color, ls=":", label="$R$ (a sawtooth)")
    ax_cost.set_ylabel("ponder steps")
    ax_cost.set_title(r"$R$ falls linearly and jumps up where $N$ drops", fontsize=10)
    ax_cost.legend(fontsize=8)
    ax_gradient.plot(c, [float(v) for v in gradient], color=color)
    ax_gradient.axhline(0.0, color="black", lw=0.6)
    ax_gradient.set_ylabel(r"$d\rho / dc$ from autograd")
    ax_gradient.set_title("The gradient sees only the slope, never the jumps", fontsize=10)
    for ax in (ax_cost, ax_gradient):
        ax.set_xlabel(r"scale $c$ of the halting units ($h_n = c\,a_n$)")
    fig.tight_layout()
    return fig


def _seed_lines(ax, difficulty, rows, labels, color: str) -> None:
    """One thin line per seed (rows ``(S, D)``) and their mean, thick, against difficulty."""
    levels = [int(d) for d in difficulty]
    for row, label in zip(rows, labels):
        ax.plot(levels, [float(v) for v in row], color=color, alpha=0.35, lw=1, marker=".", label=label)
    ax.plot(levels, [float(v) for v in rows.mean(dim=0)], color=color, lw=2.5, marker="o", label="mean over seeds")
    ax.set_xlabel("difficulty (non-zero entries)")
    ax.set_xticks(levels)


def plot_seed_curves(curves, title: str, ponder_max: float | None = None, error_max: float | None = None) -> Figure:
    """Mean ponder steps ``N(t)`` and error against difficulty: each seed thin, their mean thick.

    Args:
        curves: a :class:`ponderlib.experiments.act.SeedCurves` (``(S, D)`` rows).
        title: what the runs are.
        ponder_max, error_max: fixed upper limits of the two y axes (in steps and in %), so pages
            of a figure switcher compare at a glance; None: fitted to the data.
    """
    color = style.color("act")
    labels = [
        f"seed {seed} (r undefined: constant N)" if undefined else f"seed {seed} (r = {r:+.2f})"
        for seed, r, undefined in zip(curves.seeds, curves.correlation.tolist(), curves.correlation.isnan().tolist())
    ]
    fig, (ax_steps, ax_error) = plt.subplots(1, 2, figsize=(9.5, 3.4))
    _seed_lines(ax_steps, curves.difficulty, curves.ponder_steps, labels, color)
    ax_steps.set_ylabel("mean ponder steps $N(t)$")
    ax_steps.set_ylim(0.9 if ponder_max is None else 0.0, ponder_max)
    ax_steps.legend(fontsize=7)
    _seed_lines(ax_error, curves.difficulty, 100.0 * curves.error, labels, color)
    ax_error.set_ylabel("held-out error (%)")
    ax_error.set_ylim(0.0, error_max)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def plot_ponder_during_training(groups) -> Figure:
    """Mean ``N(t)`` against difficulty at several points of training: one row per group, one column per seed.

    Args:
        groups: label -> list of :class:`ponderlib.experiments.act.TrackedRun` (one per seed, the same
            seeds in every group); each run's snapshots give one line per training update, light
            (early) to dark (late).
    """
    rows = list(groups.items())
    columns = len(rows[0][1])
    fig, axes = plt.subplots(len(rows), columns, figsize=(3.2 * columns, 2.7 * len(rows)), sharey=True, squeeze=False)
    colormap = plt.get_cmap("Blues")
    for i, (label, runs) in enumerate(rows):
        for j, run in enumerate(runs):
            ax = axes[i, j]
            updates = sorted(run.snapshots)
            for k, update in enumerate(updates):
                evaluation = run.snapshots[update]
                ax.plot(
                    evaluation.difficulty.tolist(), evaluation.ponder_steps.tolist(), marker=".",
                    color=colormap(0.3 + 0.7 * (k + 1) / len(updates)), label=f"{update} updates",
                )
            first, last = updates[0], updates[-1]
            ax.set_title(
                f"{label}, seed {run.result.config.seed}: r {run.correlation_at(first):+.2f} -> {run.correlation_at(last):+.2f}",
                fontsize=8.5,
            )
            ax.set_xlabel("difficulty (non-zero entries)")
        axes[i, 0].set_ylabel("mean ponder steps $N(t)$")
    axes[0, -1].legend(fontsize=7)
    fig.suptitle("Ponder time against difficulty during training (r: first snapshot -> last)", fontsize=11)
    fig.tight_layout()
    return fig


def _tau_band(ax, taus, values, color: str) -> None:
    """Each seed as a dot, the mean as a line and the min-max spread as a band, against ``tau``."""
    for i, tau in enumerate(taus):
        ax.scatter([tau] * values.shape[1], values[i].tolist(), color=color, s=12, alpha=0.5)
    ax.plot(taus, values.mean(dim=1).tolist(), "o-", color=color, label="mean over seeds")
    ax.fill_between(taus, values.min(dim=1).values.tolist(), values.max(dim=1).values.tolist(), color=color, alpha=0.15,
                    label="spread (min to max)")
    ax.set_xscale("log")
    ax.set_xlabel(r"time penalty $\tau$ (log scale)")


def plot_tau_trade_off(grid) -> Figure:
    """Error and mean ponder time against ``tau`` over seeds, and held-out accuracy during training per ``tau``.

    Args:
        grid: a :class:`ponderlib.experiments.act.TauGrid` (``(T, S)`` runs, all compared after
            ``grid.updates`` training updates).
    """
    color = style.color("act")
    fig, (ax_error, ax_steps, ax_curve) = plt.subplots(1, 3, figsize=(13.0, 3.5))
    _tau_band(ax_error, grid.taus, 100.0 * grid.error, color)
    ax_error.set_ylabel("held-out error (%)")
    ax_error.set_ylim(bottom=0)
    ax_error.legend(fontsize=7)
    _tau_band(ax_steps, grid.taus, grid.ponder_steps, color)
    ax_steps.set_ylabel("mean ponder steps $N(t)$")
    ax_steps.set_ylim(bottom=0)
    colormap = plt.get_cmap("viridis")
    for i, (tau, row) in enumerate(zip(grid.taus, grid.runs)):
        histories = [run.result.history for run in row]
        kept = [k for k, update in enumerate(histories[0].update) if update <= grid.updates]
        mean = [sum(h.metrics["accuracy"][k] for h in histories) / len(histories) for k in kept]
        ax_curve.plot([histories[0].update[k] for k in kept], mean, color=colormap(i / max(1, len(grid.taus) - 1)),
                      label=rf"$\tau$ = {tau:g}")
    ax_curve.set_xlabel("training updates")
    ax_curve.set_ylabel("held-out accuracy (mean over seeds)")
    ax_curve.legend(fontsize=7)
    fig.suptitle(rf"ACT on parity: the time penalty $\tau$ after {grid.updates} training updates per run", fontsize=11)
    fig.tight_layout()
    return fig


def plot_sequence_ponder(steps, difficulty, correct=None, title: str | None = None) -> Figure:
    """ACT in an RNN: ``N(t)`` per sample (rows) and time step (columns), each cell labelled with ``N`` and the difficulty.

    Args:
        steps: ``N(t)``, shape ``(B, T)``.
        difficulty: non-zero entries of each input, shape ``(B, T)``.
        correct: optional ``(B, T)`` bool; wrong predictions are marked with a cross.
    """
    steps_rows = [[int(n) for n in row] for row in steps.tolist()]
    difficulty_rows = difficulty.tolist()
    rows, columns = len(steps_rows), len(steps_rows[0])
    fig, ax = plt.subplots(figsize=(1.5 + 1.0 * columns, 0.8 + 0.32 * rows))
    image = ax.imshow(steps_rows, cmap="Blues", aspect="auto", vmin=0)
    for b in range(rows):
        for t in range(columns):
            shade = "white" if steps_rows[b][t] > 0.6 * image.norm.vmax else "black"
            mark = "" if correct is None or bool(correct[b][t]) else " ✗"
            label = f"N={steps_rows[b][t]}, d={difficulty_rows[b][t]}{mark}"
            ax.text(t, b, label, ha="center", va="center", fontsize=6.5, color=shade)
    fig.colorbar(image, ax=ax, label="ponder steps $N(t)$")
    ax.set_xticks(range(columns), [str(t + 1) for t in range(columns)])
    ax.set_yticks(range(rows))
    ax.set_xlabel("time step t")
    ax.set_ylabel("sample")
    ax.set_title(title or "ACT inside an RNN: ponder steps N per time step (d: non-zero entries)", fontsize=10)
    fig.tight_layout()
    return fig
