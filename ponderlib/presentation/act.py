"""Chapter 1 (ACT) in words: the tables and sentences the chapter builds from its runs and its evidence.

Each function takes results (:class:`~ponderlib.experiments.act.SeedCurves`, a chapter's live runs,
numbers read from the evidence) and returns Markdown, which a chapter cell tagged ``remove-input`` shows
with :func:`ponderlib.presentation.tables.show`: the reader sees the table or the sentence, not the
code that writes it. Nothing here trains or decides a claim; the claims are checked where the runs are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

from ponderlib.experiments.act import SeedCurves, TrackedRun, history_value
from ponderlib.presentation.tables import markdown_table, verdict
from ponderlib.sweep.evidence import Rate


def signed(r: float, digits: int = 2) -> str:
    """A correlation with its sign, ``"+0.24"``, or ``"undefined (constant N)"`` for NaN (the ponder steps
    did not vary, so ``r`` has no value).

    >>> signed(0.2393), signed(-0.5, 3), signed(float("nan"))
    ('+0.24', '-0.500', 'undefined (constant N)')
    """
    return "undefined (constant N)" if math.isnan(r) else f"{r:+.{digits}f}"


def listed(values: Sequence[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; ``""`` for none.

    >>> listed(["8", "1", "5"])
    '8, 1 and 5'
    """
    values = list(values)
    if len(values) <= 1:
        return "".join(values)
    return f"{', '.join(values[:-1])} and {values[-1]}"


