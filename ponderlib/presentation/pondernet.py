"""Chapter 2's tables and sentences, built from its results: the live runs of this execution and the
committed evidence (20 seeds per setting).

Each function returns Markdown (``$...$`` is math, ``{eq}`` a reference to the chapter's equations, as
the book parses generated Markdown as MyST); the chapter shows it with
:func:`ponderlib.presentation.tables.show` from a cell whose code the page hides. The functions only
word and tabulate what they are given: the claims themselves are counted and asserted in the chapter
(:func:`ponderlib.sweep.evidence.check_claims`).

The runs are read through :class:`~ponderlib.experiments.parity.HaltingSummary` (a run's halting) and
:class:`~ponderlib.experiments.pondernet.DifficultySummary` (a run's numbers against difficulty), the
same for a live run and a record of the evidence. Rates are :class:`~ponderlib.sweep.evidence.Rate`,
passed in the order of the chapter's claims, as each function's docstring lists them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from ponderlib.core.engine import run_summary
from ponderlib.experiments.parity import HaltingSummary, distribution_mean, mean_of
from ponderlib.experiments.pondernet import DifficultySummary, ExtrapolationCurve, InferenceCompute, StepAccuracy
from ponderlib.mechanisms.halting import expected_ponder_steps, geometric_prior
from ponderlib.mechanisms.losses import step_price
from ponderlib.presentation.tables import graded, markdown_table
from ponderlib.sweep.evidence import Rate

TRUNCATIONS = ("last", "normalised")
"""The two truncations of the geometric prior the chapter compares, in its order."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _spread(values: Sequence[float], digits: int = 2) -> str:
    """``"mean (min to max)"``: ``_spread([1, 2, 6]) == "3.00 (1.00 to 6.00)"``."""
    return f"{_mean(values):.{digits}f} ({min(values):.{digits}f} to {max(values):.{digits}f})"


def _span(rows: Sequence[DifficultySummary], key: str) -> str:
    """``"min to max"`` of ``key`` over seeds, signed for the trend ``r``."""
    values = [getattr(m, key) for m in rows]
    return f"{min(values):+.2f} to {max(values):+.2f}" if key == "trend" else f"{min(values):.2f} to {max(values):.2f}"


def _per_seed(rows: Sequence[DifficultySummary], key: str) -> str:
    return ", ".join(f"{getattr(m, key):.3f}" for m in rows)


def _prior_mean(lambda_p: float, max_ponder_steps: int) -> float:
    """``E[n]`` of the normalised prior ``p_G(lambda_p)`` cut at ``max_ponder_steps``."""
    return distribution_mean(geometric_prior(lambda_p, max_ponder_steps))


def _closed_form_mean(lambda_p: float, max_ponder_steps: int, truncation: str) -> float:
    """The prior's mean in closed form ({eq}`prior-mean`)."""
    q, n = 1 - lambda_p, max_ponder_steps
    return (1 - q**n) / lambda_p if truncation == "last" else 1 / lambda_p - n * q**n / (1 - q**n)


def prior_table(lambda_ps: Sequence[float], max_ponder_steps: int) -> str:
    """Both truncations of the geometric prior at each ``lambda_p``: ``p_G(1)``, ``p_G(N)``, the most
    likely step, and the mean computed from the distribution beside its closed form."""
    rows = []
    for lambda_p in lambda_ps:
        for truncation in TRUNCATIONS:
            prior = geometric_prior(lambda_p, max_ponder_steps, truncation)  # (N,)
            rows.append(
                [
                    f"{lambda_p:g}",
                    truncation,
                    f"{prior[0]:.4f}",
                    f"{prior[-1]:.4f}",
                    int(prior.argmax()) + 1,
                    f"{expected_ponder_steps(prior.unsqueeze(0)).item():.3f}",
                    f"{_closed_form_mean(lambda_p, max_ponder_steps, truncation):.3f}",
                ]
            )
    header = [
        "$\\lambda_p$",
        "truncation",
        "$p_G(1)$",
        f"$p_G({max_ponder_steps})$",
        "most likely step",
        "mean $\\mathbb E[n]$",
        "closed form {eq}`prior-mean`",
    ]
    return markdown_table(header, rows, align="llrrrrr")


def truncation_live(halting: Mapping[int, Mapping[str, HaltingSummary]], lambda_p: float, max_ponder_steps: int) -> str:
    """The live truncation runs, seed by seed, and what they show.

    Args:
        halting: seed -> truncation (``"last"``, ``"normalised"``) -> the run's halting.
        lambda_p: the prior's parameter in those runs.
        max_ponder_steps: ``N``, where the prior is cut.
    """
    prior_on_cap = {t: geometric_prior(lambda_p, max_ponder_steps, t)[-1].item() for t in TRUNCATIONS}
    pairs = [(row["last"], row["normalised"]) for row in halting.values()]  # per seed
    more_on_cap = sum(last.mass_on_cap > normalised.mass_on_cap for last, normalised in pairs)
    ponders_longer = sum(last.expected_ponder_steps > normalised.expected_ponder_steps for last, normalised in pairs)
    cap_ratios = [last.mass_on_cap / normalised.mass_on_cap for last, normalised in pairs]
    seeds = len(pairs)
    rows = [
        [
            seed,
            t,
            f"{prior_on_cap[t]:.3f}",
            f"{h.mass_on_cap:.3f}",
            f"{h.expected_ponder_steps:.2f}",
            f"{h.mean_ponder_steps:.2f}",
            f"{h.accuracy:.3f}",
        ]
        for seed, row in halting.items()
        for t, h in row.items()
    ]
    table = markdown_table(
        [
            "seed",
            "truncation",
            f"prior mass on step {max_ponder_steps}",
            f"learned mass on step {max_ponder_steps}",
            "learned mean $\\mathbb E_p[n]$",
            "ponder steps at inference",
            "accuracy",
        ],
        rows,
        align="llrrrrr",
    )
    lasts, normalised = [last for last, _ in pairs], [norm for _, norm in pairs]
    return (
        table
        + "\n\n"
        + (
            f"In this run, the network trained with the tail on the last step put more of its halting mass on the cap "
            f"than the one trained with the normalised prior in {more_on_cap} of {seeds} seeds ({min(cap_ratios):.1f} to "
            f"{max(cap_ratios):.1f} times as much, seed by seed), and pondered longer in {ponders_longer} of {seeds}; its "
            f"accuracy was {mean_of(lasts, 'accuracy'):.3f} against {mean_of(normalised, 'accuracy'):.3f} on average. Both "
            f"networks put more mass on the cap than their prior does (the normalised one "
            f"{mean_of(normalised, 'mass_on_cap'):.2f} on average, against its prior's {prior_on_cap['normalised']:.3f}): at "
            f"$\\lambda_p = {lambda_p:g}$ and this budget they ponder long, and step {max_ponder_steps} takes all the mass "
            f"left after step {max_ponder_steps - 1}."
        )
    )


