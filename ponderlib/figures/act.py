"""Chapter 1's figures of trained runs: ponder time against difficulty over seeds and during training, the
time penalty over seeds (live, and Graves' figs. 4 to 6 redrawn from evidence). ACT's halting mechanics
(:func:`plot_halting_sum`, :func:`plot_ponder_cost_sawtooth`, :func:`plot_sequence_ponder`) are drawn by
:mod:`ponderlib.figures.act_halting`, and named here too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from ponderlib.core.stats import mean
from ponderlib.core.validation import check_groups, check_not_empty, check_positive, ensure_type
from ponderlib.experiments.act import SeedCurves, TauEvidence, TauGrid, TrackedRun
from ponderlib.figures import style
from ponderlib.figures.act_halting import plot_halting_sum as plot_halting_sum
from ponderlib.figures.act_halting import plot_ponder_cost_sawtooth as plot_ponder_cost_sawtooth
from ponderlib.figures.act_halting import plot_sequence_ponder as plot_sequence_ponder


def _signed(r: float) -> str:
    """A correlation as ``"+0.24"``, or ``"undefined"`` (NaN: the ponder steps were constant)."""
    return "undefined" if math.isnan(r) else f"{r:+.2f}"


def _seed_lines(ax, difficulty, rows, labels) -> None:
    """One thin line per seed (rows ``(S, D)``), each in its own shade of ACT's colour, and their mean,
    thick, against difficulty."""
    levels = [int(d) for d in difficulty]
    style.seed_lines(ax, levels, rows, "act", {"lw": 1.2, "marker": "."}, {"lw": 3, "marker": "o"},
                     seed_labels=labels, mean_label=style.mean_of_seeds(len(labels)), single="seed")
    ax.set_xlabel("difficulty (non-zero entries)")
    ax.set_xticks(levels)


@style.book_figure
def plot_seed_curves(curves, title: str, ponder_max: float | None = None, error_max: float | None = None) -> Figure:
    """Mean ponder steps ``N(t)`` and error against difficulty: each seed thin, in its own shade, their mean thick.

    Args:
        curves: a :class:`ponderlib.experiments.act.SeedCurves` (``(S, D)`` rows).
        title: what the runs are (short: it spans :data:`~ponderlib.figures.style.MAX_WIDTH`).
        ponder_max, error_max: fixed upper limits of the two y axes (in steps and in %), so pages
            of a figure switcher compare at a glance; None: fitted to the data.
    """
    ensure_type("curves", curves, SeedCurves)
    for name, limit in (("ponder_max", ponder_max), ("error_max", error_max)):
        if limit is not None:
            check_positive(name, limit)
    r = curves.ponder_difficulty_correlation  # (S,)
    labels = [
        f"seed {seed} (r undefined: constant N)" if undefined else f"seed {seed} (r = {value:+.2f})"
        for seed, value, undefined in zip(curves.seeds, r.tolist(), r.isnan().tolist())
    ]
    fig, (ax_steps, ax_error) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.9))
    _seed_lines(ax_steps, curves.difficulty, curves.ponder_steps, labels)
    ax_steps.set_ylabel("mean ponder steps $N(t)$")
    ax_steps.set_ylim(0.9 if ponder_max is None else 0.0, ponder_max)
    _seed_lines(ax_error, curves.difficulty, 100.0 * curves.error, labels)
    ax_error.set_ylabel("held-out error (%)")
    ax_error.set_ylim(0.0, error_max)
    fig.suptitle(title)
    style.legend_below(fig, ax_steps, ncol=2)
    return fig


@style.book_figure
def plot_ponder_during_training(groups) -> Figure:
    """Mean ``N(t)`` against difficulty at several points of training: one column per group, one row per seed.

    Args:
        groups: label -> list of :class:`ponderlib.experiments.act.TrackedRun` (one per seed, the same
            seeds in every group), at most two groups; each run's snapshots give one line per training
            update, light (early) to dark (late).

    Raises:
        ValueError: more than two groups (two panels in a row at most).
    """
    check_groups("groups", groups)
    for label, runs in groups.items():
        for index, run in enumerate(runs):
            ensure_type(f"groups[{label!r}][{index}]", run, TrackedRun)
    columns = list(groups.items())
    if not 1 <= len(columns) <= 2:
        raise ValueError(f"groups must hold one or two groups (one column each), got {len(columns)}")
    rows = len(columns[0][1])
    fig, axes = plt.subplots(
        rows, len(columns), figsize=(style.MAX_WIDTH, 0.6 + 2.5 * rows), sharex=True, sharey=True, squeeze=False
    )
    colormap = plt.get_cmap("Blues")
    for j, (label, runs) in enumerate(columns):
        for i, run in enumerate(runs):
            ax = axes[i, j]
            updates = sorted(run.snapshots)
            for k, update in enumerate(updates):
                evaluation = run.snapshots[update]
                ax.plot(
                    evaluation.difficulty.tolist(),
                    evaluation.ponder_steps.tolist(),
                    marker=".",
                    color=colormap(0.3 + 0.7 * (k + 1) / len(updates)),
                    label=f"{update} updates",
                )
            first, last = updates[0], updates[-1]
            ax.set_title(
                f"{label}, seed {run.result.config.seed}\n"
                f"r: {_signed(run.correlation_at(first))} → {_signed(run.correlation_at(last))}"
            )
            style.integer_ticks(ax.xaxis)
        axes[-1, j].set_xlabel("difficulty")
    for i in range(rows):
        axes[i, 0].set_ylabel("mean $N(t)$")
    fig.suptitle("Ponder time against difficulty during training")
    style.legend_below(fig, axes[0, 0], ncol=3)
    return fig


def _tau_band(ax, taus, values, seeds: Sequence[int], decades_only: bool = False) -> None:
    """Each seed as a dot in its own shade, the mean as a line and the min-max spread as a band, against
    ``tau``; ``values`` is ``(T, S)``, ``seeds`` the ``S`` seeds."""
    color = style.color("act")
    for j, (seed, shade) in enumerate(zip(seeds, style.seed_colors("act", len(seeds)))):
        ax.scatter(taus, values[:, j].tolist(), color=shade, s=22, zorder=3, label=f"seed {seed}")
    ax.plot(taus, values.mean(dim=1).tolist(), "-", color=color, lw=2, label=style.mean_of_seeds(len(seeds)))
    ax.fill_between(
        taus,
        values.min(dim=1).values.tolist(),
        values.max(dim=1).values.tolist(),
        color=color,
        alpha=0.15,
        label="spread (min to max)",
    )
    _tau_axis(ax, taus, decades_only)


def _tau_axis(ax, taus, decades_only: bool = False) -> None:
    """A log axis of ``tau`` with a tick at each value of the grid and no others, labelled (only the
    powers of ten when ``decades_only``, for a narrow panel)."""
    ax.set_xscale("log")
    decade = [abs(math.log10(tau) - round(math.log10(tau))) < 1e-9 for tau in taus]
    ax.set_xticks(list(taus), [f"{tau:g}" if is_decade or not decades_only else "" for tau, is_decade in zip(taus, decade)])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(r"time penalty $\tau$")


@style.book_figure
def plot_tau_trade_off(grid) -> Figure:
    """Error and mean ponder time against ``tau`` over seeds, and held-out accuracy during training per ``tau``.

    Args:
        grid: a :class:`ponderlib.experiments.act.TauGrid` (``(T, S)`` runs, all compared after
            ``grid.updates`` training updates).

    The learning curves across the width, two panels side by side under them (error, ponder time),
    their legend under the figure.
    """
    ensure_type("grid", grid, TauGrid)
    fig, panels = plt.subplot_mosaic(
        [["curve", "curve"], ["error", "steps"]], figsize=(style.MAX_WIDTH, 6.8), height_ratios=[0.9, 1.0]
    )
    ax_error, ax_steps, ax_curve = panels["error"], panels["steps"], panels["curve"]
    seeds = [run.result.config.seed for run in grid.runs[0]]
    _tau_band(ax_error, grid.taus, 100.0 * grid.error, seeds)
    ax_error.set_ylabel("held-out error (%)")
    ax_error.set_ylim(bottom=0)
    _tau_band(ax_steps, grid.taus, grid.ponder_steps, seeds)
    ax_steps.set_ylabel("mean ponder steps $N(t)$")
    ax_steps.set_ylim(bottom=0)
    for tau, row, color in zip(grid.taus, grid.runs, _tau_colors(grid.taus)):
        histories = [run.result.history for run in row]
        kept = [k for k, update in enumerate(histories[0].update) if update <= grid.updates]
        accuracy = [mean([h.metrics["accuracy"][k] for h in histories]) for k in kept]
        ax_curve.plot(
            [histories[0].update[k] for k in kept],
            accuracy,
            color=color,
            lw=2,
            label=rf"$\tau$ = {tau:g}",
        )
    ax_curve.set_xlabel("training updates")
    ax_curve.set_ylabel(f"held-out accuracy\n({style.mean_of_seeds(len(seeds))})")
    style.integer_ticks(ax_curve.xaxis)
    ax_curve.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=len(grid.taus),
        frameon=False,
        handlelength=1.2,
        columnspacing=1.0,
    )
    fig.suptitle(rf"ACT on parity: the time penalty $\tau$, {grid.updates} updates per run")
    style.legend_below(fig, ax_error, ncol=3)
    return fig


def tau_pages(grid, updates: int | None = None) -> dict[str, Figure]:
    """One :func:`plot_seed_curves` figure per ``tau`` of ``grid`` (label ``f"{tau:g}"``), all with the
    same y limits, for :func:`ponderlib.figures.widgets.figure_switcher`.

    Args:
        grid: a :class:`ponderlib.experiments.act.TauGrid` (live runs), or a
            :class:`ponderlib.experiments.act.TauEvidence` (a committed sweep; pass ``updates``).
        updates: the budget named in the titles (default ``grid.updates``).
    """
    ensure_type("grid", grid, (TauGrid, TauEvidence))
    curves = {tau: grid.curves(i) for i, tau in enumerate(grid.taus)}
    ponder_max = 1.1 * max(c.ponder_steps.max().item() for c in curves.values())
    error_max = 105.0 * max(c.error.max().item() for c in curves.values())
    return {
        f"{tau:g}": plot_seed_curves(
            c, rf"$\tau$ = {tau:g}: after {updates or grid.updates} updates", ponder_max=ponder_max, error_max=error_max
        )
        for tau, c in curves.items()
    }


@style.book_figure
def plot_tau_evidence(evidence) -> Figure:
    """Graves' fig. 4 redrawn: error (above) and mean ponder time (below) against ``tau``, every seed a
    dot, the mean a line, the spread a band.

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    ensure_type("evidence", evidence, TauEvidence)
    fig, (ax_error, ax_steps) = plt.subplots(2, 1, figsize=(0.8 * style.MAX_WIDTH, 5.4), sharex=True)
    _tau_band(ax_error, evidence.taus, 100.0 * evidence.error, evidence.seeds)
    ax_error.set_ylabel("held-out error (%)")
    ax_error.set_ylim(bottom=0)
    ax_error.set_xlabel("")
    _tau_band(ax_steps, evidence.taus, evidence.ponder_steps, evidence.seeds)
    ax_steps.set_ylabel("mean ponder time $N(t)$")
    ax_steps.set_ylim(bottom=0)
    return style.finish(fig, r"Error and ponder time against the time penalty $\tau$", ncol=3)


