"""Chapter 2's figures of trained runs over seeds and settings: the methods against difficulty, the
sensitivity to ``tau`` and ``lambda_p``, the robustness to ``lambda_p`` at 16 entries, extrapolation during
training and the thinking time under each setting. The halting distribution itself
(:func:`plot_lambdas_to_halting`, :func:`plot_halting_vs_prior`, :func:`plot_halting_tails`) is drawn by
:mod:`ponderlib.figures.pondernet_halting`, and named here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ponderlib.core.stats import mean
from ponderlib.core.validation import check_finite, check_fraction, check_groups, check_non_negative, check_positive
from ponderlib.figures import style
from ponderlib.figures.pondernet_halting import plot_halting_tails as plot_halting_tails
from ponderlib.figures.pondernet_halting import plot_halting_vs_prior as plot_halting_vs_prior
from ponderlib.figures.pondernet_halting import plot_lambdas_to_halting as plot_lambdas_to_halting


def _seed_lines(
    ax, runs: Mapping[float, Sequence[object]], attribute: str, method: str, label: str | None, name: str = "runs"
) -> None:
    """``attribute`` of each run against the grid's values: a thin line per seed (a shade of the method's
    colour each) and a thick one, with markers, for the mean over seeds (labelled ``label``, if given).
    ``ValueError`` naming ``name`` (the argument ``runs`` came as) for no value, a value with no runs or with
    another number of runs than the first (its seeds were dropped from the mean, silently), or a run's
    ``attribute`` that is not a finite number."""
    check_groups(name, runs)
    values = list(runs)
    seeds = len(runs[values[0]])
    for value, seed_runs in runs.items():
        if len(seed_runs) != seeds:
            raise ValueError(f"{name} must hold one run per seed at every value: {name}[{values[0]!r}] holds {seeds}, "
                             f"{name}[{value!r}] {len(seed_runs)}")
        for index, run in enumerate(seed_runs):
            check_finite(f"{name}[{value!r}][{index}].{attribute}", getattr(run, attribute, None))
    table = torch.tensor([[float(getattr(run, attribute)) for run in runs[value][:seeds]] for value in values])  # (V, S)
    style.seed_lines(ax, values, table.T, method, {"lw": 0.7, "alpha": 0.6}, {"lw": 2.2, "ms": 4}, seed_fmt="-",
                     mean_fmt="o-", mean_label=f"{label}: {style.mean_of_seeds(seeds)}" if label else None)


@style.book_figure
def plot_sensitivity(
    act_runs: Mapping[float, Sequence[object]],
    pondernet_runs: Mapping[float, Sequence[object]],
    title: str | None = None,
) -> Figure:
    """ACT against ``tau`` and PonderNet against ``lambda_p``: accuracy (top) and ponder steps (bottom),
    a thin line per seed (a shade of the method's colour each) and a thick one for the mean over seeds.

    Args:
        act_runs, pondernet_runs: ``tau`` (and ``lambda_p``) -> the runs at that value, one per seed,
            in the same seed order at every value; each has ``interpolation_accuracy`` and ``mean_ponder_steps``
            (:class:`ponderlib.experiments.parity.HaltingSummary`).
    """
    fig, axes = plt.subplots(2, 2, figsize=(style.MAX_WIDTH, 6.0), sharex="col")
    methods = ((act_runs, "act", r"$\tau$"), (pondernet_runs, "pondernet", r"$\lambda_p$"))
    for column, (runs, method, name) in enumerate(methods):
        values = list(runs)
        label = style.label(method)
        for row, attribute in enumerate(("interpolation_accuracy", "mean_ponder_steps")):
            _seed_lines(axes[row, column], runs, attribute, method, label if row == 0 else None, f"{method}_runs")
        axes[0, column].set_title(f"{label}: sensitivity to {name}")
        axes[0, column].set_ylim(0.4, 1.02)
        axes[1, column].set_xlabel(f"{name} (log scale)")
        axes[1, column].set_xscale("log")
        axes[1, column].set_xticks(values, [f"{value:g}" for value in values])  # the grid's values only
        axes[1, column].xaxis.set_minor_formatter(NullFormatter())
    axes[0, 0].set_ylabel("accuracy")
    axes[1, 0].set_ylabel("ponder steps at inference")
    style.legend_below(fig, ncol=2)
    if title:
        fig.suptitle(title)
    return fig


@style.book_figure
def plot_lambda_robustness(
    runs: Mapping[float, Sequence[object]],
    prior_means: Mapping[float, float],
    solved: float,
    title: str | None = None,
) -> Figure:
    """PonderNet against ``lambda_p`` (Banino et al.'s fig. 2b, c): accuracy (left) and the learned mean
    ``E_p[n]`` beside the prior's mean (right), a thin line per seed and a thick one for the mean over seeds.

    Args:
        runs: ``lambda_p`` -> the runs at that value, one per seed, in the same seed order at every value,
            in increasing ``lambda_p``; each has ``interpolation_accuracy`` and ``expected_ponder_steps``
            (:class:`ponderlib.experiments.parity.HaltingSummary`).
        prior_means: ``lambda_p`` -> the mean of the prior the runs were trained with, for every key of ``runs``.
        solved: the accuracy from which a run solves the task, drawn as a dotted line.
    """
    check_fraction("solved", solved)
    if set(prior_means) != set(runs):
        raise ValueError(f"prior_means must hold the lambda_p of runs, {sorted(runs)}; got {sorted(prior_means)}")
    for value, prior in prior_means.items():
        check_positive(f"prior_means[{value!r}]", prior)
    values = list(runs)
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8), sharex=True)
    _seed_lines(ax_acc, runs, "interpolation_accuracy", "pondernet", style.label("pondernet"))
    ax_acc.axhline(solved, color=style.PRIOR_COLOR, ls=":", lw=1, label=f"solved: accuracy {solved:g}")
    ax_acc.set_ylim(0.4, 1.02)
    ax_acc.set_ylabel("accuracy on the trained range")
    _seed_lines(ax_steps, runs, "expected_ponder_steps", "pondernet", None)
    ax_steps.plot(values, [prior_means[value] for value in values], "--", color=style.PRIOR_COLOR, lw=1.2,
                  label=r"prior's mean $\mathbb{E}_{p_G}[n]$")
    ax_steps.set_ylabel(r"learned mean $\mathbb{E}_p[n]$ (steps)")
    ax_steps.set_ylim(bottom=0)
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel(r"$\lambda_p$")
    style.legend_below(fig, ncol=2)
    if title:
        fig.suptitle(title)
    return fig


def _difficulty_curves(run: object, is_act: bool) -> tuple[list[int], torch.Tensor, torch.Tensor]:
    """Difficulties, accuracy and ponder steps (``N(t)`` for ACT, ``E[n]`` for PonderNet) of a
    :class:`~ponderlib.tasks.parity.DifficultyEvaluation` or of a run's summary."""
    if isinstance(run, Mapping):
        levels = sorted(run["accuracy_by_difficulty"], key=int)
        steps_key = "ponder_steps_by_difficulty" if is_act else "expected_ponder_steps_by_difficulty"
        return (
            [int(level) for level in levels],
            torch.tensor([run["accuracy_by_difficulty"][level] for level in levels]),
            torch.tensor([run[steps_key][level] for level in levels]),
        )
    steps = run.ponder_steps if is_act else run.expected_ponder_steps
    return run.difficulty.tolist(), run.accuracy, steps


@style.book_figure
def plot_seeds_by_difficulty(
    evaluations: Mapping[str, Sequence[object]],
    methods: Mapping[str, str],
    trained_max: int | None = None,
    title: str | None = None,
) -> Figure:
    """Accuracy and ponder steps against difficulty: a thin line per seed, in a shade of the method's
    colour each, and a thick line for the mean.

    Ponder steps are the expected ``E[n]`` for PonderNet and the executed ``N(t)`` for ACT.

    Args:
        evaluations: label -> one :class:`ponderlib.tasks.parity.DifficultyEvaluation` per seed, or one
            run summary per seed (a record of the evidence, with the per-difficulty entries).
        methods: label -> the method those runs trained (``"act"`` or ``"pondernet"``), which sets
            the colour (:func:`ponderlib.figures.style.color`) and which ponder steps are drawn.
        trained_max: the largest difficulty seen in training; harder ones are shaded as unseen.
    """
    check_groups("evaluations", evaluations)
    missing = [label for label in evaluations if label not in methods]
    if missing:
        raise ValueError(f"methods must name the method of every label, missing {missing[0]!r}")
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 4.4))
    difficulty: list[int] = []
    for line_style, (label, runs) in zip(("-", "--", ":"), evaluations.items()):
        method = methods[label]
        curves = [_difficulty_curves(run, method == "act") for run in runs]
        difficulty = curves[0][0]
        for index, curve in enumerate(curves):
            if curve[0] != difficulty:
                raise ValueError(f"evaluations[{label!r}][{index}] must score the difficulties of evaluations[{label!r}][0], "
                                 f"{difficulty}; got {curve[0]}")
        accuracy = torch.stack([curve[1] for curve in curves])  # (S, D)
        steps = torch.stack([curve[2] for curve in curves])  # (S, D)
        for ax, values in ((ax_acc, accuracy), (ax_steps, steps)):
            style.seed_lines(ax, difficulty, values, method, {"lw": 0.7, "alpha": 0.6}, {"lw": 2.2, "ms": 4},
                             seed_fmt=line_style, mean_fmt="o" + line_style,
                             mean_label=f"{label} ({style.mean_of_seeds(len(runs))})")
    ax_acc.set_ylabel("accuracy")
    ax_acc.axhline(0.5, color="#999999", lw=0.8)
    ax_steps.set_ylabel("ponder steps, $E[n]$ or $N(t)$")
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("difficulty")
        style.integer_ticks(ax.xaxis)
        if trained_max is not None and trained_max < max(difficulty):
            ax.axvspan(
                trained_max + 0.5, max(difficulty) + 0.5, color="#eeeeee", zorder=0, label="not seen in training"
            )
    style.legend_below(fig, ncol=1)
    fig.suptitle(title or "Accuracy and ponder steps against difficulty, every seed")
    return fig