def upper_median(values: Sequence[float]) -> float:
    """The chapter's median: the middle value, the upper of the two middle ones for an even count.

    >>> upper_median([3.0, 1.0, 4.0, 2.0])
    3.0
    """
    if not values:
        raise ValueError("values must hold at least one value, got an empty sequence")
    return sorted(values)[len(values) // 2]


def _seeds(n: int) -> str:
    return "one seed" if n == 1 else f"{n} seeds"


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


def evidence_direction(r_values: Sequence[float], learns: Rate, longer: Rate) -> str:
    """The main setting over the evidence's seeds: how often the network learns the task and ponders
    longer on harder vectors, and the range and median of ``r(difficulty, N)``."""
    return (
        f"Over the {len(r_values)} seeds of the evidence the network learns the task in {learns}, but ponders "
        f"longer on harder vectors only in {longer}: $r$ from {min(r_values):+.2f} to {max(r_values):+.2f}, "
        f"median {upper_median(r_values):+.2f}. Where it does, by less than a step. The setting makes Graves' "
        f"direction the likely outcome, not a certain one."
    )


def main_run(curves: SeedCurves, accuracy: Sequence[float], sample_steps: torch.Tensor) -> str:
    """This run's seeds: their accuracy and ``r``, mean ``N(t)`` at the easiest and the hardest
    difficulty (averaged over seeds, and each seed's rise), and the share of scored vectors that take
    at most three steps.

    Args:
        curves: the runs' :class:`~ponderlib.experiments.act.SeedCurves`, ``(S, D)``.
        accuracy: each seed's held-out accuracy, length ``S``.
        sample_steps: ``N(t)`` of every scored vector of every seed, shape ``(S * D * samples,)``.
    """
    mean_steps = curves.ponder_steps.mean(dim=0)  # (D,)
    rises = (curves.ponder_steps[:, -1] - curves.ponder_steps[:, 0]).tolist()  # (S,)
    short = (sample_steps <= 3).float().mean().item()
    seeds = _seeds(len(curves.seeds))
    return (
        f"In this run the {seeds} reach held-out accuracy {min(accuracy):.4f} to {max(accuracy):.4f}, with "
        f"r = {_signed_list(curves.correlation.tolist())}. Averaged over them, $N(t)$ goes from "
        f"**{mean_steps[0]:.2f}** steps at difficulty {int(curves.difficulty[0])} to **{mean_steps[-1]:.2f}** at "
        f"difficulty {int(curves.difficulty[-1])} (per seed by {', '.join(f'{s:+.2f}' for s in rises)} steps). "
        f"Most vectors take one, two or three steps: {100 * short:.1f} % of the {len(sample_steps)} scored "
        f"vectors of the {seeds}."
    )


def contrast_direction(r_values: Sequence[float]) -> str:
    """Graves' initial halting bias over the evidence's seeds: the range of ``r`` and how often it is
    clearly positive (above 0.1) or clearly negative (below -0.1)."""
    return (
        f"With $b_h = 1$, over the same {len(r_values)} seeds: $r$ from {min(r_values):+.2f} to "
        f"{max(r_values):+.2f}, above 0.1 in {sum(r > 0.1 for r in r_values)} and below -0.1 in "
        f"{sum(r < -0.1 for r in r_values)}: the direction depends on the seed."
    )


def training_course(
    main_runs: Sequence[TrackedRun], contrast_runs: Sequence[TrackedRun], early: int = 1000, middle: int = 2000
) -> str:
    """How ponder time against difficulty forms during training, in this run's two sets of seeds (the
    main setting and the contrast with another initial halting bias): accuracy, ``r`` and ``N(t)``
    after ``early`` updates; ``r`` of the main runs from ``middle`` on; where the contrast runs ponder
    longest at the end; the run that learns last; the largest overshoot on the hardest vectors at
    ``middle`` against the end; and the worst-difficulty error of the runs that end with ``r > 0.1``
    against the others.

    Args:
        main_runs, contrast_runs: :class:`~ponderlib.experiments.act.TrackedRun` per seed, scored at
            ``early``, ``middle`` and every later snapshot.
    """
    runs = [*main_runs, *contrast_runs]
    main, contrast = SeedCurves.from_parity(main_runs), SeedCurves.from_parity(contrast_runs)
    labels = [f"seed {run.result.config.seed} with $b_h$ = {run.result.config.halting_bias_init:g}" for run in runs]
    accuracy_early = [history_value(run.result.history, "accuracy", early) for run in runs]
    steps_early = max(run.snapshots[early].ponder_steps.max().item() for run in runs)
    r_early = max(abs(run.correlation_at(early)) for run in runs)
    later_r = [run.correlation_at(u) for run in main_runs for u in sorted(run.snapshots) if u >= middle]
    peaks = contrast.ponder_steps.argmax(dim=1).tolist()  # where each contrast run ponders longest at the end
    accuracy_middle = [history_value(run.result.history, "accuracy", middle) for run in runs]
    last = accuracy_middle.index(min(accuracy_middle))  # the run that learns last
    end_hardest = torch.cat([main.ponder_steps, contrast.ponder_steps])[:, -1]  # (2S,)
    overshoot = torch.tensor([run.snapshots[middle].ponder_steps[-1].item() for run in runs]) - end_hardest
    worst_error = torch.cat([main.error, contrast.error]).max(dim=1).values  # (2S,)
    positive = torch.cat([main.correlation, contrast.correlation]) > 0.1
    others = listed([f"{100 * e:.1f}" for e in worst_error[~positive].tolist()]) or "none"
    positive_worst = f"{100 * worst_error[positive].max():.1f} %" if bool(positive.any()) else "none (no such run)"
    main_bias = main_runs[0].result.config.halting_bias_init
    contrast_bias = contrast_runs[0].result.config.halting_bias_init
    return (
        f"In this run, after {early} training updates the {len(runs)} runs reach held-out accuracy "
        f"{min(accuracy_early):.2f} to {max(accuracy_early):.2f}, |r| at most {r_early:.2f}, and at most "
        f"{steps_early:.2f} steps on average at any difficulty. With $b_h = {main_bias:g}$, r from update {middle} on "
        f"lies between {min(later_r):.2f} and {max(later_r):.2f}; with $b_h = {contrast_bias:g}$ the same seeds end "
        f"at r = {_signed_list(contrast.correlation.tolist())}, pondering longest at difficulty "
        f"{listed([str(int(contrast.difficulty[i])) for i in peaks])} respectively. The run that learns last is "
        f"{labels[last]} (held-out accuracy {accuracy_middle[last]:.2f} after {middle} updates). The largest "
        f"overshoot is in {labels[int(overshoot.argmax())]}: after {middle} updates it ponders "
        f"{overshoot.max():.2f} steps longer on the hardest vectors than at the end. The runs that end with "
        f"r > 0.1 err on at most {positive_worst} of the vectors at any difficulty; the others on {others} % at "
        f"their worst difficulty."
    )


def learned_late(
    early_accuracy: Sequence[float], worst_error: Sequence[float], ends_positive: Sequence[bool], early: int = 1000
) -> str:
    """The evidence on when the task is learned, and on the worst-difficulty error of the runs that end
    with ``r > 0.1`` against the others.

    Args:
        early_accuracy: held-out accuracy after ``early`` updates, one per seed of the main setting.
        worst_error: per run (either bias), the error at its worst difficulty (a fraction).
        ends_positive: per run, whether it ends with ``r > 0.1``.
    """
    if len(worst_error) != len(ends_positive):
        raise ValueError(
            f"worst_error and ends_positive must be of one length, got {len(worst_error)} and {len(ends_positive)}"
        )
    positive = [w for w, p in zip(worst_error, ends_positive) if p]
    other = [w for w, p in zip(worst_error, ends_positive) if not p]
    if not positive or not other:
        raise ValueError("ends_positive must hold both True and False")
    return (
        f"In the evidence, held-out accuracy after {early} updates (with $b_h = 3$) is {min(early_accuracy):.2f} to "
        f"{max(early_accuracy):.2f}: below 0.7 in {sum(a < 0.7 for a in early_accuracy)} of {len(early_accuracy)} "
        f"seeds, so the task is learned after that point. Of the {len(worst_error)} runs with either bias, the "
        f"{len(positive)} that end with r > 0.1 err, at their worst difficulty, on {100 * upper_median(positive):.1f} % "
        f"of the vectors (median; at most {100 * max(positive):.1f} %), the {len(other)} others on "
        f"{100 * upper_median(other):.1f} % (median; up to {100 * max(other):.1f} %)."
    )


def tau_table(taus: Sequence[float], error, steps, correlations, accuracy_early, early: int = 1000) -> str:
    """One row per ``tau``: error and mean ``N(t)`` per seed and their means, ``r(difficulty, N)`` per
    seed, and the mean held-out accuracy after ``early`` updates.

    Args:
        taus: the time penalties, length ``T``.
        error, steps, correlations, accuracy_early: ``(T, S)`` tensors: held-out error (a fraction) and
            mean ``N(t)`` after the grid's budget, ``r`` per seed, held-out accuracy after ``early``.
    """
    rows = [
        [
            f"{tau:g}",
            ", ".join(f"{100 * e:.1f}" for e in error[i].tolist()),
            f"{100 * error[i].mean():.1f}",
            ", ".join(f"{s:.2f}" for s in steps[i].tolist()),
            f"{steps[i].mean():.2f}",
            _signed_list(correlations[i].tolist()),
            f"{accuracy_early[i].mean():.2f}",
        ]
        for i, tau in enumerate(taus)
    ]
    header = [
        "$\\tau$",
        "error per seed (%)",
        "mean error (%)",
        "mean $N(t)$ per seed",
        "mean $N(t)$",
        "r(difficulty, $N$) per seed",
        f"accuracy after {early} updates (mean)",
    ]
    return markdown_table(header, rows, align="rrrrrrr")


def tau_run(taus: Sequence[float], error, steps, correlations, accuracy_early, early: int = 1000) -> str:
    """This run's ``tau`` grid in words: mean ponder time and error at the smallest and the largest
    ``tau``, the worst error at the second and the third, how fast the smallest learns, and ``r`` at the
    two smallest. Arguments as :func:`tau_table` (four ``tau`` or more)."""
    if len(taus) < 3:
        raise ValueError(f"taus must hold at least three values, got {len(taus)}")
    mean_error, mean_steps = error.mean(dim=1), steps.mean(dim=1)  # (T,)
    return (
        f"In this run, raising $\\tau$ from {taus[0]:g} to {taus[-1]:g} takes the mean ponder time, averaged over "
        f"the seeds, from **{mean_steps[0]:.2f}** to **{mean_steps[-1]:.2f}** steps, and the mean error from "
        f"{100 * mean_error[0]:.1f} % to {100 * mean_error[-1]:.1f} %; at $\\tau$ = {taus[1]:g} the error is at most "
        f"{100 * error[1].max():.1f} %, at {taus[2]:g} at most {100 * error[2].max():.1f} %. The smallest $\\tau$ "
        f"reaches {accuracy_early[0].mean():.2f} held-out accuracy after {early} updates on average, against at "
        f"most {accuracy_early[1:].mean(dim=1).max():.2f} for the others, and r = {_signed_list(correlations[0].tolist())} "
        f"at $\\tau$ = {taus[0]:g} against {_signed_list(correlations[1].tolist())} at {taus[1]:g}."
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


def paper_table(
    *,
    taus: Sequence[float],
    updates: int,
    learns: Mapping[float, Rate],
    fails: Rate,
    accuracy_early: Mapping[float, float],
    fastest: Rate,
    not_more_accurate: Rate,
    rise: float,
    longer: Rate,
    longer_graves_bias: Rate,
    falls_at_low_tau: Rate,
    early: int = 1000,
) -> str:
    """Graves' parity claims (figs. 4 to 6) against the evidence: each claim, the paper's setting, what
    the evidence measured and the verdict.

    Args:
        taus: the grid's four time penalties, smallest first (``low, mid, high, top``).
        updates: the grid's budget in training updates.
        learns: ``tau`` -> rate of "error below 5 %", for ``low``, ``mid`` and ``high``.
        fails: rate of "error above 20 %" at ``top``.
        accuracy_early: ``tau`` -> mean held-out accuracy after ``early`` updates, for ``low`` and ``mid``.
        fastest: rate of "``low`` learns fastest".
        not_more_accurate: rate of "``low`` is not more accurate than ``mid`` after ``updates``".
        rise: mean ``N(t)`` at the hardest minus at the easiest difficulty, main setting, mean over seeds.
        longer, longer_graves_bias: rate of ``r > 0`` with ``b_h = 3`` and with Graves' ``b_h = 1``.
        falls_at_low_tau: rate of ``r < 0`` at ``low``.
    """
    if len(taus) != 4:
        raise ValueError(f"taus must hold the grid's four time penalties, got {len(taus)}")
    low, mid, high, top = taus
    rows = [
        [
            "Fig. 4: error below 5 % for $\\tau \\le 0.03$, rising above",
            "64 elements, 1M updates, one run per $\\tau$",
            "error below 5 %: "
            + ", ".join(f"{learns[tau]} at $\\tau$ = {tau:g}" for tau in (low, mid, high))
            + f"; above 20 % at {top:g}: {fails}",
            f"below 5 % at {low:g}: {verdict(learns[low])}; at {mid:g}: {verdict(learns[mid])}; at {high:g}: "
            f"{verdict(learns[high])} (within {updates} updates); failing at {top:g}: {verdict(fails)}",
        ],
        [
            "Fig. 5: lower $\\tau$ learns faster and more accurately",
            "learning curves over 1M updates",
            f"accuracy after {early} updates {accuracy_early[low]:.2f} at $\\tau$ = {low:g} against "
            f"{accuracy_early[mid]:.2f} at {mid:g} (means)",
            f"faster: {verdict(fastest)}; not more accurate after {updates} updates: {verdict(not_more_accurate)}",
        ],
        [
            "Fig. 6: ponder time grows with difficulty (roughly linearly) at intermediate $\\tau$",
            "$N$ rises over difficulties 1 to 64",
            f"$\\tau$ = {mid:g}: rise from difficulty 1 to 8 {rise:+.2f} steps with $b_h$ = 3 (mean over seeds)",
            f"r > 0 with $b_h$ = 3: {verdict(longer)}; with Graves' $b_h$ = 1: {verdict(longer_graves_bias)}; "
            f"at $\\tau$ = {low:g}, r < 0: {verdict(falls_at_low_tau)}. The size (a few tenths of a step) is not the paper's",
        ],
    ]
    return markdown_table(["claim (Graves 2016)", "paper's setting", "the evidence, 20 seeds", "verdict"], rows)


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


def graded(holds: int, out_of: int, cases: str) -> str:
    """A verdict from how many of ``out_of`` ``cases`` bear a claim out: "reproduced" (all), "not
    reproduced" (none) or "partly" (some), with the count.

    >>> graded(3, 3, "runs"), graded(2, 5, "seeds"), graded(0, 4, "values of tau")
    ('reproduced: 3 of 3 runs', 'partly: 2 of 5 seeds', 'not reproduced: 0 of 4 values of tau')
    """
    if out_of < 1 or not 0 <= holds <= out_of:
        raise ValueError(f"holds must lie in [0, out_of] and out_of be at least 1, got {holds} of {out_of}")
    word = "reproduced" if holds == out_of else "not reproduced" if holds == 0 else "partly"
    return f"{word}: {holds} of {out_of} {cases}"


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
    about (:func:`graded`).

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