@style.book_figure
def plot_tau_evidence_by_size(by_size, no_act_error=None) -> Figure:
    """Graves' figs. 4 and 5 at several vector sizes side by side: error (above) and mean ponder time
    (below) against ``tau``, one column per size, every seed a dot, the mean a line, the spread a band;
    the networks without ACT as a dashed line (their mean error) over a grey band (their spread).

    Args:
        by_size: the number of entries -> its :class:`ponderlib.experiments.act.TauEvidence`.
        no_act_error: the number of entries -> the held-out error of each network without ACT (fractions);
            a size may be missing.
    """
    check_not_empty("by_size", by_size, "vector size")
    for size, evidence in dict(by_size).items():
        ensure_type(f"by_size[{size!r}]", evidence, TauEvidence)
    no_act_error = no_act_error or {}
    if set(no_act_error) - set(by_size):
        raise ValueError(f"no_act_error holds sizes {sorted(set(no_act_error) - set(by_size))} that by_size does not")
    sizes = sorted(by_size)
    fig, axes = plt.subplots(2, len(sizes), figsize=(style.MAX_WIDTH, 6.0), sharey="row", squeeze=False)
    for column, size in enumerate(sizes):
        evidence, ax_error, ax_steps = by_size[size], axes[0, column], axes[1, column]
        _tau_band(ax_error, evidence.taus, 100.0 * evidence.error, evidence.seeds, decades_only=len(sizes) > 1)
        if size in no_act_error:
            errors = [100.0 * e for e in no_act_error[size]]
            ax_error.axhspan(min(errors), max(errors), color="0.5", alpha=0.15, lw=0)
            label = f"without ACT ({style.mean_of_seeds(len(errors))})"
            ax_error.axhline(mean(errors), color="0.3", ls="--", lw=1.5, label=label)
        ax_error.set_title(f"{size} entries", fontsize=style.FONT_SIZE)
        ax_error.set_xlabel("")
        _tau_band(ax_steps, evidence.taus, evidence.ponder_steps, evidence.seeds, decades_only=len(sizes) > 1)
    axes[0, 0].set_ylabel("held-out error (%)")
    axes[0, 0].set_ylim(bottom=0)
    axes[1, 0].set_ylabel("mean ponder time $N(t)$")
    axes[1, 0].set_ylim(bottom=0)
    return style.finish(fig, r"Error and ponder time against $\tau$, by vector size", ncol=3)