def truncation_evidence(runs: Mapping[str, Sequence[HaltingSummary]], rates: Sequence[Rate], describe: str) -> str:
    """What the evidence says about the two truncations.

    Args:
        runs: truncation (``"last"``, ``"normalised"``) -> the evidence's runs, one per seed.
        rates: the rates of the chapter's five truncation claims, in order: more mass on the cap, at
            least 1.5 times as much, ponders longer, both more than twice their prior's mass on the
            cap, the tail on the last step no more accurate.
        describe: the evidence's :meth:`~ponderlib.sweep.evidence.Evidence.describe`.
    """
    cap = {t: _mean([h.mass_on_cap for h in runs[t]]) for t in TRUNCATIONS}
    steps = {t: _mean([h.expected_ponder_steps for h in runs[t]]) for t in TRUNCATIONS}
    accuracy = {t: _mean([h.accuracy for h in runs[t]]) for t in TRUNCATIONS}
    return (
        f"Over the {len(runs['last'])} seeds of the evidence, the tail on the last step adds to the cap's mass "
        f"as {{eq}}`kl-decomposed` predicts, in {rates[0]}: **{cap['last']:.2f}** against "
        f"**{cap['normalised']:.2f}** on average ({cap['last'] / cap['normalised']:.1f} times as much; at least 1.5 "
        f"times in {rates[1]}), and the network ponders longer in {rates[2]} ($\\mathbb E_p[n]$ {steps['last']:.2f} "
        f"against {steps['normalised']:.2f}). The extra steps buy no accuracy: {accuracy['last']:.3f} against "
        f"{accuracy['normalised']:.3f} on average, the tail on the last step no more accurate in {rates[4]}. That is "
        "why `geometric_prior`, `PonderNetLoss` and `ParityConfig` default to the **normalised** prior; "
        '`truncation="last"` (`--prior-truncation last`) remains for comparison.\n\n' + describe
    )


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
    return (
        markdown_table(header, rows, align="lrrrrrrr")
        + "\n\n"
        + (
            f"$r$ is Pearson's correlation between difficulty and the mean $\\mathbb E[n]$ at each difficulty "
            f"1..{k} (for ACT, $\\mathbb E[n]$ under its own $p_n$); ponder steps per input are those executed at "
            f"inference (PonderNet halting by sampling, ACT's $N(t)$)."
        )
    )


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


def difficulty_live(
    measured: Mapping[str, Sequence[DifficultySummary]], trained_max: int, max_ponder_steps: int, lambda_p: float
) -> str:
    """What the live runs against difficulty show.

    Args:
        measured: the three models, in order PonderNet with the paper's KL, with the reverse KL, and
            ACT -> one summary per seed.
        trained_max: the hardest difficulty seen in training.
        max_ponder_steps, lambda_p: PonderNet's ``N`` and prior.
    """
    paper, reverse, act = measured.values()
    seeds = len(paper)
    growing = [sum(m.trend > 0 for m in rows) for rows in (paper, reverse, act)]
    k = trained_max
    lowest = min(m.accuracy for rows in measured.values() for m in rows)
    return (
        f"In this run, every model reached at least {lowest:.3f} accuracy on difficulties 1..{k} in each of the "
        f"{seeds} seeds. What differs is how they spend ponder steps.\n\n"
        f"- With the paper's KL, PonderNet's $\\mathbb E[n]$ falls with difficulty in {seeds - growing[0]} of {seeds} "
        f"seeds: $r$ from {_span(paper, 'trend')}, from {mean_of(paper, 'easiest_expected'):.2f} at one non-zero "
        f"entry to {mean_of(paper, 'hardest_expected'):.2f} at {k} (means over the seeds).\n"
        f"- With the reverse KL it grows in {growing[1]} of {seeds} seeds: $r$ from {_span(reverse, 'trend')}, from "
        f"{mean_of(reverse, 'easiest_expected'):.2f} to {mean_of(reverse, 'hardest_expected'):.2f} steps.\n"
        f"- ACT's grows in {growing[2]} of {seeds} seeds, $r$ from {_span(act, 'trend')}; averaged over the seeds it "
        f"goes from {mean_of(act, 'easiest_expected'):.2f} steps at one non-zero entry to "
        f"{mean_of(act, 'hardest_expected'):.2f} at {k}. ACT ran "
        f"{mean_of(act, 'ponder_steps'):.2f} ponder steps per input at inference, against "
        f"{mean_of(paper, 'ponder_steps'):.2f} (paper KL) and {mean_of(reverse, 'ponder_steps'):.2f} (reverse KL) for "
        f"PonderNet; each PonderNet training update also unrolls more steps (all {max_ponder_steps} with the reverse "
        f"KL).\n"
        f"- PonderNet's $\\mathbb E[n]$ averaged over difficulties 1..{k} is "
        f"{mean_of(paper, 'expected_ponder_steps'):.2f} (paper KL) and {mean_of(reverse, 'expected_ponder_steps'):.2f} "
        f"(reverse KL), against {_prior_mean(lambda_p, max_ponder_steps):.2f} for the prior "
        f"$p_G(\\lambda_p = {lambda_p})$."
    )