@style.book_figure
def plot_extrapolation_curves(groups: Mapping[str, Sequence[object]], methods: Mapping[str, str], title: str) -> Figure:
    """Held-out accuracy during training, beyond the trained range (solid) and inside it (dotted): one
    panel per group, each seed a thin line in its own shade of the method's colour, the mean beyond
    the range thick.

    Args:
        groups: a label -> its runs, one per seed, each recording an
            :class:`~ponderlib.experiments.pondernet.ExtrapolationCurve` (records of the evidence or
            trained results).
        methods: label -> the method of those runs (``"act"`` or ``"pondernet"``), for the colour.
        title: what the runs are.
    """
    from ponderlib.experiments.pondernet import ExtrapolationCurve

    check_groups("groups", groups)

    missing = [label for label in groups if label not in methods]
    if missing:
        raise ValueError(f"methods must name the method of every label, missing {missing[0]!r}")
    fig, axes, empty = style.panel_grid(len(groups), 2.6, sharey=True)
    for ax, (label, runs) in zip(axes, groups.items()):
        curves = [ExtrapolationCurve.of(run) for run in runs]
        shades = style.seed_colors(methods[label], len(curves))
        for shade, curve in zip(shades, curves):
            ax.plot(curve.updates, curve.extrapolation, "-", color=shade, lw=0.8, alpha=0.8)
            ax.plot(curve.updates, curve.accuracy, ":", color=shade, lw=0.8, alpha=0.8)
        updates = curves[0].updates
        if all(curve.updates == updates for curve in curves):
            beyond = [mean(values) for values in zip(*(curve.extrapolation for curve in curves))]
            ax.plot(updates, beyond, "-", color=style.color(methods[label]), lw=2.2, label="beyond the trained range, mean")
        ax.plot([], [], ":", color="#555555", lw=0.8, label="inside the trained range, each seed")
        ax.plot([], [], "-", color="#555555", lw=0.8, label="beyond it, each seed")
        ax.axhline(0.5, color="#999999", lw=0.8)
        ax.set_title(f"{label} ({len(curves)} seed{'s' if len(curves) != 1 else ''})")
        ax.set_ylim(0.0, 1.02)
        ax.set_xlabel("training updates (thousands)")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}"))
    for ax in axes[:: min(len(axes), 2)]:
        ax.set_ylabel("held-out accuracy")
    fig.suptitle(title)
    style.grid_legend(fig, axes, empty, ncol=1)  # three long entries: side by side they widen the figure
    return fig


