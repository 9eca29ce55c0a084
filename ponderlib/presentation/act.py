"""Chapter 1 (ACT) in words: the tables and sentences the chapter builds from its runs and its evidence.

Each function takes results (:class:`~ponderlib.experiments.act.SeedCurves`, a chapter's live runs,
numbers read from the evidence) and returns Markdown, which a chapter cell tagged ``remove-input`` shows
with :func:`ponderlib.presentation.tables.show`: the reader sees the table or the sentence, not the
code that writes it. Nothing here trains or decides a claim; the claims are checked where the runs are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ponderlib.experiments.act import SeedCurves
from ponderlib.presentation.tables import graded, listed, markdown_table


def signed(r: float, digits: int = 2) -> str:
    """A correlation with its sign, ``"+0.24"``, or ``"undefined (constant N)"`` for NaN (the ponder steps
    did not vary, so ``r`` has no value).

    >>> signed(0.2393), signed(-0.5, 3), signed(float("nan"))
    ('+0.24', '-0.500', 'undefined (constant N)')
    """
    return "undefined (constant N)" if math.isnan(r) else f"{r:+.{digits}f}"


def _signed_list(values: Sequence[float]) -> str:
    return ", ".join(signed(v) for v in values)


def seed_table(curves: SeedCurves, accuracy: Sequence[float]) -> str:
    """One row per seed: held-out accuracy, ``r(difficulty, N)``, mean ``N(t)`` at the easiest and the
    hardest difficulty, and the error at the seed's worst difficulty (%).

    Args:
        curves: the runs' :class:`~ponderlib.experiments.act.SeedCurves`, ``(S, D)``.
        accuracy: each seed's held-out accuracy (a fraction), length ``S``.
    """
    if len(accuracy) != len(curves.seeds):
        raise ValueError(f"accuracy must have one value per seed ({len(curves.seeds)}), got {len(accuracy)}")
    easiest, hardest = int(curves.difficulty[0]), int(curves.difficulty[-1])
    rows = [
        [seed, f"{acc:.4f}", signed(r, 3), f"{steps[0]:.2f}", f"{steps[-1]:.2f}", f"{100 * error.max():.1f}"]
        for seed, acc, r, steps, error in zip(
            curves.seeds, accuracy, curves.correlation.tolist(), curves.ponder_steps.tolist(), curves.error
        )
    ]
    header = [
        "seed",
        "held-out accuracy",
        "r(difficulty, $N$)",
        f"$N$ at difficulty {easiest}",
        f"$N$ at difficulty {hardest}",
        "worst error at one difficulty (%)",
    ]
    return markdown_table(header, rows, align="rrrrrr")


def sawtooth_drop(scales, ponder_steps, ponder_cost, units: Sequence[float], eps: float) -> str:
    """Where ``N`` first drops as the halting units ``h_n = c a_n`` are scaled up, against the scale worked
    out by hand, and how ``rho`` jumps there.

    Args:
        scales: the scales ``c``, shape ``(C,)``, increasing.
        ponder_steps: ``N`` at each scale, shape ``(C,)``.
        ponder_cost: ``rho`` at each scale, shape ``(C,)``.
        units: the unscaled halting units ``a_n``.
        eps: the slack of the threshold ``1 - eps``.

    By hand, ``N`` falls to ``N'`` once ``c (a_1 + ... + a_N') >= 1 - eps``.
    """
    steps = [int(n) for n in ponder_steps]
    drops = [i for i in range(len(steps) - 1) if steps[i + 1] < steps[i]]
    if not drops:
        raise ValueError("ponder_steps must drop somewhere along the scales; it never does")
    i = drops[0]
    before, after = steps[i], steps[i + 1]
    total = sum(float(a) for a in units[:after])
    rho = [float(v) for v in ponder_cost]
    return (
        f"$N$ drops from {before} to {after} at $c = {float(scales[i + 1]):.3f}$ (by hand: "
        f"${1 - eps:g} / {total:g} = {(1 - eps) / total:.3f}$), where $\\rho$ falls from {rho[i]:.3f} to {rho[i + 1]:.3f}."
    )


def sequence_seed_table(seeds: Sequence[int], evaluations, curves: SeedCurves) -> str:
    """ACT in an RNN, one row per seed: held-out accuracy, mean ``N(t)`` per time step and
    ``r(difficulty, N)`` over every time step of the held-out sequences.

    Args:
        seeds: the seeds.
        evaluations: each seed's :class:`~ponderlib.tasks.sequence_parity.SequenceEvaluation`.
        curves: their :class:`~ponderlib.experiments.act.SeedCurves` (for ``r``).
    """
    rows = [
        [seed, f"{evaluation.accuracy:.3f}", f"{evaluation.ponder_steps.float().mean().item():.2f}", signed(r)]
        for seed, evaluation, r in zip(seeds, evaluations, curves.correlation.tolist())
    ]
    return markdown_table(["seed", "held-out accuracy", "mean $N(t)$", "r(difficulty, $N$)"], rows, align="rrrr")


def sequence_evidence(overall: Sequence[float]) -> str:
    """The range of mean ``N(t)`` per time step over the evidence's seeds of ACT in an RNN."""
    return (
        f"Over the {len(overall)} seeds, mean $N(t)$ per time step ranges from {min(overall):.2f} to "
        f"{max(overall):.2f}: the seeds differ in how much they ponder overall, as much as in where."
    )


