"""Plots shared by the chapters: one colour per method across the whole book.

Every figure function takes measured data (tensors or lists), returns a ``matplotlib`` ``Figure``
with labelled axes (units where there are units) and a title that says what it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

METHOD_COLORS = {
    "act": "#1f77b4",
    "pondernet": "#d62728",
    "pointer": "#2ca02c",
    "seq2seq": "#7f7f7f",
    "seq2seq+attention": "#9467bd",
    "prior": "#555555",
}
"""The book's colour for each method (and for the geometric prior), the same in every chapter."""


# --- PonderNet (chapter 2) -------------------------------------------------------------------


def _steps_axis(ax, max_steps: int) -> None:
    ax.set_xlabel("ponder step n")
    ax.set_xticks(range(1, max_steps + 1, max(1, max_steps // 10)))
    ax.set_xlim(0.4, max_steps + 0.6)


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
    ax.bar([n + width / 2 for n in steps], halting_probs, width, color=METHOD_COLORS["pondernet"], label=r"$p_n$ (halt at step $n$)")
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
    ax_prior.bar(steps, prior, color=METHOD_COLORS["prior"], label=f"$p_G$, mean {mean(prior):.2f}")
    ax_prior.set_title(f"prior $p_G(\\lambda_p={lambda_p:g})$")
    ax_prior.set_ylabel("probability of halting at step n")
    for index, (label, dist) in enumerate(halting_probs.items()):
        dist = [float(v) for v in dist]
        text = f"{label}, mean {mean(dist):.2f}"
        if index == 0:
            ax_learned.bar(steps, dist, color=METHOD_COLORS["pondernet"], alpha=0.85, label=text)
        else:
            ax_learned.plot(steps, dist, "o-", color="k", ms=3, lw=1.2, label=text)
    ax_learned.step(steps, prior, where="mid", color=METHOD_COLORS["prior"], lw=1.2, label="prior")
    ax_learned.set_title("learned: mean $p_n$ over test inputs")
    for ax in (ax_prior, ax_learned):
        _steps_axis(ax, len(steps))
        ax.legend(fontsize=8)
    ax_prior.set_ylim(0, max(max(prior), *(max(float(v) for v in d) for d in halting_probs.values())) * 1.15)
    fig.suptitle(title or f"Halting distribution against the prior, $\\lambda_p = {lambda_p:g}$")
    fig.tight_layout()
    return fig


def plot_training_histories(histories: Mapping[str, object], title: str = "Training on parity") -> Figure:
    """Held-out accuracy and ponder steps against training step, one line per method.

    Args:
        histories: ``method -> History`` (:class:`ponderlib.training.History`); a key of
            :data:`METHOD_COLORS` picks the colour.
    """
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for method, history in histories.items():
        color = METHOD_COLORS.get(method)
        ax_acc.plot(history.step, history.metrics["accuracy"], color=color, label=method)
        ax_steps.plot(history.step, history.metrics["ponder_steps"], color=color, label=method)
    ax_acc.set_ylabel("held-out accuracy")
    ax_acc.set_ylim(0.4, 1.02)
    ax_steps.set_ylabel("mean ponder steps at inference")
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("training step (batches)")
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_by_difficulty(evaluations: Mapping[str, object], trained_max: int | None = None, title: str | None = None) -> Figure:
    """Accuracy and ponder steps at each difficulty (non-zero entries), one line per method.

    Args:
        evaluations: ``method -> DifficultyEvaluation`` (:mod:`ponderlib.experiments`).
        trained_max: the largest difficulty seen in training; harder ones are shaded as unseen.
    """
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for method, evaluation in evaluations.items():
        color = METHOD_COLORS.get(method)
        difficulty = evaluation.difficulty.tolist()
        ax_acc.plot(difficulty, evaluation.accuracy.tolist(), "o-", color=color, label=method)
        ax_steps.plot(difficulty, evaluation.mean_steps.tolist(), "o-", color=color, label=f"{method}: executed")
        if method == "pondernet":
            ax_steps.plot(difficulty, evaluation.expected_steps.tolist(), "s--", color=color, ms=3, label=f"{method}: $E[n]$")
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


def plot_sensitivity(act_runs: Sequence[object], pondernet_runs: Sequence[object]) -> Figure:
    """ACT against ``tau`` and PonderNet against ``lambda_p``: accuracy (top) and ponder steps (bottom).

    Args:
        act_runs, pondernet_runs: :class:`ponderlib.experiments.SweepRun` lists, ``value`` being
            ``tau`` and ``lambda_p``.
    """
    fig, axes = plt.subplots(2, 2, figsize=(9.0, 5.4), sharex="col")
    for column, (runs, method, name) in enumerate(((act_runs, "act", r"$\tau$"), (pondernet_runs, "pondernet", r"$\lambda_p$"))):
        values = [run.value for run in runs]
        color = METHOD_COLORS[method]
        axes[0, column].plot(values, [run.accuracy for run in runs], "o-", color=color)
        axes[1, column].plot(values, [run.mean_steps for run in runs], "o-", color=color)
        axes[0, column].set_title(f"{method}: sensitivity to {name}")
        axes[0, column].set_ylim(0.4, 1.02)
        axes[1, column].set_xlabel(f"{name} (log scale)")
        axes[1, column].set_xscale("log")
    axes[0, 0].set_ylabel("held-out accuracy")
    axes[1, 0].set_ylabel("mean ponder steps")
    fig.tight_layout()
    return fig