def difficulty_evidence(
    measured: Mapping[str, Sequence[DifficultySummary]],
    rates: Sequence[Rate],
    act_twice: Rate,
    *,
    trained_max: int,
    max_ponder_steps: int,
    lambda_p: float,
    beta: float,
    tau: float,
    describe: str,
) -> str:
    """What the evidence says about the three models against difficulty.

    Args:
        measured: the three models, in order PonderNet with the paper's KL, with the reverse KL, and
            ACT -> one summary per seed of the evidence.
        rates: the rates of the chapter's seven claims against difficulty, in order: every model
            learns, the paper's KL falls, the reverse KL grows, ACT grows, ACT moves less, ACT is
            cheaper, the learned mean is above the prior's.
        act_twice: in how many seeds ACT's two grid rows (``kl_direction`` paper and reverse) are identical.
        lambda_p, beta, tau: PonderNet's prior and KL weight, ACT's time penalty: the price each puts on a
            ponder step (:func:`~ponderlib.mechanisms.losses.step_price`).
        describe: the evidence's :meth:`~ponderlib.sweep.evidence.Evidence.describe`.
    """
    paper, reverse, act = measured.values()
    k = trained_max
    learn, paper_falls, reverse_grows, act_grows, act_moves_less, act_cheaper, above_prior = rates
    lowest = min(m.accuracy for rows in measured.values() for m in rows)
    price = step_price(lambda_p, beta)
    return (
        f"Over the {len(act)} seeds of the evidence every model learns the training range (accuracy on 1..{k} at "
        f"least 0.95 in {learn}; the lowest {lowest:.3f}), and the direction of the KL decides the direction of the "
        f"trend: PonderNet's $\\mathbb E[n]$ falls with difficulty under the paper's KL in {paper_falls} ($r$ from "
        f"{_span(paper, 'trend')}; from {mean_of(paper, 'easiest_expected'):.2f} steps at one non-zero entry to "
        f"{mean_of(paper, 'hardest_expected'):.2f} at {k}, means over seeds), and grows under the reverse KL in "
        f"{reverse_grows} ($r$ from {_span(reverse, 'trend')}; {mean_of(reverse, 'easiest_expected'):.2f} to "
        f"{mean_of(reverse, 'hardest_expected'):.2f}). **ACT's $\\mathbb E[n]$ grows with difficulty in only "
        f"{act_grows}** ($r$ from {_span(act, 'trend')}): at this budget the direction of ACT's trend is a property of "
        f"the seed, not of the setting, and the chapter asserts nothing about it; its $\\mathbb E[n]$ moves less than "
        f"either PonderNet's in {act_moves_less}.\n\n"
        f"ACT runs fewer steps in {act_cheaper}: {mean_of(act, 'ponder_steps'):.2f} ponder steps per input at "
        f"inference against {mean_of(paper, 'ponder_steps'):.2f} (paper KL) and {mean_of(reverse, 'ponder_steps'):.2f} "
        f"(reverse KL), at accuracies of {mean_of(act, 'accuracy'):.3f}, {mean_of(paper, 'accuracy'):.3f} and "
        f"{mean_of(reverse, 'accuracy'):.3f} (means over seeds). That is not a verdict on the two methods, because "
        f"their losses price a step differently: ACT pays $\\tau = {tau:g}$ per step, PonderNet's KL "
        f"$\\beta \\cdot (-\\log(1 - \\lambda_p)) = {price:.4f}$ per expected step {{eq}}`kl-decomposed`, so each of "
        f"ACT's steps costs {tau / price:.1f} times as much, and fewer of them is what the dearer step buys. "
        f"And **the learned mean sits above the prior's** in "
        f"{above_prior}: $\\mathbb E[n]$ averaged over 1..{k} is {mean_of(paper, 'expected_ponder_steps'):.2f} "
        f"(paper KL) and {mean_of(reverse, 'expected_ponder_steps'):.2f} (reverse KL) against "
        f"{_prior_mean(lambda_p, max_ponder_steps):.2f} for $p_G(\\lambda_p = {lambda_p})$: with $\\beta = {beta}$ the "
        f"reconstruction loss, not the prior, decides where the mass goes. (ACT's two rows of the grid, "
        f"`kl_direction` paper and reverse, are the same run twice: identical in {act_twice}.)\n\n" + describe
    )