def sequence_run(evaluations, curves: SeedCurves) -> str:
    """This run of ACT in an RNN in words: the seeds' accuracy, how far a seed's mean ``N(t)`` moves
    across difficulties, ``r`` per seed, and their mean ``N(t)`` per time step."""
    accuracy = [evaluation.accuracy for evaluation in evaluations]
    spans = (curves.ponder_steps.max(dim=1).values - curves.ponder_steps.min(dim=1).values).tolist()
    mean_steps = [evaluation.ponder_steps.float().mean().item() for evaluation in evaluations]
    return (
        f"In this run the seeds reach {min(accuracy):.3f} to {max(accuracy):.3f} test accuracy; across "
        f"difficulties a seed's mean $N(t)$ moves by at most {max(spans):.2f} steps, and r = "
        f"{_signed_list(curves.correlation.tolist())}. They ponder {min(mean_steps):.2f} to "
        f"{max(mean_steps):.2f} steps per time step."
    )


def _mean_sd(values: Sequence[float], digits: int = 2) -> str:
    """``"mean ± sd"`` over seeds (the sample standard deviation; the mean alone for one value)."""
    mean = sum(values) / len(values)
    if len(values) == 1:
        return f"{mean:.{digits}f}"
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def tau_evidence_table(evidence, minimum_slope: float, last_updates: int) -> str:
    """Graves' figs. 4-6 as numbers, one row per ``tau``: error, ponder time and the slope of ponder time
    against the number of non-zero entries (mean ± sd over seeds), in how many seeds ponder time grows
    by at least ``minimum_slope`` steps per entry, the range of r, and the rise of held-out accuracy over
    each run's last ``last_updates`` updates (whether training had stopped improving).

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
    """
    slopes, gain = evidence.slope, evidence.late_gain(last_updates)
    seeds = len(evidence.seeds)
    rows = []
    for i, tau in enumerate(evidence.taus):
        r = [value for value in evidence.correlation[i].tolist() if not math.isnan(value)]
        rows.append([
            f"{tau:g}",
            _mean_sd((100.0 * evidence.error[i]).tolist(), 1),
            _mean_sd(evidence.ponder_steps[i].tolist()),
            _mean_sd(slopes[i].tolist(), 3),
            f"{evidence.growing(minimum_slope)[i]} of {seeds}",
            f"{signed(min(r))} to {signed(max(r))}" if r else "undefined (constant $N$)",
            f"{100.0 * float(gain[i].max()):.1f}",
        ])
    header = [
        "$\\tau$",
        "error (%)",
        "ponder time $N(t)$",
        "slope (steps per entry)",
        f"seeds with slope ≥ {minimum_slope:g}",
        "r(entries, $N$)",
        f"largest rise of accuracy over the last {last_updates:,} updates (points)",
    ]
    return markdown_table(header, rows, align="rrrrrrr")


GRAVES_PARITY_CLAIMS = {
    "error": "For penalties of 0.03 and below the mean error was below 5%.",
    "faster": "the solutions were both more rapid and more accurate with lower time penalties",
    "variance": "The variance in ponder time for low τ networks is very high",
    "flat": (
        "for the networks without ACT and those with overly high time penalties, the error rate increases "
        "sharply with the difficulty of the task [...], while the amount of ponder remains roughly constant"
    ),
    "grows": (
        "For the more successful networks, with intermediate τ values, ponder time appears to grow linearly "
        "with difficulty, with a slope that generally increases as τ decreases."
    ),
    "best": "Even for the best networks the error rate increased somewhat with difficulty.",
    "32 bits": "For some of the lowest τ networks there is a dramatic increase in ponder after about 32 bits",
}
"""Graves (2016), sec. 3.1, figs. 4 to 6: each parity claim as the paper words it."""


def _taus(taus: Sequence[float]) -> str:
    return listed([f"{tau:g}" for tau in taus]) or "none"


