"""Chapter 2's tables, built from its results: the live runs of an execution and the committed evidence.

Each function returns a Markdown table (``$...$`` is math); a page shows it with
:func:`ponderlib.presentation.tables.show`. The functions only tabulate what they are given: the prose
around them is the chapter's Markdown, and the numbers it quotes are asserted in the chapter.

The runs are read through :class:`~ponderlib.experiments.parity.HaltingSummary` (a run's halting) and
:class:`~ponderlib.experiments.pondernet.DifficultySummary` (a run's numbers against difficulty), the
same for a live run and a record of the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ponderlib.core.engine import run_summary
from ponderlib.experiments.parity import HaltingSummary, distribution_mean, mean_of
from ponderlib.experiments.pondernet import PRIOR_TRUNCATIONS, DifficultySummary, ExtrapolationCurve, prior_mean
from ponderlib.mechanisms.halting import expected_ponder_steps, geometric_prior
from ponderlib.presentation.tables import markdown_table

SOLVED = 0.95
"""Accuracy on the trained range from which a run "solves the task" (every table and verdict of chapter 2)."""

ALMOST_PERFECT = 0.9
"""Accuracy beyond the trained range from which a run extrapolates "almost perfect[ly]"."""

CHANCE = (0.45, 0.55)
"""Accuracy at "chance level" on a balanced binary task."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _spread(values: Sequence[float], digits: int = 2) -> str:
    """``"mean (min to max)"``: ``_spread([1, 2, 6]) == "3.00 (1.00 to 6.00)"``."""
    return f"{_mean(values):.{digits}f} ({min(values):.{digits}f} to {max(values):.{digits}f})"


def _span(rows: Sequence[DifficultySummary], key: str) -> str:
    """``"min to max"`` of ``key`` over seeds, signed for the trend ``r``."""
    values = [getattr(m, key) for m in rows]
    return f"{min(values):+.2f} to {max(values):+.2f}" if key == "trend" else f"{min(values):.2f} to {max(values):.2f}"


def prior_table(lambda_ps: Sequence[float], max_ponder_steps: int) -> str:
    """Both truncations of the geometric prior at each ``lambda_p``: ``p_G(1)``, ``p_G(N)``, the most
    likely step, and the mean computed from the distribution beside its closed form."""
    rows = []
    for lambda_p in lambda_ps:
        for truncation in PRIOR_TRUNCATIONS:
            prior = geometric_prior(lambda_p, max_ponder_steps, truncation)  # (N,)
            rows.append(
                [
                    f"{lambda_p:g}",
                    truncation,
                    f"{prior[0]:.4f}",
                    f"{prior[-1]:.4f}",
                    int(prior.argmax()) + 1,
                    f"{expected_ponder_steps(prior.unsqueeze(0)).item():.3f}",
                    f"{prior_mean(lambda_p, max_ponder_steps, truncation):.3f}",
                ]
            )
    header = [
        "$\\lambda_p$",
        "truncation",
        "$p_G(1)$",
        f"$p_G({max_ponder_steps})$",
        "most likely step",
        "mean $\\mathbb E[n]$",
        "closed form",
    ]
    return markdown_table(header, rows, align="llrrrrr")


def difficulty_table(
    measured: Mapping[str, Sequence[DifficultySummary]], seeds: Sequence[int], trained_max: int, n_elems: int
) -> str:
    """The live runs against difficulty, one row per model and seed.

    Args:
        measured: model label -> one summary per seed, in the order of ``seeds``.
        trained_max: the hardest difficulty seen in training (``k``); ``n_elems`` the hardest of all.
    """
    k = trained_max
    rows = [
        [
            label,
            seed,
            f"{m.accuracy:.3f}",
            f"{m.ponder_steps:.2f}",
            f"{m.easiest_expected:.2f} → {m.hardest_expected:.2f}",
            f"{m.trend:+.2f}",
            f"{m.extrapolation:.3f}",
            f"{m.hardest:.3f}",
        ]
        for label, summaries in measured.items()
        for seed, m in zip(seeds, summaries)
    ]
    header = [
        "model",
        "seed",
        f"accuracy 1..{k}",
        f"ponder steps per input, 1..{k}",
        f"$\\mathbb E[n]$ at 1 → {k}",
        "$r$(difficulty, $\\mathbb E[n]$)",
        f"accuracy {k + 1}..{n_elems}",
        f"accuracy at {n_elems}",
    ]
    return markdown_table(header, rows, align="lrrrrrrr")


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
    rows = []
    for label, seeds in groups.items():
        if not seeds:
            raise ValueError(f"groups must hold at least one summary per setting, {label!r} has none")
        falls = sum(m.trend < 0 for m in seeds)
        rows.append([
            label,
            f"{mean_of(seeds, 'accuracy'):.3f} ({min(m.accuracy for m in seeds):.3f})",
            f"{mean_of(seeds, 'easiest_expected'):.2f} → {mean_of(seeds, 'hardest_expected'):.2f}",
            f"{falls} of {len(seeds)}",
            _span(seeds, "trend"),
            f"{mean_of(seeds, 'ponder_steps'):.2f}",
        ])
    header = [
        "setting",
        f"accuracy 1..{trained_max} (lowest seed)",
        f"$\\mathbb E[n]$ at 1 → {trained_max}",
        "seeds where $\\mathbb E[n]$ falls",
        "$r$(difficulty, $\\mathbb E[n]$)",
        "ponder steps per input",
    ]
    return markdown_table(header, rows, align="lrrrrr")