@style.book_figure
def plot_error_by_difficulty(groups) -> Figure:
    """Held-out error against the number of non-zero entries, one panel per group (e.g. the networks
    without ACT at each vector size), every seed a thin line, their mean thick (Graves' sec. 3.1: "the
    error rate increases sharply with the difficulty of the task").

    Args:
        groups: a panel's title -> its :class:`ponderlib.experiments.act.SeedCurves`.
    """
    check_not_empty("groups", groups, "group of runs")
    for title, curves in dict(groups).items():
        ensure_type(f"groups[{title!r}]", curves, SeedCurves)
    fig, axes, empty = style.panel_grid(len(groups), 3.0, sharey=True)
    for i, (ax, (title, curves)) in enumerate(zip(axes, groups.items())):
        _seed_lines(ax, curves.difficulty, 100.0 * curves.error, [f"seed {seed}" for seed in curves.seeds])
        ax.set_title(title, fontsize=style.FONT_SIZE)
        ax.set_xticks(curves.difficulty.tolist()[:: max(1, round(len(curves.difficulty) / 6))])
        ax.set_ylim(0, 100)
        if i % 2 == 0:
            ax.set_ylabel("held-out error (%)")
    style.grid_legend(fig, axes, empty, ncol=3)
    fig.suptitle("Error against the number of non-zero entries")
    return fig


