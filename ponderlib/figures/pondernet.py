"""Chapter 2's figures: PonderNet's halting distribution and its prior, the methods against difficulty
over seeds, every ponder step's accuracy, the sensitivity to ``tau`` and ``lambda_p``, and the robustness
to ``lambda_p`` at 16 entries.

Every figure function takes measured data (tensors or lists), returns a ``matplotlib`` ``Figure``
with labelled axes (units where there are units) and a title that says what it shows. Each draws in
the book's style (:func:`ponderlib.figures.style.book_figure`): at most
:data:`~ponderlib.figures.style.MAX_WIDTH` inches wide, at most two panels in a row, the legend under
the panels, one shade of the method's colour per seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ponderlib.core.records import finite_numbers
from ponderlib.core.validation import (
    check_finite,
    check_fraction,
    check_groups,
    check_lambda_p,
    check_non_negative,
    check_not_empty,
    check_positive,
)
from ponderlib.figures import style


def _steps_axis(ax, max_ponder_steps: int) -> None:
    ax.set_xlabel("ponder step n")
    ticks = range(1, max_ponder_steps + 1) if max_ponder_steps <= 10 else [1, *range(5, max_ponder_steps + 1, 5)]
    ax.set_xticks(list(ticks))
    ax.set_xlim(0.4, max_ponder_steps + 0.6)


def _seeds_label(seeds: int) -> str:
    """``"one seed"`` or ``"mean of 3 seeds"``."""
    return "one seed" if seeds == 1 else f"mean of {seeds} seeds"


@style.book_figure
def plot_lambdas_to_halting(lambdas: Sequence[float], halting_probs: Sequence[float]) -> Figure:
    """PonderNet's halting for one input: conditional ``lambda_n`` against unconditional ``p_n``.

    Args:
        lambdas: ``lambda_n``, length ``N`` (the last one is treated as 1).
        halting_probs: ``p_n = lambda_n prod_{j<n}(1 - lambda_j)``, length ``N``.
    """
    lambdas = finite_numbers("lambdas", lambdas, "lambda_n")
    halting_probs = finite_numbers("halting_probs", halting_probs, "p_n")
    if len(halting_probs) != len(lambdas):
        raise ValueError(f"halting_probs must hold one p_n per lambda_n ({len(lambdas)}), got {len(halting_probs)}")
    steps = list(range(1, len(lambdas) + 1))
    still_running = [1.0]
    for lam in lambdas[:-1]:
        still_running.append(still_running[-1] * (1.0 - lam))
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 3.8))
    width = 0.38
    ax.bar(
        [n - width / 2 for n in steps],
        lambdas[:-1] + [1.0],
        width,
        color="#bbbbbb",
        label=r"$\lambda_n$: halt now, if still running",
    )
    ax.bar(
        [n + width / 2 for n in steps],
        halting_probs,
        width,
        color=style.color("pondernet"),
        label=r"$p_n$: halt at step $n$",
    )
    ax.plot(steps, still_running, "k.--", label=r"$\prod_{j<n}(1-\lambda_j)$: still running")
    _steps_axis(ax, len(steps))
    ax.set_xticks(steps)
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1.05)
    ax.set_title("From conditional $\\lambda_n$ to the halting distribution $p_n$")
    style.legend_below(fig, ax, ncol=2)
    return fig


@style.book_figure
def plot_halting_vs_prior(
    halting_probs: Mapping[str, Sequence[float]] | Sequence[float],
    prior: Sequence[float],
    lambda_p: float,
    title: str | None = None,
) -> Figure:
    """Learned halting distributions (mean ``p_n`` over a test set) beside the geometric prior.

    Two panels with shared axes: left the truncated prior ``p_G(lambda_p)``, right the learned
    distribution(s) with the prior's outline over them. Means ``E[n]`` are given in the legend.

    Args:
        halting_probs: one distribution of length ``N``, or ``label -> distribution``; the first
            label is drawn as bars, the others as lines.
        prior: ``p_G(n)``, length ``N``.
    """
    check_lambda_p(lambda_p)
    prior = finite_numbers("prior", prior, "p_G(n)")
    names = {}
    if not isinstance(halting_probs, Mapping):
        halting_probs, names = {"PonderNet": halting_probs}, {"PonderNet": "halting_probs"}
    check_not_empty("halting_probs", halting_probs, "distribution")
    for label, dist in halting_probs.items():
        name = names.get(label, f"halting_probs[{label!r}]")
        if len(finite_numbers(name, dist, "p_n")) != len(prior):
            raise ValueError(f"{name} must hold one p_n per step of prior ({len(prior)}), got {len(dist)}")
    steps = list(range(1, len(prior) + 1))

    def mean(dist: Sequence[float]) -> float:
        return sum(n * float(p) for n, p in zip(steps, dist))

    fig, (ax_prior, ax_learned) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8), sharey=True)
    ax_prior.bar(steps, prior, color=style.PRIOR_COLOR, label=f"prior $p_G$, mean {mean(prior):.2f}")
    ax_prior.set_title(f"prior $p_G(\\lambda_p={lambda_p:g})$")
    ax_prior.set_ylabel("halting probability")
    for index, (label, dist) in enumerate(halting_probs.items()):
        dist = [float(v) for v in dist]
        text = f"{label}, mean {mean(dist):.2f}"
        if index == 0:
            ax_learned.bar(steps, dist, color=style.color("pondernet"), alpha=0.85, label=text)
        else:
            ax_learned.plot(steps, dist, "o-", color="k", ms=3, lw=1.2, label=text)
    ax_learned.step(steps, prior, where="mid", color=style.PRIOR_COLOR, lw=1.2, label="prior's outline")
    ax_learned.set_title("learned: mean $p_n$")
    for ax in (ax_prior, ax_learned):
        _steps_axis(ax, len(steps))
    ax_prior.set_ylim(0, max(max(prior), *(max(float(v) for v in d) for d in halting_probs.values())) * 1.15)
    style.legend_below(fig, ncol=2)
    fig.suptitle(title or f"Halting distribution against the prior, $\\lambda_p = {lambda_p:g}$")
    return fig


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
    if seeds > 1:
        for shade, seed_values in zip(style.seed_colors(method, seeds), table.T):
            ax.plot(values, seed_values.tolist(), "-", color=shade, lw=0.7, alpha=0.6)
    ax.plot(values, table.mean(dim=1).tolist(), "o-", color=style.color(method), lw=2.2, ms=4,
            label=f"{label}: {_seeds_label(seeds)}" if label else None)


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
            in the same seed order at every value; each has ``accuracy`` and ``mean_ponder_steps``
            (:class:`ponderlib.experiments.parity.HaltingSummary`).
    """
    fig, axes = plt.subplots(2, 2, figsize=(style.MAX_WIDTH, 6.0), sharex="col")
    methods = ((act_runs, "act", r"$\tau$"), (pondernet_runs, "pondernet", r"$\lambda_p$"))
    for column, (runs, method, name) in enumerate(methods):
        values = list(runs)
        label = style.label(method)
        for row, attribute in enumerate(("accuracy", "mean_ponder_steps")):
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
            in increasing ``lambda_p``; each has ``accuracy`` and ``expected_ponder_steps``
            (:class:`ponderlib.experiments.parity.HaltingSummary`).
        prior_means: ``lambda_p`` -> the mean of the prior the runs were trained with, for every key of ``runs``.
        solved: the accuracy from which a run solves the task, drawn as a dotted line.
    """
    check_fraction("solved", solved)
    if set(prior_means) != set(runs):
        raise ValueError(f"prior_means must hold the lambda_p of runs, {sorted(runs)}; got {sorted(prior_means)}")
    for value, mean in prior_means.items():
        check_positive(f"prior_means[{value!r}]", mean)
    values = list(runs)
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8), sharex=True)
    _seed_lines(ax_acc, runs, "accuracy", "pondernet", style.label("pondernet"))
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
        shades = style.seed_colors(method, len(runs))
        for ax, values in ((ax_acc, accuracy), (ax_steps, steps)):
            if len(runs) > 1:
                for shade, seed_values in zip(shades, values):
                    ax.plot(difficulty, seed_values.tolist(), line_style, color=shade, lw=0.7, alpha=0.6)
            ax.plot(
                difficulty,
                values.mean(dim=0).tolist(),
                "o" + line_style,
                color=style.color(method),
                lw=2.2,
                ms=4,
                label=f"{label} ({_seeds_label(len(runs))})",
            )
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
            mean = [sum(values) / len(values) for values in zip(*(curve.extrapolation for curve in curves))]
            ax.plot(updates, mean, "-", color=style.color(methods[label]), lw=2.2, label="beyond the trained range, mean")
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
            ax.plot([sum(values) / len(values)] * 2, [y - 0.3, y + 0.3], "-", color="k", lw=2)
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


@style.book_figure
def plot_halting_tails(runs: Mapping[float, Sequence[object]], title: str = "") -> Figure:
    """Learned halting distributions on a log scale, one line per ``lambda_p`` (the mean ``p_n`` over seeds),
    each with the prior's decay ``(1 - lambda_p)^(n - m)`` drawn dashed from its most likely step ``m``: where
    the steps' losses tie, the loss is least with ``p_n`` in the prior's proportions, and the two run
    parallel.

    Args:
        runs: ``lambda_p`` -> its runs, one per seed, each a
            :class:`~ponderlib.experiments.parity.HaltingSummary` of one length; at least one.
    """
    from ponderlib.experiments.parity import TAIL_FLOOR, check_halting_runs

    check_halting_runs(runs)
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 4.0))
    shades = style.seed_colors("pondernet", len(runs))
    for shade, (value, seeds) in zip(shades, runs.items()):
        mean = torch.stack([h.halting_probs for h in seeds]).mean(dim=0)  # (N,)
        steps = [n for n in range(1, len(mean) + 1) if mean[n - 1] >= TAIL_FLOOR]
        ax.plot(steps, [float(mean[n - 1]) for n in steps], "o-", color=shade, ms=3, lw=1.4,
                label=f"$\\lambda_p = {value:g}$ ({_seeds_label(len(seeds))})")
        mode = int(mean.argmax()) + 1
        tail = [n for n in range(mode, len(mean)) if float(mean[mode - 1]) * (1 - value) ** (n - mode) >= TAIL_FLOOR]
        ax.plot(tail, [float(mean[mode - 1]) * (1 - value) ** (n - mode) for n in tail], "--", color=shade, lw=1)
    ax.plot([], [], "--", color="#555555", lw=1, label="the prior's decay from the peak $m$")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))  # 0.01, not a small 10^-2 exponent
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("halting probability $p_n$ (log scale)")
    _steps_axis(ax, len(next(iter(runs.values()))[0].halting_probs))
    style.legend_below(fig, ax, ncol=2)
    ax.set_title(title or "The learned tail falls at the prior's rate")
    return fig