def graves_parity_table(
    evidence,
    *,
    minimum_slope: float,
    high_taus: Sequence[float],
    learned_error: float = 0.05,
) -> str:
    """Graves' parity claims (:data:`GRAVES_PARITY_CLAIMS`) against a committed ``tau`` sweep: each claim
    as the paper words it, what the evidence measured, and a verdict counted over the cases the claim is
    about (:func:`~ponderlib.presentation.tables.graded`).

    Args:
        evidence: a :class:`ponderlib.experiments.act.TauEvidence`.
        minimum_slope: ponder steps per extra non-zero entry from which ponder time counts as growing.
        high_taus: the grid's "overly high" time penalties (Fig. 6's flat profiles).
        learned_error: a run "learns the task" (is one of "the more successful networks") below this error.
    """
    taus = evidence.taus
    if not high_taus or any(tau not in taus for tau in high_taus):
        raise ValueError(f"high_taus must be a non-empty subset of the evidence's taus {taus}, got {list(high_taus)}")
    error = (100.0 * evidence.error).mean(dim=1)  # (T,), in %
    up_to = [i for i, tau in enumerate(taus) if tau <= 0.03]
    below = [taus[i] for i in up_to if round(float(error[i]), 1) < 5.0]  # as printed: 4.99999... is 5.0 %
    during = evidence.curve.mean(dim=(1, 2))  # (T,): held-out accuracy over the whole learning curve
    steps = range(len(taus) - 1)
    faster = [i for i in steps if error[i] < error[i + 1] and during[i] > during[i + 1]]
    spread = evidence.ponder_steps.std(dim=1)  # (T,)
    high = [taus.index(tau) for tau in high_taus]
    flat_and_failing = (
        (evidence.slope[high].abs() < minimum_slope)
        & (evidence.error_by_difficulty[high, :, -1] > evidence.error_by_difficulty[high, :, 0] + 0.1)
    )
    learned = evidence.error < learned_error  # (T, S)
    slopes = evidence.slope[learned]
    grows = int((slopes >= minimum_slope).sum())
    learned_at = [tau for i, tau in enumerate(taus) if bool(learned[i].any())]
    mean_slope = [f"{float(evidence.slope[i][learned[i]].mean()):+.3f} at {tau:g}" for i, tau in enumerate(taus) if bool(learned[i].any())]
    worse_when_harder = int((evidence.error_by_difficulty[:, :, -1] > evidence.error_by_difficulty[:, :, 0])[learned].sum())
    n_learned = int(learned.sum())
    entries = evidence.difficulty[-1]

    def error_list(indices) -> str:
        return ", ".join(f"{float(error[i]):.1f} % at {taus[i]:g}" for i in indices)

    rows = [
        [
            GRAVES_PARITY_CLAIMS["error"],
            f"mean error {error_list(up_to)}; below 5 % at τ = {_taus(below)}",
            graded(len(below), len(up_to), "values of τ ≤ 0.03"),
        ],
        [
            GRAVES_PARITY_CLAIMS["faster"],
            "held-out accuracy averaged over the learning curve (every evaluation, every seed) "
            + ", ".join(f"{float(a):.2f} at {tau:g}" for a, tau in zip(during, taus))
            + "; error after the budget falls with τ as above",
            graded(len(faster), len(taus) - 1, "steps down the grid both more rapid and more accurate"),
        ],
        [
            GRAVES_PARITY_CLAIMS["variance"],
            "standard deviation of mean ponder time over seeds: "
            + ", ".join(f"{float(s):.2f} at {tau:g}" for s, tau in zip(spread, taus)),
            "reproduced: largest at the smallest τ" if int(spread.argmax()) == 0 else "not reproduced: not largest at the smallest τ",
        ],
        [
            GRAVES_PARITY_CLAIMS["flat"],
            f"at τ = {_taus(high_taus)}: mean ponder time {float(evidence.ponder_steps[high].min()):.2f} to "
            f"{float(evidence.ponder_steps[high].max()):.2f}; error at 1 entry "
            f"{100 * float(evidence.error_by_difficulty[high, :, 0].mean()):.1f} %, at {entries} "
            f"{100 * float(evidence.error_by_difficulty[high, :, -1].mean()):.1f} % (means)",
            graded(int(flat_and_failing.sum()), flat_and_failing.numel(), "runs flat, and failing more on harder vectors"),
        ],
        [
            GRAVES_PARITY_CLAIMS["grows"],
            f"{n_learned} of {learned.numel()} runs learn (error below {100 * learned_error:g} %), at τ = "
            f"{_taus(learned_at)}; ponder time grows by at least {minimum_slope:g} steps per entry in {grows} of them; "
            f"mean slope of the runs that learn {listed(mean_slope)}",
            graded(grows, n_learned, "runs that learn") if n_learned else "not tested: no run learns",
        ],
        [
            GRAVES_PARITY_CLAIMS["best"],
            f"of the {n_learned} runs that learn, {worse_when_harder} err more at {entries} entries than at 1",
            graded(worse_when_harder, n_learned, "runs that learn") if n_learned else "not tested: no run learns",
        ],
        [
            GRAVES_PARITY_CLAIMS["32 bits"],
            f"the vectors have {entries} entries",
            "not tested",
        ],
    ]
    rows = [[f"“{claim}”", measured, judged] for claim, measured, judged in rows]
    return markdown_table(["Graves (2016), sec. 3.1", f"the evidence ({len(evidence.seeds)} seeds per τ)", "verdict"], rows)
