"""Chapter 2's tables (Markdown, ``$...$`` is math), from live runs and committed evidence, read through
:class:`~ponderlib.experiments.parity.HaltingSummary` and
:class:`~ponderlib.experiments.pondernet.DifficultySummary`. The prose around them is the chapter's own.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from ponderlib.core.records import RunSummary, summary_value
from ponderlib.core.validation import (
    MAX_LENGTH,
    check_fraction,
    check_int,
    check_non_negative,
    check_not_empty,
    ensure_type,
)
from ponderlib.experiments.parity import HaltingSummary, check_halting_runs, distribution_mean, mean_of
from ponderlib.experiments.pondernet import PRIOR_TRUNCATIONS, DifficultySummary, ExtrapolationCurve, prior_mean
from ponderlib.mechanisms.halting import expected_ponder_steps, geometric_prior
from ponderlib.presentation.tables import correlation_range, markdown_table, mean_range, require_groups

SOLVED = 0.95
"""Accuracy on the trained range from which a run "solves the task" (every table and verdict of chapter 2)."""


def prior_table(lambda_ps: Sequence[float], max_ponder_steps: int) -> str:
    """Both truncations of the geometric prior at each ``lambda_p``: ``p_G(1)``, ``p_G(N)``, the most
    likely step, and the mean computed from the distribution beside its closed form."""
    check_not_empty("lambda_ps", lambda_ps, "lambda_p")
    rows = []
    for lambda_p in lambda_ps:
        for truncation in PRIOR_TRUNCATIONS:
            prior = geometric_prior(lambda_p, max_ponder_steps, truncation)  # (N,)
            rows.append([f"{lambda_p:g}", truncation, f"{prior[0]:.4f}", f"{prior[-1]:.4f}", int(prior.argmax()) + 1,
                         f"{expected_ponder_steps(prior.unsqueeze(0)).item():.3f}",
                         f"{prior_mean(lambda_p, max_ponder_steps, truncation):.3f}"])
    header = ["$\\lambda_p$", "truncation", "$p_G(1)$", f"$p_G({max_ponder_steps})$", "most likely step",
              "mean $\\mathbb E[n]$", "closed form"]
    return markdown_table(header, rows, align="llrrrrr")


def trend_table(groups: Mapping[str, Sequence[DifficultySummary]], trained_max: int) -> str:
    """How ``E[n]`` moves with difficulty in several settings, each over its seeds: one row per setting,
    for comparing settings (an ablation against the runs it ablates) rather than seeds.

    Columns: accuracy on ``1..trained_max`` (mean, and the lowest seed), ``E[n]`` at the easiest and the
    hardest trained difficulty (means over seeds), in how many seeds ``E[n]`` falls with difficulty
    (``r < 0``), the range of ``r`` over seeds, and the ponder steps executed at inference (mean).

    Args:
        groups: a setting's label -> one summary per seed (at least one).
        trained_max: the hardest difficulty seen in training (``k``).
    """
    require_groups("groups", groups)
    check_int("trained_max", trained_max, minimum=1, maximum=MAX_LENGTH)
    for label, seeds in groups.items():
        for index, run in enumerate(seeds):
            ensure_type(f"groups[{label!r}][{index}]", run, DifficultySummary)
    rows = []
    for label, seeds in groups.items():
        r = [m.expected_difficulty_correlation for m in seeds]
        falls = sum(value < 0 for value in r)
        lowest = min(m.interpolation_accuracy for m in seeds)
        rows.append([label, f"{mean_of(seeds, 'interpolation_accuracy'):.3f} ({lowest:.3f})",
                     f"{mean_of(seeds, 'easiest_expected'):.2f} → {mean_of(seeds, 'hardest_expected'):.2f}",
                     f"{falls} of {len(seeds)}", correlation_range(r, "$\\mathbb E[n]$", count_undefined=True),
                     f"{mean_of(seeds, 'ponder_steps'):.2f}"])
    header = ["setting", f"accuracy 1..{trained_max} (lowest seed)", f"$\\mathbb E[n]$ at 1 → {trained_max}",
              "seeds where $\\mathbb E[n]$ falls", "$r$(difficulty, $\\mathbb E[n]$)", "ponder steps per input"]
    return markdown_table(header, rows, align="lrrrrr")


def lambda_table(runs: Mapping[float, Sequence[HaltingSummary]], max_ponder_steps: int, solved: float | None = None) -> str:
    """PonderNet's runs by ``lambda_p``: the prior's mean beside the learned mean ``E_p[n]``, the ponder steps
    run at inference and the accuracy on the trained range, each as the mean over seeds and their range.

    Args:
        runs: ``lambda_p`` -> its runs, one per seed, in increasing ``lambda_p``.
        max_ponder_steps: where the prior is cut (its mean is the normalised prior's).
        solved: if given, a last column counts the seeds whose accuracy reaches it (a fraction).
    """
    check_halting_runs(runs, max_ponder_steps)
    if solved is not None:
        check_fraction("solved", solved)
    header = ["$\\lambda_p$", "prior mean $\\mathbb E_{p_G}[n]$", "learned mean $\\mathbb E_p[n]$",
              "ponder steps at inference", "accuracy"]
    rows = [
        [f"{value:g}", f"{distribution_mean(geometric_prior(value, max_ponder_steps)):.2f}", mean_range([h.expected_ponder_steps for h in seeds]),
         mean_range([h.mean_ponder_steps for h in seeds]), mean_range([h.interpolation_accuracy for h in seeds], 3)]
        + ([f"{sum(h.interpolation_accuracy >= solved for h in seeds)} of {len(seeds)}"] if solved is not None else [])
        for value, seeds in runs.items()
    ]
    if solved is not None:
        header.append(f"seeds at accuracy {solved:g} or more")
    return markdown_table(header, rows, align="r" * len(header))


def tail_table(runs: Mapping[float, Sequence[HaltingSummary]], max_ponder_steps: int) -> str:
    """PonderNet's halting distribution against the KL's optimum for step losses that tie after some step:
    by ``lambda_p``, the ratio of the learned tail (:attr:`HaltingSummary.tail_ratio`) beside the prior's
    ``1 - lambda_p``, the most likely step, and the learned ``E[n]`` beside the prior's mean and the mean of
    the prior cut to the steps from the mode on (``mode - 1 + prior_mean(lambda_p, N - mode + 1)``: the
    normalised prior is geometric on any run of steps). Means over seeds with their range; seeds whose
    tail is too short to fit are counted.

    Args:
        runs: ``lambda_p`` -> its runs, one per seed (normalised prior cut at ``max_ponder_steps``).
    """
    check_halting_runs(runs, max_ponder_steps)
    rows = []
    for value, seeds in runs.items():
        ratios = [h.tail_ratio for h in seeds if h.tail_ratio is not None]
        from_mode = [h.mode - 1 + prior_mean(value, max_ponder_steps - h.mode + 1) for h in seeds]
        rows.append([
            f"{value:g}", f"{1 - value:.2f}",
            mean_range(ratios, 3) if ratios else "(too short)", f"{len(ratios)} of {len(seeds)}",
            mean_range([h.mode for h in seeds], 1), mean_range([h.expected_ponder_steps for h in seeds]),
            f"{prior_mean(value, max_ponder_steps):.2f}", mean_range(from_mode),
        ])
    header = ["$\\lambda_p$", "prior's ratio $1 - \\lambda_p$", "learned tail ratio", "seeds fitted", "most likely step",
              "learned $\\mathbb E_p[n]$", "prior's mean", "prior's mean from the mode on"]
    return markdown_table(header, rows, align="r" * len(header))


def setting_table(groups: Mapping[str, Sequence[HaltingSummary]]) -> str:
    """PonderNet's thinking time under several settings of one ``lambda_p``, one row per setting, each over
    its seeds (mean and range): accuracy on the trained range, the learned ``E_p[n]``, the ponder steps run
    at inference, the most likely step, ``p_N`` on the cap, and, where the runs kept their step profile,
    the first step whose prediction is right (:attr:`HaltingSummary.first_right_step`) and the largest
    distance of the learned ``p_n`` from the KL's optimum for the steps' own losses
    (:attr:`HaltingSummary.distance_from_optimum`), each with how many seeds kept it.

    Args:
        groups: a setting's label -> one summary per seed (at least one).
    """
    require_groups("groups", groups)
    for label, seeds in groups.items():
        for index, run in enumerate(seeds):
            ensure_type(f"groups[{label!r}][{index}]", run, HaltingSummary)
    rows = []
    for label, seeds in groups.items():
        profiled = [h for h in seeds if h.kl_optimal_halting_distribution is not None]
        right = [h.first_right_step for h in seeds if h.step_accuracy is not None]
        rows.append([
            label, len(seeds), mean_range([h.interpolation_accuracy for h in seeds], 3),
            mean_range([h.expected_ponder_steps for h in seeds]),
            mean_range([h.mean_ponder_steps for h in seeds]), mean_range([h.mode for h in seeds], 1),
            mean_range([h.mass_on_cap for h in seeds], 3),
            (f"{mean_range(right, 1)} ({len(right)} of {len(seeds)})" if None not in right else "not all right") if right else "(not kept)",
            f"{max(h.distance_from_optimum for h in profiled):.3f} ({len(profiled)} of {len(seeds)})" if profiled else "(not kept)",
        ])
    header = ["setting", "seeds", "accuracy", "learned $\\mathbb E_p[n]$", "ponder steps at inference", "most likely step",
              "$p_N$ on the cap", "first right step", "distance from the optimum, largest"]
    return markdown_table(header, rows, align="lrrrrrrrr")


def extrapolation_table(groups: Mapping[str, Sequence[object]]) -> str:
    """Every run of an extrapolation evidence set, a row per seed and a mean row per group: accuracy on the
    trained range and beyond it after training, the best accuracy beyond it at any evaluation during
    training (and when), and the mean ponder steps executed at inference on each range.

    Args:
        groups: a label (a model, a setting) -> its runs, one per seed: records of the evidence or
            trained results, each trained on ``1..k < n_elems`` non-zero entries and recording its
            :class:`~ponderlib.experiments.pondernet.ExtrapolationCurve`.
    """
    require_groups("groups", groups)
    rows = []
    for label, runs in groups.items():
        measured = [(RunSummary.of(run), DifficultySummary.of(run), ExtrapolationCurve.of(run)) for run in runs]
        for summary, m, curve in measured:
            best, at = curve.best
            seed = summary_value(summary_value(summary, "config"), "seed", "run's config")
            rows.append([label, seed, f"{m.interpolation_accuracy:.3f}", f"{m.extrapolation_accuracy:.3f}",
                         f"{best:.3f} ({at:,})", f"{m.ponder_steps:.2f}", f"{m.extrapolation_ponder_steps:.2f}"])
        means = [statistics.mean([getattr(m, key) for _, m, _ in measured]) for key in
                 ("interpolation_accuracy", "extrapolation_accuracy", "ponder_steps", "extrapolation_ponder_steps")]
        best_mean = statistics.mean([curve.best[0] for _, _, curve in measured])
        rows.append([f"**{label}: mean**", "", f"**{means[0]:.3f}**", f"**{means[1]:.3f}**", f"**{best_mean:.3f}**",
                     f"**{means[2]:.2f}**", f"**{means[3]:.2f}**"])
    config = summary_value(RunSummary.of(next(iter(groups.values()))[0]), "config")
    k, n = summary_value(config, "max_nonzero", "run's config"), summary_value(config, "n_elems", "run's config")
    return markdown_table(
        ["model", "seed", f"accuracy, 1..{k}", f"accuracy, {k + 1}..{n}", f"best on {k + 1}..{n} (update)",
         f"steps, 1..{k}", f"steps, {k + 1}..{n}"],
        rows, align="lrrrrrr",
    )


def tau_table(runs: Mapping[float, Sequence[DifficultySummary]]) -> str:
    """ACT's runs by ``tau`` (Banino et al.'s fig. 2a): accuracy on the trained range and beyond it, the ponder
    steps run at inference on the trained range (each the mean over seeds and their range), and how many
    seeds solve the task (accuracy :data:`SOLVED` or more on the trained range).

    Args:
        runs: ``tau`` -> its runs, one :class:`~ponderlib.experiments.pondernet.DifficultySummary` per seed.
    """
    require_groups("runs", runs)
    for tau in runs:
        check_non_negative("tau", tau)
    rows = [
        [f"{tau:g}", mean_range([m.interpolation_accuracy for m in seeds], 3),
         f"{sum(m.interpolation_accuracy >= SOLVED for m in seeds)} of {len(seeds)}",
         mean_range([m.extrapolation_accuracy for m in seeds], 3), mean_range([m.ponder_steps for m in seeds])]
        for tau, seeds in runs.items()
    ]
    header = ["$\\tau$", "accuracy, trained range", f"seeds at {SOLVED:g} or more", "accuracy beyond it",
              "ponder steps at inference"]
    return markdown_table(header, rows, align="rrrrr")