def step_accuracy_live(
    paper: Sequence[StepAccuracy],
    reverse: Sequence[StepAccuracy],
    paper_sampled: Sequence[DifficultySummary],
    paper_by_difficulty: Sequence[object],
    *,
    seeds: Sequence[int],
    trained_max: int,
    n_elems: int,
) -> str:
    """What the per-step accuracies of the live PonderNet runs show.

    Args:
        paper, reverse: each ponder step's accuracy by difficulty, one per seed, for PonderNet with the
            paper's KL and with the reverse KL.
        paper_sampled: the paper-KL runs' summaries against difficulty, one per seed.
        paper_by_difficulty: the paper-KL runs' scores at each difficulty 1..``n_elems``, halting by
            sampling (:class:`~ponderlib.tasks.parity.DifficultyEvaluation`), one per seed.
        trained_max: the hardest difficulty seen in training; ``n_elems`` the hardest of all.
    """
    k = trained_max
    last = paper[0].accuracy.shape[1]
    paper_last_easy = [round(r.accuracy_at(1, last), 3) for r in paper]
    paper_last_hard = [round(r.accuracy_at(k, last), 3) for r in paper]
    reverse_last_hard = [round(r.accuracy_at(k, last), 3) for r in reverse]
    paper_best_hard = [round(r.best_accuracy_at(k), 3) for r in paper]
    paper_sampled_hard = [round(scores.accuracy[k - 1].item(), 3) for scores in paper_by_difficulty]
    no_single_step = sum(single < sampled for single, sampled in zip(paper_best_hard, paper_sampled_hard))
    # Inputs with one non-zero entry: the first step from which every step's prediction is at least 95% accurate.
    settled_easy = [r.settled_step(1, threshold=0.95) for r in paper]
    expected_easy = [round(m.easiest_expected, 2) for m in paper_sampled]
    best_unseen = max(r.best_step_accuracy()[-1].item() for r in [*paper, *reverse])
    return (
        f"In this run, with the paper's KL, inputs with one non-zero entry are right early *and stay right at every "
        f"later step*: every step from step {settled_easy} on (seeds {tuple(seeds)}) is at least 0.95 accurate on "
        f"them, step {last} reaches {paper_last_easy}, and yet their $\\mathbb E[n]$ is {expected_easy}. Their loss "
        f"is still falling as the prediction grows more confident: {{eq}}`gradient-lambda` finds carrying on cheaper "
        f"than stopping, and moves their mass later. Inputs with {k} non-zero entries are right where each one halts "
        f"(accuracy at {k}, halting by sampling: {paper_sampled_hard}), but in {no_single_step} of {len(seeds)} seeds "
        f"no single step is as accurate (best single step at {k}: {paper_best_hard}), and the late steps are worse: "
        f"step {last} reaches {paper_last_hard}. A reading of it (tested in the next section): the steps after an "
        f"input halts get little gradient in {{eq}}`reconstruction-loss` "
        f"($\\partial \\mathcal L_{{\\text{{Rec}}}} / \\partial L_n = p_n$), their predictions decay, carrying on "
        f"costs more, and the same gradient moves the hard inputs' mass *earlier*: a rich-get-richer loop that makes "
        f"harder inputs halt sooner. The paper's KL, zero-forcing, lets $p_n$ vanish on those steps and does not "
        f"stop the loop; the reverse KL keeps mass, and so gradient, on every step the prior covers: its "
        f"step {last} at difficulty {k} reaches {reverse_last_hard}, and its $\\mathbb E[n]$ grows with difficulty."
        f"\n\nOn the unseen difficulty {n_elems}, the best single ponder step of any of these PonderNet runs reaches "
        f"{best_unseen:.3f}: where no step's prediction is right, no halting rule can rescue extrapolation; the "
        f"failure is in what the steps compute, not in when the network stops. (The evidence records no step-by-step "
        f"accuracy, so these numbers are this run's only, and the chapter asserts none of them.)"
    )


def extrapolation_live(measured: Mapping[str, Sequence[DifficultySummary]], trained_max: int, n_elems: int) -> str:
    """The live runs on the difficulties never seen in training, one row per model.

    Args:
        measured: the three models, in order PonderNet with the paper's KL, with the reverse KL, and
            ACT -> one summary per seed.
    """
    k = trained_max
    paper, reverse, act = measured.values()
    everyone = [m for rows in measured.values() for m in rows]
    below_chance = sum(m.hardest < 0.5 for m in everyone)
    table = markdown_table(
        ["model", f"accuracy on {k + 1}..{n_elems}, per seed", "mean", f"accuracy at {n_elems}, per seed"],
        [
            [
                label,
                _per_seed(rows, "extrapolation"),
                f"{mean_of(rows, 'extrapolation'):.3f}",
                _per_seed(rows, "hardest"),
            ]
            for label, rows in measured.items()
        ],
        align="lrrr",
    )
    return (
        table
        + "\n\n"
        + (
            f"In this run no model extrapolates: every one is at most {max(m.extrapolation for m in everyone):.2f} on the "
            f"unseen difficulties, and at {n_elems} non-zero entries {below_chance} of {len(everyone)} runs are *below* "
            f"chance, confidently wrong. PonderNet's means are {mean_of(paper, 'extrapolation'):.2f} (paper KL) and "
            f"{mean_of(reverse, 'extrapolation'):.2f} (reverse KL), ACT's {mean_of(act, 'extrapolation'):.2f}."
        )
    )


def extrapolation_evidence(
    measured: Mapping[str, Sequence[DifficultySummary]], rates: Sequence[Rate], trained_max: int, n_elems: int
) -> str:
    """What the evidence says about extrapolation.

    Args:
        measured: the three models, in order PonderNet with the paper's KL, with the reverse KL, and
            ACT -> one summary per seed of the evidence.
        rates: the rates of the chapter's five extrapolation claims, in order: every model below
            0.85, below chance at ``n_elems`` with the paper's KL, with the reverse KL, ACT, and
            PonderNet no better than ACT.
    """
    k, n = trained_max, n_elems
    paper, reverse, act = measured.values()
    everyone = [m for rows in measured.values() for m in rows]
    return (
        f"Over the {len(paper)} seeds of the evidence, **no run extrapolates** ({rates[0]}; at most "
        f"{max(m.extrapolation for m in everyone):.2f} on {k + 1}..{n}), and at {n} non-zero entries "
        f"{sum(m.hardest < 0.5 for m in everyone)} of {len(everyone)} runs are *below* chance, confidently wrong "
        f"(PonderNet with the paper's KL in {rates[1]}, with the reverse KL in {rates[2]}, ACT in {rates[3]}). "
        f"PonderNet is no better than ACT on average: its means are {mean_of(paper, 'extrapolation'):.2f} (paper KL) "
        f"and {mean_of(reverse, 'extrapolation'):.2f} (reverse KL) against ACT's {mean_of(act, 'extrapolation'):.2f}; "
        f"seed by seed, neither PonderNet run does better than ACT in {rates[4]}. Two unseen difficulties after "
        f"{k} seen is a small test; the next section runs the paper's proportions, at 16 entries."
    )


