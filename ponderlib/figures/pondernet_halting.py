"""Chapter 2's figures of PonderNet's halting distribution ``p_n``: from the conditional ``lambda_n`` to
``p_n`` for one input, learned distributions beside the geometric prior ``p_G(lambda_p)``, and the learned
tails on a log scale against the prior's decay. Runs over seeds and settings are
:mod:`ponderlib.figures.pondernet`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ponderlib.core.records import finite_numbers
from ponderlib.core.validation import check_lambda_p, check_not_empty
from ponderlib.figures import style


def _steps_axis(ax, max_ponder_steps: int) -> None:
    ax.set_xlabel("ponder step n")
    ticks = range(1, max_ponder_steps + 1) if max_ponder_steps <= 10 else [1, *range(5, max_ponder_steps + 1, 5)]
    ax.set_xticks(list(ticks))
    ax.set_xlim(0.4, max_ponder_steps + 0.6)


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
    halting_distribution: Mapping[str, Sequence[float]] | Sequence[float],
    prior: Sequence[float],
    lambda_p: float,
    title: str | None = None,
) -> Figure:
    """Learned halting distributions (mean ``p_n`` over a test set) beside the geometric prior.

    Two panels with shared axes: left the truncated prior ``p_G(lambda_p)``, right the learned
    distribution(s) with the prior's outline over them. Means ``E[n]`` are given in the legend.

    Args:
        halting_distribution: one distribution of length ``N``, or ``label -> distribution``; the first
            label is drawn as bars, the others as lines.
        prior: ``p_G(n)``, length ``N``.
    """
    check_lambda_p(lambda_p)
    prior = finite_numbers("prior", prior, "p_G(n)")
    names = {}
    if not isinstance(halting_distribution, Mapping):
        halting_distribution, names = {"PonderNet": halting_distribution}, {"PonderNet": "halting_distribution"}
    check_not_empty("halting_distribution", halting_distribution, "distribution")
    for label, dist in halting_distribution.items():
        name = names.get(label, f"halting_distribution[{label!r}]")
        if len(finite_numbers(name, dist, "p_n")) != len(prior):
            raise ValueError(f"{name} must hold one p_n per step of prior ({len(prior)}), got {len(dist)}")
    steps = list(range(1, len(prior) + 1))

    def mean(dist: Sequence[float]) -> float:
        return sum(n * float(p) for n, p in zip(steps, dist))

    fig, (ax_prior, ax_learned) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8), sharey=True)
    ax_prior.bar(steps, prior, color=style.PRIOR_COLOR, label=f"prior $p_G$, mean {mean(prior):.2f}")
    ax_prior.set_title(f"prior $p_G(\\lambda_p={lambda_p:g})$")
    ax_prior.set_ylabel("halting probability")
    for index, (label, dist) in enumerate(halting_distribution.items()):
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
    ax_prior.set_ylim(0, max(max(prior), *(max(float(v) for v in d) for d in halting_distribution.values())) * 1.15)
    style.legend_below(fig, ncol=2)
    fig.suptitle(title or f"Halting distribution against the prior, $\\lambda_p = {lambda_p:g}$")
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
        mean = torch.stack([h.halting_distribution for h in seeds]).mean(dim=0)  # (N,)
        steps = [n for n in range(1, len(mean) + 1) if mean[n - 1] >= TAIL_FLOOR]
        ax.plot(steps, [float(mean[n - 1]) for n in steps], "o-", color=shade, ms=3, lw=1.4,
                label=f"$\\lambda_p = {value:g}$ ({style.mean_of_seeds(len(seeds))})")
        mode = int(mean.argmax()) + 1
        tail = [n for n in range(mode, len(mean)) if float(mean[mode - 1]) * (1 - value) ** (n - mode) >= TAIL_FLOOR]
        ax.plot(tail, [float(mean[mode - 1]) * (1 - value) ** (n - mode) for n in tail], "--", color=shade, lw=1)
    ax.plot([], [], "--", color="#555555", lw=1, label="the prior's decay from the peak $m$")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))  # 0.01, not a small 10^-2 exponent
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("halting probability $p_n$ (log scale)")
    _steps_axis(ax, len(next(iter(runs.values()))[0].halting_distribution))
    style.legend_below(fig, ax, ncol=2)
    ax.set_title(title or "The learned tail falls at the prior's rate")
    return fig