def _tau_colors(taus) -> list:
    """One colour per ``tau``, from the colormap's dark end (small ``tau``) to its light end."""
    colormap = plt.get_cmap("viridis")
    return [colormap(0.9 * i / max(1, len(taus) - 1)) for i in range(len(taus))]


def _curves_by_tau(ax, evidence, values, ylabel: str) -> None:
    """``values`` ``(T, S, K)`` against ``evidence.updates``: every run faint, each ``tau``'s mean bold (and
    in the legend), one colour per ``tau``."""
    for tau, color, rows in zip(evidence.taus, _tau_colors(evidence.taus), values):
        for row in rows:
            ax.plot(evidence.updates, row.tolist(), color=color, lw=0.6, alpha=0.35)
        ax.plot(evidence.updates, rows.mean(dim=0).tolist(), color=color, lw=2.2, label=rf"$\tau$ = {tau:g}")
    ax.set_xlabel("training updates")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    style.integer_ticks(ax.xaxis)


@style.book_figure
def plot_error_against_ponder(evidence) -> Figure:
    """Graves' fig. 5 redrawn: held-out error during training, every run faint and each ``tau``'s mean
    bold (above); every run's error against its mean ponder time after training, a small dot per run
    and a large one per ``tau``'s mean (below); one colour per ``tau``.

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    ensure_type("evidence", evidence, TauEvidence)
    fig, (ax_curve, ax_scatter) = plt.subplots(2, 1, figsize=(style.MAX_WIDTH, 6.4), height_ratios=[1.0, 1.1])
    _curves_by_tau(ax_curve, evidence, 100.0 * (1.0 - evidence.curve), "held-out error (%)")
    for i, color in enumerate(_tau_colors(evidence.taus)):
        steps, final = evidence.ponder_steps[i], 100.0 * evidence.error[i]
        ax_scatter.scatter(steps.tolist(), final.tolist(), color=color, s=14, alpha=0.7, zorder=3)
        ax_scatter.scatter([float(steps.mean())], [float(final.mean())], color=color, s=110, edgecolor="black", zorder=4)
    ax_scatter.set_xlabel("mean ponder time $N(t)$ after training")
    ax_scatter.set_ylabel("held-out error (%)")
    ax_scatter.set_ylim(bottom=0)
    return style.finish(fig, f"Error during training, and against ponder time ({len(evidence.seeds)} seeds per $\\tau$)", ncol=4)


@style.book_figure
def plot_ponder_during_training_per_tau(evidence) -> Figure:
    """Held-out error (above) and mean ponder time on the held-out vectors (below) during training, every
    run faint and each ``tau``'s mean bold, one colour per ``tau``: whether ponder time settles before or
    after the error falls.

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    ensure_type("evidence", evidence, TauEvidence)
    fig, (ax_error, ax_steps) = plt.subplots(2, 1, figsize=(style.MAX_WIDTH, 6.0), sharex=True)
    _curves_by_tau(ax_error, evidence, 100.0 * (1.0 - evidence.curve), "held-out error (%)")
    ax_error.set_xlabel("")
    _curves_by_tau(ax_steps, evidence, evidence.ponder_curve, "mean ponder time $N(t)$")
    title = f"Error and ponder time during training ({len(evidence.seeds)} seeds per $\\tau$)"
    return style.finish(fig, title, ncol=4)