def inference_compute_live(
    compute: InferenceCompute, inputs: int, device: str, evidence: Sequence[DifficultySummary]
) -> str:
    """The compute that halting at inference saved in this run, beside what the evidence records.

    Args:
        compute: the measurement on ``inputs`` test inputs, on ``device`` (``"cpu"``, ``"cuda"``).
        evidence: the evidence's summaries of the same setting, one per seed.
    """
    return (
        f"In this run, halting by sampling, PonderNet evaluated its step function **{compute.sample_ponder_steps}** "
        f"times on {inputs} test inputs: **{compute.fraction_of_full:.0%}** of the "
        f"{compute.full_sample_ponder_steps} evaluations that running all {compute.max_ponder_steps} steps would "
        f"take. The loop itself ran {compute.ponder_steps_run} times, because a few inputs ponder long; the saving "
        f"comes from the batch shrinking. In wall time: {compute.seconds_halting * 1e3:.1f} ms against "
        f"{compute.seconds_full * 1e3:.1f} ms for the full unroll (median of 5, on {device}). The evidence does not "
        f"record this count, so it is this network's only; what it records is the mean ponder steps per input at "
        f"inference, {_span(evidence, 'ponder_steps')} of {compute.max_ponder_steps} for the reverse KL over its "
        f"{len(evidence)} seeds (mean {mean_of(evidence, 'ponder_steps'):.2f})."
    )


def lambda_live(
    halting: Mapping[float, HaltingSummary],
    *,
    n_elems: int,
    max_updates: int,
    max_ponder_steps: int,
    beta: float,
    seed: int,
) -> str:
    """The live ``lambda_p`` runs (one seed): prior and learned means, accuracy, and what they show.

    Args:
        halting: ``lambda_p`` -> the run's halting, in increasing ``lambda_p``.
    """
    rows = [
        [
            f"{value:g}",
            f"{_prior_mean(value, max_ponder_steps):.2f}",
            f"{h.expected_ponder_steps:.2f}",
            f"{h.accuracy:.3f}",
        ]
        for value, h in halting.items()
    ]
    values, learned = list(halting), [h.expected_ponder_steps for h in halting.values()]
    above = sum(h.expected_ponder_steps > _prior_mean(value, max_ponder_steps) for value, h in halting.items())
    table = markdown_table(
        ["$\\lambda_p$", "prior mean $\\mathbb E_{p_G}[n]$", "learned mean $\\mathbb E_p[n]$", "accuracy"],
        rows,
        align="rrrr",
    )
    return (
        f"Parity with {n_elems} elements, {max_updates} training updates per run, $\\beta$ = {beta}, seed {seed}:\n\n"
        + table
        + "\n\n"
        f"In this run a larger $\\lambda_p$ made the network ponder less: the learned mean goes from {learned[0]:.2f} "
        f"steps at $\\lambda_p = {values[0]:g}$ to {learned[-1]:.2f} at $\\lambda_p = {values[-1]:g}$, above the "
        f"prior's mean at {above} of the {len(values)} values."
    )


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
        [f"{value:g}", f"{_prior_mean(value, max_ponder_steps):.2f}", _spread([h.expected_ponder_steps for h in seeds]),
         _spread([h.mean_ponder_steps for h in seeds]), _spread([h.accuracy for h in seeds], 3)]
        + ([f"{sum(h.accuracy >= solved for h in seeds)} of {len(seeds)}"] if solved is not None else [])
        for value, seeds in runs.items()
    ]
    if solved is not None:
        header.append(f"seeds at accuracy {solved:g} or more")
    return markdown_table(header, rows, align="r" * len(header))


def lambda_evidence(
    runs: Mapping[float, Sequence[HaltingSummary]],
    rates: Sequence[Rate],
    *,
    max_ponder_steps: int,
    beta: float,
    describe: str,
) -> str:
    """What the evidence says about ``lambda_p``: a table of means and ranges over seeds, and the claims' rates.

    Args:
        runs: ``lambda_p`` -> the evidence's runs, one per seed, in increasing ``lambda_p``.
        rates: the rates of the chapter's six ``lambda_p`` claims, in order: the learned mean falls
            from the smallest to the largest, at every step of the grid, the ponder steps at inference
            fall, above the prior's at every ``lambda_p >= 0.2``, above at the smallest, 0.9 accuracy
            at every ``lambda_p``.
    """
    values = list(runs)
    return (
        f"Over the {len(runs[values[0]])} seeds of the evidence (mean, and the range over seeds):\n\n"
        + lambda_table(runs, max_ponder_steps) + "\n\n"
        f"A larger $\\lambda_p$ makes the network ponder less: the learned mean falls from $\\lambda_p = "
        f"{values[0]:g}$ to {values[-1]:g} in {rates[0]} (at every step of the grid in {rates[1]}). It sits above the "
        f"prior's mean at every $\\lambda_p \\ge 0.2$ in {rates[3]}, and at {values[0]:g} in {rates[4]}: parity needs "
        f"more steps than those priors offer, and at $\\beta = {beta}$ the reconstruction loss wins.\n\n" + describe
    )