def lambda_table(runs: Mapping[float, Sequence[HaltingSummary]], max_ponder_steps: int, solved: float | None = None) -> str:
    """PonderNet's runs by ``lambda_p``: the prior's mean beside the learned mean ``E_p[n]``, the ponder steps
    run at inference and the accuracy on the trained range, each as the mean over seeds and their range.

    Args:
        runs: ``lambda_p`` -> its runs, one per seed, in increasing ``lambda_p``.
        max_ponder_steps: where the prior is cut (its mean is the normalised prior's).
        solved: if given, a last column counts the seeds whose accuracy reaches it.
    """
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each lambda_p to at least one run")
    header = ["$\\lambda_p$", "prior mean $\\mathbb E_{p_G}[n]$", "learned mean $\\mathbb E_p[n]$",
              "ponder steps at inference", "accuracy"]
    rows = [
        [f"{value:g}", f"{distribution_mean(geometric_prior(value, max_ponder_steps)):.2f}", _spread([h.expected_ponder_steps for h in seeds]),
         _spread([h.mean_ponder_steps for h in seeds]), _spread([h.accuracy for h in seeds], 3)]
        + ([f"{sum(h.accuracy >= solved for h in seeds)} of {len(seeds)}"] if solved is not None else [])
        for value, seeds in runs.items()
    ]
    if solved is not None:
        header.append(f"seeds at accuracy {solved:g} or more")
    return markdown_table(header, rows, align="r" * len(header))


def extrapolation_table(groups: Mapping[str, Sequence[object]]) -> str:
    """Every run of an extrapolation evidence set, a row per seed and a mean row per group: accuracy on the
    trained range and beyond it after training, the best accuracy beyond it at any evaluation during
    training (and when), and the mean ponder steps executed at inference on each range.

    Args:
        groups: a label (a model, a setting) -> its runs, one per seed: records of the evidence or
            trained results, each trained on ``1..k < n_elems`` non-zero entries and recording its
            :class:`~ponderlib.experiments.pondernet.ExtrapolationCurve`.
    """
    rows = []
    for label, runs in groups.items():
        if not runs:
            raise ValueError(f"groups must hold at least one run per label, {label!r} has none")
        measured = [(run_summary(run), DifficultySummary.of(run), ExtrapolationCurve.of(run)) for run in runs]
        for summary, m, curve in measured:
            best, at = curve.best
            rows.append([label, summary["config"]["seed"], f"{m.accuracy:.3f}", f"{m.extrapolation:.3f}",
                         f"{best:.3f} ({at:,})", f"{m.ponder_steps:.2f}", f"{m.extrapolation_ponder_steps:.2f}"])
        means = [_mean([getattr(m, key) for _, m, _ in measured]) for key in
                 ("accuracy", "extrapolation", "ponder_steps", "extrapolation_ponder_steps")]
        best_mean = _mean([curve.best[0] for _, _, curve in measured])
        rows.append([f"**{label}: mean**", "", f"**{means[0]:.3f}**", f"**{means[1]:.3f}**", f"**{best_mean:.3f}**",
                     f"**{means[2]:.2f}**", f"**{means[3]:.2f}**"])
    config = run_summary(next(iter(groups.values()))[0])["config"]
    k, n = config["max_nonzero"], config["n_elems"]
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
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each tau to at least one run")
    rows = [
        [f"{tau:g}", _spread([m.accuracy for m in seeds], 3), f"{sum(m.accuracy >= SOLVED for m in seeds)} of {len(seeds)}",
         _spread([m.extrapolation for m in seeds], 3), _spread([m.ponder_steps for m in seeds])]
        for tau, seeds in runs.items()
    ]
    header = ["$\\tau$", "accuracy, trained range", f"seeds at {SOLVED:g} or more", "accuracy beyond it",
              "ponder steps at inference"]
    return markdown_table(header, rows, align="rrrrr")