@style.book_figure
def plot_ponder_by_difficulty_per_tau(evidence) -> Figure:
    """Graves' fig. 6 redrawn: mean ponder time against the number of non-zero entries, one panel per
    ``tau``, every seed a thin line (its slope in steps per entry in the legend), their mean thick.

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    ensure_type("evidence", evidence, TauEvidence)
    fig, axes, empty = style.panel_grid(len(evidence.taus), 2.3, sharey=True)
    slopes = evidence.slope
    top = float(evidence.by_difficulty.max()) * 1.08
    for i, (ax, tau) in enumerate(zip(axes, evidence.taus)):
        labels = [f"seed {seed}" for seed in evidence.seeds]
        _seed_lines(ax, evidence.difficulty, evidence.by_difficulty[i], labels)
        mean_slope = float(slopes[i].mean())
        slope = f"{mean_slope:+.2f}" if abs(mean_slope) >= 0.005 else "0.00"  # never "-0.00"
        ax.set_title(rf"$\tau$ = {tau:g}: slope {slope} steps/entry", fontsize=style.FONT_SIZE)
        ax.set_ylim(0, top)
        ax.set_xticks(evidence.difficulty[:: max(1, round(len(evidence.difficulty) / 6))])
        if i % 2 == 0:
            ax.set_ylabel("mean $N(t)$")
        if i < len(axes) - 2:
            ax.set_xlabel("")
    style.grid_legend(fig, axes, empty, ncol=3)
    fig.suptitle("Ponder time against the number of non-zero entries, per $\\tau$")
    return fig
