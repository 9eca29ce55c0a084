"""Chapter 1 (ACT)'s tables, as Markdown: a live run's seeds and Graves' figs. 4 to 6 as numbers."""

from __future__ import annotations

from collections.abc import Sequence

from ponderlib.core.validation import check_fraction, ensure_type, short
from ponderlib.experiments.act import SeedCurves, TauEvidence
from ponderlib.presentation.tables import correlation_range, markdown_table, mean_sd, signed


def seed_table(curves: SeedCurves, accuracy: Sequence[float]) -> str:
    """One row per seed: held-out accuracy, ``r(difficulty, N)``, mean ``N(t)`` at the easiest and the
    hardest difficulty, and the error at the seed's worst difficulty (%).

    Args:
        curves: the runs' :class:`~ponderlib.experiments.act.SeedCurves`, ``(S, D)``.
        accuracy: each seed's held-out accuracy (a fraction), length ``S``.
    """
    ensure_type("curves", curves, SeedCurves)
    if isinstance(accuracy, str) or not hasattr(accuracy, "__len__") or len(accuracy) != len(curves.seeds):
        raise ValueError(f"accuracy must have one value per seed ({len(curves.seeds)}), got {short(repr(accuracy))}")
    for index, value in enumerate(accuracy):
        check_fraction(f"accuracy[{index}]", value)  # a fraction: NaN or 2.0 printed as a seed's accuracy before
    easiest, hardest = int(curves.difficulty[0]), int(curves.difficulty[-1])
    rows = [
        [seed, f"{acc:.4f}", signed(r, 3), f"{steps[0]:.2f}", f"{steps[-1]:.2f}", f"{100 * error.max():.1f}"]
        for seed, acc, r, steps, error in zip(
            curves.seeds, accuracy, curves.ponder_difficulty_correlation.tolist(), curves.ponder_steps.tolist(),
            curves.error,
        )
    ]
    header = ["seed", "held-out accuracy", "r(difficulty, $N$)", f"$N$ at difficulty {easiest}",
              f"$N$ at difficulty {hardest}", "worst error at one difficulty (%)"]
    return markdown_table(header, rows, align="rrrrrr")


def tau_evidence_table(evidence, minimum_slope: float, last_updates: int) -> str:
    """Graves' figs. 4-6 as numbers, one row per ``tau``: error, ponder time and the slope of ponder time
    against the number of non-zero entries (mean ± sd over seeds), in how many seeds ponder time grows
    by at least ``minimum_slope`` steps per entry, the range of r, and the rise of held-out accuracy over
    each run's last ``last_updates`` updates (whether training had stopped improving).

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    ensure_type("evidence", evidence, TauEvidence)
    slopes, gain = evidence.slope, evidence.late_gain(last_updates)
    seeds = len(evidence.seeds)
    rows = []
    for i, tau in enumerate(evidence.taus):
        rows.append([f"{tau:g}", mean_sd((100.0 * evidence.error[i]).tolist(), 1), mean_sd(evidence.ponder_steps[i].tolist()),
                     mean_sd(slopes[i].tolist(), 3), f"{evidence.growing(minimum_slope)[i]} of {seeds}",
                     correlation_range(evidence.ponder_difficulty_correlation[i].tolist(), "$N$"),
                     f"{100.0 * float(gain[i].max()):.1f}"])
    header = ["$\\tau$", "error (%)", "ponder time $N(t)$", "slope (steps per entry)",
              f"seeds with slope ≥ {minimum_slope:g}", "r(entries, $N$)",
              f"largest rise of accuracy over the last {last_updates:,} updates (points)"]
    return markdown_table(header, rows, align="rrrrrrr")


def tau_seed_table(evidence, last_updates: int) -> str:
    """Graves' figs. 4 to 6 network by network, one row per ``tau`` and seed: error (%), mean ponder time,
    the slope of ponder time against the number of non-zero entries (steps per entry), and how far
    held-out accuracy rose over the network's last ``last_updates`` updates (points).

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    gain = evidence.late_gain(last_updates)  # (T, S)
    rows = [
        [f"{tau:g}", seed, f"{100.0 * float(evidence.error[i, j]):.1f}", f"{float(evidence.ponder_steps[i, j]):.2f}",
         f"{float(evidence.slope[i, j]):+.3f}", f"{100.0 * float(gain[i, j]):+.1f}"]
        for i, tau in enumerate(evidence.taus) for j, seed in enumerate(evidence.seeds)
    ]
    header = ["$\\tau$", "seed", "error (%)", "ponder time $N(t)$", "slope (steps per entry)",
              f"accuracy gained over the last {last_updates:,} updates (points)"]
    return markdown_table(header, rows, align="rrrrrr")