def sensitivity_live(
    tau_halting: Mapping[float, HaltingSummary], lambda_halting: Mapping[float, HaltingSummary], seed: int
) -> str:
    """ACT's live runs at each ``tau`` (a table) and the spread of accuracy and ponder steps of both
    sweeps (``tau`` and ``lambda_p``, in increasing order), in one seed."""
    taus, lambda_ps = list(tau_halting), list(lambda_halting)
    table = markdown_table(
        ["ACT, $\\tau$", "accuracy", "ponder steps at inference"],
        [[f"{tau:g}", f"{h.accuracy:.3f}", f"{h.mean_ponder_steps:.2f}"] for tau, h in tau_halting.items()],
        align="rrr",
    )
    act = [h.accuracy for h in tau_halting.values()]
    pondernet = [h.accuracy for h in lambda_halting.values()]
    return (
        table
        + "\n\n"
        + (
            f"In this run (seed {seed}), across $\\tau \\in$ {{{', '.join(f'{t:g}' for t in taus)}}}, ACT's accuracy "
            f"ranged from **{min(act):.3f}** to **{max(act):.3f}**; across $\\lambda_p \\in$ "
            f"{{{', '.join(f'{v:g}' for v in lambda_ps)}}}, PonderNet's from **{min(pondernet):.3f}** to "
            f"**{max(pondernet):.3f}**. ACT's steps fell from {tau_halting[taus[0]].mean_ponder_steps:.2f} to "
            f"{tau_halting[taus[-1]].mean_ponder_steps:.2f} as $\\tau$ grew, and PonderNet's from "
            f"{lambda_halting[lambda_ps[0]].mean_ponder_steps:.2f} to {lambda_halting[lambda_ps[-1]].mean_ponder_steps:.2f} "
            f"as $\\lambda_p$ grew."
        )
    )


def sensitivity_evidence(
    taus: Mapping[float, Sequence[HaltingSummary]],
    lambdas: Mapping[float, Sequence[HaltingSummary]],
    *,
    tau_rates: Sequence[Rate],
    pondernet_learns: Rate,
    pondernet_ponders_less: Rate,
    max_updates: int,
    describe: str,
) -> str:
    """What the evidence says about the sensitivity of ACT to ``tau`` and PonderNet to ``lambda_p``.

    Args:
        taus, lambdas: ``tau`` (``lambda_p``) -> the evidence's runs, one per seed, in increasing order.
        tau_rates: the rates of the chapter's two ``tau`` claims, in order: ACT's ponder steps fall,
            ACT stays below 0.8 accuracy.
        pondernet_learns: PonderNet reaches 0.9 accuracy at every ``lambda_p``.
        pondernet_ponders_less: PonderNet's ponder steps at inference fall from the smallest
            ``lambda_p`` to the largest.
    """
    tau_values, lambda_values = list(taus), list(lambdas)
    act = [h.accuracy for runs in taus.values() for h in runs]
    pondernet = [h.accuracy for runs in lambdas.values() for h in runs]
    return (
        f"Over the {len(taus[tau_values[0]])} seeds of the evidence, ACT's accuracy after {max_updates} training "
        f"updates ranges from {min(act):.3f} to {max(act):.3f} over every $\\tau$ and seed, below 0.8 at every "
        f"$\\tau$ in {tau_rates[1]}; PonderNet's from {min(pondernet):.3f} to {max(pondernet):.3f}, at least 0.9 at "
        f"every $\\lambda_p$ in {pondernet_learns}. At this budget ACT has barely started on parity, so the spreads say "
        f"how fast each setting learns more than what it can learn: this is no fair test of the paper's robustness "
        f"claim. The robust part is the effect on compute: ACT's ponder steps fall from $\\tau = {tau_values[0]:g}$ to "
        f"{tau_values[-1]:g} in {tau_rates[0]}, PonderNet's from $\\lambda_p = {lambda_values[0]:g}$ to "
        f"{lambda_values[-1]:g} in {pondernet_ponders_less}.\n\n" + describe
    )


def kl_live(
    halting: Mapping[int, Mapping[str, HaltingSummary]], prior: torch.Tensor, lambda_p: float, tail: int
) -> str:
    """The live KL-direction runs against the prior: mass on step 1, mass after step ``tail``, mean, accuracy.

    Args:
        halting: seed -> direction (``"paper"``, ``"reverse"``) -> the run's halting.
        prior: ``p_G(lambda_p)``, shape ``(N,)``.
    """

    def row(name: str, distribution: torch.Tensor, accuracy: float | None = None) -> list[str]:
        return [
            name,
            f"{distribution[0]:.3f}",
            f"{distribution[tail:].sum():.4f}",
            f"{distribution_mean(distribution):.2f}",
            "" if accuracy is None else f"{accuracy:.3f}",
        ]

    rows = [row(f"prior $p_G({lambda_p:g})$", prior)]
    for seed, by_direction in halting.items():
        rows += [row(f"{d}, seed {seed}", h.halting_probs, h.accuracy) for d, h in by_direction.items()]
    first = [r["reverse"].mass_on(1) / r["paper"].mass_on(1) for r in halting.values()]
    tails = [r["reverse"].mass_after(tail) / r["paper"].mass_after(tail) for r in halting.values()]
    core = [r["paper"].mass_on(2, 4) for r in halting.values()]  # the paper's direction: steps 2 to 4
    table = markdown_table(
        ["KL direction", "$p_1$", f"mass after step {tail}", "mean $\\mathbb E_p[n]$", "accuracy"],
        rows,
        align="lrrrr",
    )
    return (
        table
        + "\n\n"
        + (
            f"In this run the reverse KL kept {min(first):.1f} to {max(first):.1f} times the paper's mass on step 1, seed "
            f"by seed, and {min(tails):.1f} to {max(tails):.1f} times its mass after step {tail}; the paper's direction "
            f"gathered {min(core):.0%} to {max(core):.0%} of its mass on steps 2 to 4."
        )
    )