@style.book_figure
def plot_thinking_time_by_setting(
    groups: Mapping[str, Sequence[object]], prior_mean: float, paper: float | None = None, title: str = ""
) -> Figure:
    """Thinking time under each setting: the learned ``E[n]`` (left) and the ponder steps sampled at
    inference (right), every seed a dot and the mean over seeds a bar, against the prior's mean (dashed)
    and the paper's figure (dotted).

    Args:
        groups: setting's label -> its runs, one per seed, each a
            :class:`~ponderlib.experiments.parity.HaltingSummary` (``expected_ponder_steps`` and
            ``mean_ponder_steps``); at least one group, each with at least one run.
        prior_mean: the mean of the prior the runs were trained against, a finite number > 0.
        paper: the paper's thinking time for this setting, if it states one (a finite number > 0).

    Raises:
        TypeError: ``groups`` is not such a mapping, or ``title`` not a str.
        ValueError: naming ``prior_mean``, ``paper``, or a run's ``expected_ponder_steps`` or
            ``mean_ponder_steps`` that is not a finite number >= 0; checked before anything is drawn.
    """
    check_groups("groups", groups)
    for label, runs in groups.items():
        for index, run in enumerate(runs):
            for attribute in ("expected_ponder_steps", "mean_ponder_steps"):
                if not hasattr(run, attribute):
                    raise TypeError(f"groups[{label!r}][{index}] must be a HaltingSummary (with {attribute}), got {type(run).__name__}")
                check_non_negative(f"groups[{label!r}][{index}].{attribute}", getattr(run, attribute))
    check_positive("prior_mean", prior_mean)
    if paper is not None:
        check_positive("paper", paper)
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    labels = list(groups)  # one row per setting, the first on top, its label read across
    right = 1.06 * max([prior_mean, paper or 0.0] + [float(getattr(run, a)) for runs in groups.values() for run in runs
                                                      for a in ("expected_ponder_steps", "mean_ponder_steps")])
    fig, axes = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 1.6 + 0.45 * len(labels)), sharey=True)
    for ax, attribute, name in zip(axes, ("expected_ponder_steps", "mean_ponder_steps"),
                                   ("learned $\\mathbb{E}[n]$", "steps run at inference")):
        for y, label in enumerate(labels):
            values = [float(getattr(run, attribute)) for run in groups[label]]
            offsets = [0.0] if len(values) == 1 else [0.24 * (i / (len(values) - 1) - 0.5) for i in range(len(values))]
            ax.plot(values, [y + o for o in offsets], "o", color=style.color("pondernet"), ms=4, alpha=0.7)
            ax.plot([mean(values)] * 2, [y - 0.3, y + 0.3], "-", color="k", lw=2)
        ax.axvline(prior_mean, color=style.PRIOR_COLOR, ls="--", lw=1.2)
        if paper is not None:
            ax.axvline(paper, color="#b2182b", ls=":", lw=1.4)
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels)
        ax.set_ylim(len(labels) - 0.4, -0.6)
        ax.set_xlim(0, right)  # both panels on one scale
        ax.set_xlabel("ponder steps")
        ax.set_title(name)
    axes[0].plot([], [], "o", color=style.color("pondernet"), ms=4, label="one seed")
    axes[0].plot([], [], "-", color="k", lw=2, label="mean over seeds")
    axes[0].plot([], [], "--", color=style.PRIOR_COLOR, label=f"the prior's mean, {prior_mean:.2f}")
    if paper is not None:
        axes[0].plot([], [], ":", color="#b2182b", label=f"the paper, {paper:g}")
    style.legend_below(fig, axes[0], ncol=2)
    fig.suptitle(title or "Thinking time, one setting changed at a time")
    return fig

