"""Chapter 2's figures: PonderNet's halting distribution and its prior, the methods against difficulty
over seeds, every ponder step's accuracy, and the sensitivity to ``tau`` and ``lambda_p``.

Every figure function takes measured data (tensors or lists), returns a ``matplotlib`` ``Figure``
with labelled axes (units where there are units) and a title that says what it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from ponderlib.figures import style


def _steps_axis(ax, max_ponder_steps: int) -> None:
    ax.set_xlabel("ponder step n")
    ax.set_xticks(range(1, max_ponder_steps + 1, max(1, max_ponder_steps // 10)))
    ax.set_xlim(0.4, max_ponder_steps + 0.6)


def plot_lambdas_to_halting(lambdas: Sequence[float], halting_probs: Sequence[float]) -> Figure:
    """PonderNet's halting for one input: conditional ``lambda_n`` against unconditional ``p_n``.

    Args:
        lambdas: ``lambda_n``, length ``N`` (the last one is treated as 1).
        halting_probs: ``p_n = lambda_n prod_{j<n}(1 - lambda_j)``, length ``N``.
    """
    lambdas = [float(v) for v in lambdas]
    halting_probs = [float(v) for v in halting_probs]
    steps = list(range(1, len(lambdas) + 1))
    still_running = [1.0]
    for lam in lambdas[:-1]:
        still_running.append(still_running[-1] * (1.0 - lam))
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.38
    ax.bar([n - width / 2 for n in steps], lambdas[:-1] + [1.0], width, color="#bbbbbb", label=r"$\lambda_n$ (halt now, if still running)")
    ax.bar([n + width / 2 for n in steps], halting_probs, width, color=style.color("pondernet"), label=r"$p_n$ (halt at step $n$)")
    ax.plot(steps, still_running, "k.--", label=r"$\prod_{j<n}(1-\lambda_j)$ (still running)")
    _steps_axis(ax, len(steps))
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1.05)
    ax.set_title("From conditional $\\lambda_n$ to the halting distribution $p_n$")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def plot_halting_vs_prior(
    halting_probs: Mapping[str, Sequence[float]] | Sequence[float], prior: Sequence[float], lambda_p: float, title: str | None = None
) -> Figure:
    """Learned halting distributions (mean ``p_n`` over a test set) beside the geometric prior.

    Two panels with shared axes: left the truncated prior ``p_G(lambda_p)``, right the learned
    distribution(s) with the prior's outline over them. Means ``E[n]`` are given in the legends.

    Args:
        halting_probs: one distribution of length ``N``, or ``label -> distribution``; the first
            label is drawn as bars, the others as lines.
        prior: ``p_G(n)``, length ``N``.
    """
    if not isinstance(halting_probs, Mapping):
        halting_probs = {"PonderNet": halting_probs}
    prior = [float(v) for v in prior]
    steps = list(range(1, len(prior) + 1))

    def mean(dist: Sequence[float]) -> float:
        return sum(n * float(p) for n, p in zip(steps, dist))

    fig, (ax_prior, ax_learned) = plt.subplots(1, 2, figsize=(9.0, 3.4), sharey=True)
    ax_prior.bar(steps, prior, color=style.PRIOR_COLOR, label=f"$p_G$, mean {mean(prior):.2f}")
    ax_prior.set_title(f"prior $p_G(\\lambda_p={lambda_p:g})$")
    ax_prior.set_ylabel("probability of halting at step n")
    for index, (label, dist) in enumerate(halting_probs.items()):
        dist = [float(v) for v in dist]
        text = f"{label}, mean {mean(dist):.2f}"
        if index == 0:
            ax_learned.bar(steps, dist, color=style.color("pondernet"), alpha=0.85, label=text)
        else:
            ax_learned.plot(steps, dist, "o-", color="k", ms=3, lw=1.2, label=text)
    ax_learned.step(steps, prior, where="mid", color=style.PRIOR_COLOR, lw=1.2, label="prior")
    ax_learned.set_title("learned: mean $p_n$ over test inputs")
    for ax in (ax_prior, ax_learned):
        _steps_axis(ax, len(steps))
        ax.legend(fontsize=8)
    ax_prior.set_ylim(0, max(max(prior), *(max(float(v) for v in d) for d in halting_probs.values())) * 1.15)
    fig.suptitle(title or f"Halting distribution against the prior, $\\lambda_p = {lambda_p:g}$")
    fig.tight_layout()
    return fig


def plot_training_histories(histories: Mapping[str, object], title: str = "Training on parity") -> Figure:
    """Held-out accuracy and ponder steps against training updates, one line per method.

    Args:
        histories: ``method -> History`` (:class:`ponderlib.core.engine.History`); a key of
            :func:`ponderlib.figures.style.color` picks the colour.
    """
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for method, history in histories.items():
        color = style.color(method)
        ax_acc.plot(history.update, history.metrics["accuracy"], color=color, label=method)
        ax_steps.plot(history.update, history.metrics["ponder_steps"], color=color, label=method)
    ax_acc.set_ylabel("held-out accuracy")
    ax_acc.set_ylim(0.4, 1.02)
    ax_steps.set_ylabel("mean ponder steps at inference")
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("training updates")
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_by_difficulty(evaluations: Mapping[str, object], trained_max: int | None = None, title: str | None = None) -> Figure:
    """Accuracy and ponder steps at each difficulty (non-zero entries), one line per method.

    Args:
        evaluations: ``method -> DifficultyEvaluation`` (:mod:`ponderlib.experiments.parity`).
        trained_max: the largest difficulty seen in training; harder ones are shaded as unseen.
    """
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for method, evaluation in evaluations.items():
        color = style.color(method)
        difficulty = evaluation.difficulty.tolist()
        ax_acc.plot(difficulty, evaluation.accuracy.tolist(), "o-", color=color, label=method)
        ax_steps.plot(difficulty, evaluation.ponder_steps.tolist(), "o-", color=color, label=f"{method}: executed")
        if method == "pondernet":
            ax_steps.plot(difficulty, evaluation.expected_ponder_steps.tolist(), "s--", color=color, ms=3, label=f"{method}: $E[n]$")
    ax_acc.set_ylabel("accuracy")
    ax_acc.set_ylim(0.4, 1.02)
    ax_steps.set_ylabel("mean ponder steps")
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("difficulty (number of non-zero entries)")
        if trained_max is not None:
            ax.axvspan(trained_max + 0.5, max(difficulty) + 0.5, color="#eeeeee", zorder=0, label="not seen in training")
        ax.legend(fontsize=8)
    fig.suptitle(title or "Accuracy and ponder steps against difficulty")
    fig.tight_layout()
    return fig


def plot_sensitivity(
    act_runs: Mapping[float, Sequence[object]], pondernet_runs: Mapping[float, Sequence[object]], title: str | None = None
) -> Figure:
    """ACT against ``tau`` and PonderNet against ``lambda_p``: accuracy (top) and ponder steps (bottom),
    a thin line per seed and a thick one for the mean over seeds.

    Args:
        act_runs, pondernet_runs: ``tau`` (and ``lambda_p``) -> the runs at that value, one per seed,
            in the same seed order at every value; each has ``accuracy`` and ``mean_ponder_steps``
            (:class:`ponderlib.experiments.parity.HaltingSummary`).
    """
    fig, axes = plt.subplots(2, 2, figsize=(9.0, 5.4), sharex="col")
    for column, (runs, method, name) in enumerate(((act_runs, "act", r"$\tau$"), (pondernet_runs, "pondernet", r"$\lambda_p$"))):
        values = list(runs)
        seeds = min(len(seed_runs) for seed_runs in runs.values())
        color = style.color(method)
        for row, attribute in enumerate(("accuracy", "mean_ponder_steps")):
            table = torch.tensor([[float(getattr(run, attribute)) for run in runs[value][:seeds]] for value in values])  # (V, S)
            if seeds > 1:
                for seed_values in table.T:
                    axes[row, column].plot(values, seed_values.tolist(), "-", color=color, lw=0.6, alpha=0.35)
            label = f"mean of {seeds} seeds" if seeds > 1 else "one seed"
            axes[row, column].plot(values, table.mean(dim=1).tolist(), "o-", color=color, lw=2, ms=4, label=label)
        axes[0, column].set_title(f"{method}: sensitivity to {name}")
        axes[0, column].set_ylim(0.4, 1.02)
        axes[0, column].legend(fontsize=8)
        axes[1, column].set_xlabel(f"{name} (log scale)")
        axes[1, column].set_xscale("log")
        axes[1, column].set_xticks(values, [f"{value:g}" for value in values])  # the grid's values, no minor labels
        axes[1, column].xaxis.set_minor_formatter(NullFormatter())
    axes[0, 0].set_ylabel("accuracy")
    axes[1, 0].set_ylabel("mean ponder steps at inference")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_prior_truncations(
    priors: Mapping[str, Sequence[float]], learned: Mapping[str, Sequence[float]], lambda_p: float
) -> Figure:
    """The two truncations of the geometric prior (left) and what each did to a trained network (right).

    Args:
        priors: truncation name -> ``p_G(n)``, length ``N``.
        learned: truncation name -> mean learned ``p_n`` of a network trained with that prior,
            length ``N``; the same names as ``priors``, drawn in the same line style.
    """
    styles = ("-", "--", ":")
    fig, (ax_prior, ax_learned) = plt.subplots(1, 2, figsize=(9.0, 3.4), sharey=True)
    for line_style, (name, prior) in zip(styles, priors.items()):
        prior = [float(v) for v in prior]
        steps = range(1, len(prior) + 1)
        ax_prior.plot(steps, prior, "o" + line_style, color=style.PRIOR_COLOR, ms=3, label=f"{name}: $p_G(N)$ = {prior[-1]:.3f}")
    for line_style, (name, dist) in zip(styles, learned.items()):
        dist = [float(v) for v in dist]
        steps = range(1, len(dist) + 1)
        ax_learned.plot(steps, dist, "o" + line_style, color=style.color("pondernet"), ms=3, label=f"{name}: $p_N$ = {dist[-1]:.3f}")
    ax_prior.set_title(f"prior $p_G(\\lambda_p = {lambda_p:g})$ cut at $N$")
    ax_learned.set_title("learned: mean $p_n$ over test inputs")
    ax_prior.set_ylabel("probability of halting at step n")
    for ax in (ax_prior, ax_learned):
        _steps_axis(ax, len(steps))
        ax.legend(fontsize=8)
    fig.suptitle("Two truncations of the prior: the tail on the last step, or normalised")
    fig.tight_layout()
    return fig


def plot_step_accuracy(step_accuracies: Mapping[str, object], trained_max: int | None = None) -> Figure:
    """Heatmaps of each ponder step's accuracy (x: step, y: difficulty), one panel per run.

    Blue is right, white chance (0.5), red systematically wrong. White dots mark each difficulty's
    expected ponder steps ``E[n]``; a dashed line separates the difficulties seen in training
    (up to ``trained_max``) from the unseen ones.

    Args:
        step_accuracies: label -> :class:`ponderlib.experiments.pondernet.StepAccuracy`.
    """
    panels = len(step_accuracies)
    fig, axes = plt.subplots(1, panels, figsize=(3.3 * panels + 0.8, 3.4), sharey=True, squeeze=False)
    image = None
    for ax, (label, result) in zip(axes[0], step_accuracies.items()):
        difficulty = result.difficulty.tolist()
        max_ponder_steps = result.accuracy.shape[1]
        extent = (0.5, max_ponder_steps + 0.5, min(difficulty) - 0.5, max(difficulty) + 0.5)
        image = ax.imshow(result.accuracy.numpy(), origin="lower", aspect="auto", cmap="RdBu", vmin=0.0, vmax=1.0, extent=extent)
        steps = torch.arange(1, max_ponder_steps + 1, dtype=result.halting_probs.dtype)
        ax.plot((result.halting_probs * steps).sum(dim=1).tolist(), difficulty, "o", color="white", mec="k", ms=4, label="$E[n]$")
        if trained_max is not None and trained_max < max(difficulty):
            ax.axhline(trained_max + 0.5, color="k", ls="--", lw=1)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("ponder step n")
    axes[0, 0].set_ylabel("difficulty (non-zero entries)")
    axes[0, 0].legend(fontsize=7, loc="upper right")
    fig.colorbar(image, ax=axes[0].tolist(), label="accuracy of $y_n$")
    fig.suptitle("Accuracy of each ponder step's prediction, by difficulty (dashed: above it, unseen in training)")
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


def plot_seeds_by_difficulty(
    evaluations: Mapping[str, Sequence[object]],
    methods: Mapping[str, str],
    trained_max: int | None = None,
    title: str | None = None,
) -> Figure:
    """Accuracy and ponder steps against difficulty: a thin line per seed, a thick line for the mean.

    Ponder steps are the expected ``E[n]`` for PonderNet and the executed ``N(t)`` for ACT.

    Args:
        evaluations: label -> one :class:`ponderlib.tasks.parity.DifficultyEvaluation` per seed, or one
            run summary per seed (a record of the evidence, with the per-difficulty entries).
        methods: label -> the method those runs trained (``"act"`` or ``"pondernet"``), which sets
            the colour (:func:`ponderlib.figures.style.color`) and which ponder steps are drawn.
        trained_max: the largest difficulty seen in training; harder ones are shaded as unseen.
    """
    missing = [label for label in evaluations if label not in methods]
    if missing:
        raise ValueError(f"methods must name the method of every label, missing {missing[0]!r}")
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    for line_style, (label, runs) in zip(("-", "--", ":"), evaluations.items()):
        color = style.color(methods[label])
        curves = [_difficulty_curves(run, methods[label] == "act") for run in runs]
        difficulty = curves[0][0]
        accuracy = torch.stack([curve[1] for curve in curves])  # (S, D)
        steps = torch.stack([curve[2] for curve in curves])  # (S, D)
        thin = 0.5 if len(runs) <= 5 else 0.25
        for ax, values in ((ax_acc, accuracy), (ax_steps, steps)):
            for seed_values in values:
                ax.plot(difficulty, seed_values.tolist(), line_style, color=color, lw=0.7, alpha=thin)
            ax.plot(difficulty, values.mean(dim=0).tolist(), "o" + line_style, color=color, lw=2, ms=4, label=f"{label} (mean of {len(runs)})")
    ax_acc.set_ylabel("accuracy")
    ax_acc.axhline(0.5, color="#999999", lw=0.8)
    ax_steps.set_ylabel("ponder steps: $E[n]$ (PonderNet), $N(t)$ (ACT)")
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("difficulty (number of non-zero entries)")
        if trained_max is not None and trained_max < max(difficulty):
            ax.axvspan(trained_max + 0.5, max(difficulty) + 0.5, color="#eeeeee", zorder=0)
        ax.legend(fontsize=7)
    fig.suptitle(title or "Accuracy and ponder steps against difficulty, every seed")
    fig.tight_layout()
    return fig