def kl_evidence(runs: Mapping[str, Sequence[HaltingSummary]], rates: Sequence[Rate], tail: int, describe: str) -> str:
    """What the evidence says about the direction of the KL.

    Args:
        runs: direction (``"paper"``, ``"reverse"``) -> the evidence's runs, one per seed, in seed order.
        rates: the rates of the chapter's four KL claims, in order: the reverse KL keeps more than 1.5
            times the paper's mass on step 1, more mass after step ``tail``, the paper's direction
            gathers more than half its mass on steps 2 to 4, the paper's direction at least as accurate.
    """
    pairs = list(zip(runs["paper"], runs["reverse"]))
    return (
        f"Over the {len(pairs)} seeds of the evidence, the reverse KL keeps more than 1.5 times the paper's mass on "
        f"step 1 in {rates[0]} (at least **{min(r.mass_on(1) / p.mass_on(1) for p, r in pairs):.1f} times**; on "
        f"average {_mean([r.mass_on(1) for _, r in pairs]):.3f} against {_mean([p.mass_on(1) for p, _ in pairs]):.3f}), "
        f"where the prior has half of its mass and the network has no use for any, and more mass after step {tail} in "
        f"{rates[1]} ({_mean([r.mass_after(tail) for _, r in pairs]):.4f} against "
        f"{_mean([p.mass_after(tail) for p, _ in pairs]):.4f} on average): it charges $-p_G(n)\\log p_n$ at every "
        f"step, so no $p_n$ may vanish where the prior has mass (mass-covering). The paper's direction lets $p$ empty "
        f"the steps the network does not use and gathers more than half its mass on steps 2 to 4 in {rates[2]} "
        f"({min(p.mass_on(2, 4) for p, _ in pairs):.0%} to {max(p.mass_on(2, 4) for p, _ in pairs):.0%} of it; "
        f"mode-seeking). Covering the prior has a price in accuracy here: {_mean([r.accuracy for _, r in pairs]):.3f} "
        f"for the reverse KL against {_mean([p.accuracy for p, _ in pairs]):.3f} for the paper's direction on average, "
        f"the paper's direction at least as accurate in {rates[3]}.\n\n" + describe
    )


def cli_summary(summary: Mapping[str, object]) -> str:
    """A run's ``--json`` summary (``python -m ponderlib train parity ... --json``): its headline numbers,
    and accuracy, executed and expected ponder steps at each difficulty as a table."""
    levels = sorted(summary["accuracy_by_difficulty"], key=int)
    expected = summary.get("expected_ponder_steps_by_difficulty") or {}
    rows = [
        [
            level,
            f"{summary['accuracy_by_difficulty'][level]:.4f}",
            f"{summary['ponder_steps_by_difficulty'][level]:.4f}",
            f"{expected[level]:.4f}" if level in expected else "",
        ]
        for level in levels
    ]
    return (
        f"`updates`: {summary['updates']}, `interpolation_accuracy`: {summary['interpolation_accuracy']}, "
        f"`extrapolation_accuracy`: {summary['extrapolation_accuracy']}, `ponder_difficulty_correlation`: "
        f"{summary['ponder_difficulty_correlation']}\n\n"
        + markdown_table(
            [
                "difficulty",
                "`accuracy_by_difficulty`",
                "`ponder_steps_by_difficulty`",
                "`expected_ponder_steps_by_difficulty`",
            ],
            rows,
            align="rrrr",
        )
    )


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


BANINO_PARITY_CLAIMS = {
    "interpolation": (
        "PonderNet achieved better accuracy than ACT on the parity task and it did so with a more efficient use "
        "of thinking time"
    ),
    "compute": "in comparison to ACT, PonderNet employed less computation and achieved higher score",
    "extrapolation": (
        "PonderNet was able to achieve almost perfect accuracy on this hard extrapolation task, whereas ACT "
        "remained at chance level"
    ),
    "thinking time": (
        "PonderNet increased its thinking time to 5 steps, which is almost twice as much as the ones in the "
        "interpolation set"
    ),
    "lambda_p": "the only case where PonderNet could not solve the task is when the prior (λp) was set to 0.9",
    "lambda_p = 0.1": (
        "when the prior (λp) was set to 0.1, hence starting with a prior average thinking time of 10 steps "
        "(1/0.1), the network managed to overcome this and settled to a more efficient average thinking time "
        "of roughly 3 steps"
    ),
    "tau": (
        "only for few configuration of τ ACT is able to solve the task and even when it does so there is a "
        "great variance across seeds"
    ),
}
"""Banino et al. (2021), sec. 3.1 and figs. 1 and 2: each parity claim as the paper words it."""

SOLVED = 0.95
"""Accuracy on the trained range from which a run "solves the task" in chapter 2's paper table."""

ALMOST_PERFECT = 0.9
"""Accuracy beyond the trained range from which a run extrapolates "almost perfect[ly]" (the issue's goal)."""

CHANCE = (0.45, 0.55)
"""Accuracy at "chance level" on a balanced binary task."""


def _seeds(values: Sequence[float], digits: int = 3) -> str:
    return f"{_mean(values):.{digits}f} ({min(values):.{digits}f} to {max(values):.{digits}f})"


PENDING = "not yet measured"
"""The verdict of a claim whose evidence set is still running (:func:`banino_parity_table`)."""


def banino_parity_table(
    pondernet: Sequence[DifficultySummary],
    act: Sequence[DifficultySummary] | None,
    *,
    lambdas: Mapping[float, Sequence[HaltingSummary]] | None,
    taus: Mapping[float, Sequence[DifficultySummary]] | None,
    taus_network: str = "ACT",
    settled_at: float = 0.1,
    running: str = "its evidence set is still running",
) -> str:
    """Banino et al.'s parity claims (:data:`BANINO_PARITY_CLAIMS`) against the evidence: each claim as the
    paper words it, what the evidence measured (mean and range over seeds) and a verdict counted over the
    cases the claim is about (:func:`~ponderlib.presentation.tables.graded`).

    Args:
        pondernet, act: one run per seed of PonderNet and of ACT at the same scale, trained on ``1..k`` and
            scored beyond, paired by seed (ACT at the ``tau`` that prices a step as PonderNet does).
        lambdas: PonderNet's runs at each ``lambda_p`` of a grid (fig. 2b, c), in increasing order, one
            :class:`~ponderlib.experiments.parity.HaltingSummary` per seed; the grid holds 0.9 and
            ``settled_at``.
        taus: ACT's runs at each ``tau`` of a grid (fig. 2a), one per seed.
        taus_network: what ``taus`` trained, named in their row ("ACT with the paper's cell", say).
        settled_at: the ``lambda_p`` of the paper's fig. 2c.
        running: what the evidence column says of a claim whose runs are not in yet.

    ``act``, ``lambdas`` or ``taus`` may be ``None`` while their evidence set is still running: the claims
    that need them get the verdict :data:`PENDING` (the extrapolation claim is graded on PonderNet's part).
    """
    if not pondernet or (act is not None and len(pondernet) != len(act)):
        raise ValueError(f"pondernet and act must hold one run per seed each, got {len(pondernet)} and {len(act or [])}")
    if lambdas is not None and (0.9 not in lambdas or settled_at not in lambdas):
        raise ValueError(f"lambdas must hold 0.9 and settled_at = {settled_at:g}, got {sorted(lambdas)}")
    seeds = len(pondernet)
    pending = [running, PENDING]

    def lam(value: float) -> str:
        return f"{value:g}"

    almost_perfect = sum(p.extrapolation >= ALMOST_PERFECT for p in pondernet)
    twice = sum(p.extrapolation_ponder_steps >= 1.5 * p.ponder_steps for p in pondernet)
    extrapolation = f"accuracy beyond the trained range: PonderNet {_seeds([p.extrapolation for p in pondernet])}"
    if act is None:
        interpolation = pending
        extrapolation += f"; ACT: {running}"
    else:
        better = sum(p.accuracy > a.accuracy and p.ponder_steps < a.ponder_steps for p, a in zip(pondernet, act))
        at_chance = sum(CHANCE[0] <= a.extrapolation <= CHANCE[1] for a in act)
        interpolation = [
            f"accuracy on the trained range: PonderNet {_seeds([p.accuracy for p in pondernet])}, ACT "
            f"{_seeds([a.accuracy for a in act])}; ponder steps at inference: PonderNet "
            f"{_seeds([p.ponder_steps for p in pondernet], 2)}, ACT {_seeds([a.ponder_steps for a in act], 2)}",
            graded(better, seeds, "seeds where PonderNet is both more accurate and uses fewer steps"),
        ]
        extrapolation += (
            f", ACT {_seeds([a.extrapolation for a in act])}; ACT at chance ({CHANCE[0]:g} to {CHANCE[1]:g}) in "
            f"{at_chance} of {seeds} seeds"
        )
    if lambdas is None:
        robust = settled = pending
    else:
        others = [value for value in lambdas if value != 0.9]
        solved_everywhere = [value for value in others if all(h.accuracy >= SOLVED for h in lambdas[value])]
        solved_at_09 = sum(h.accuracy >= SOLVED for h in lambdas[0.9])
        learned = [h.expected_ponder_steps for h in lambdas[settled_at]]
        robust = [
            "accuracy on the trained range by λp: "
            + ", ".join(f"{_mean([h.accuracy for h in runs]):.3f} at {lam(value)}" for value, runs in lambdas.items())
            + f"; at 0.9, {solved_at_09} of {len(lambdas[0.9])} seeds reach {SOLVED:g}",
            graded(
                len(solved_everywhere) + int(solved_at_09 < len(lambdas[0.9])),
                len(lambdas),
                f"values of λp that behave as the claim says (every seed reaches {SOLVED:g}; at 0.9, not every seed)",
            ),
        ]
        settled = [
            f"at λp = {lam(settled_at)}: learned E[n] {_seeds(learned, 2)}",
            graded(sum(2.0 <= steps <= 4.0 for steps in learned), len(learned), "seeds between 2 and 4 steps"),
        ]
    if taus is None:
        sensitive = pending
    else:
        act_fails = [tau for tau, runs in taus.items() if any(m.accuracy < SOLVED for m in runs)]
        sensitive = [
            f"{taus_network}, accuracy on the trained range by τ: "
            + ", ".join(f"{_mean([m.accuracy for m in runs]):.3f} at {tau:g}" for tau, runs in taus.items()),
            graded(len(act_fails), len(taus), f"values of τ where some seed stays below {SOLVED:g}"),
        ]
    rows = [
        [BANINO_PARITY_CLAIMS["interpolation"], *interpolation],
        [
            BANINO_PARITY_CLAIMS["compute"],
            "the evidence records the steps run at evaluation, not the forward passes of training",
            "not tested",
        ],
        [
            BANINO_PARITY_CLAIMS["extrapolation"],
            extrapolation,
            graded(almost_perfect, seeds, f"PonderNet seeds at {ALMOST_PERFECT:g} or more"),
        ],
        [
            BANINO_PARITY_CLAIMS["thinking time"],
            f"PonderNet's ponder steps at inference: {_seeds([p.ponder_steps for p in pondernet], 2)} on the "
            f"trained range, {_seeds([p.extrapolation_ponder_steps for p in pondernet], 2)} beyond it",
            graded(twice, seeds, "seeds with at least 1.5 times the steps beyond the trained range"),
        ],
        [BANINO_PARITY_CLAIMS["lambda_p"], *robust],
        [BANINO_PARITY_CLAIMS["lambda_p = 0.1"], *settled],
        [BANINO_PARITY_CLAIMS["tau"], *sensitive],
    ]
    return markdown_table(["the paper's claim", "this book's evidence", "verdict"], rows)
