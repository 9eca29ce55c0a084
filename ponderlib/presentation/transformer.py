"""What chapter 4 says in words and tables about its Universal Transformer runs on assignment chains.

Each function turns results into Markdown that a chapter cell tagged ``remove-input`` shows: the live
runs per seed, the sentences that state them, the runs on longer programs and deeper chains, and the
paper-against-this-run table over the committed evidence.

A *run* is what :func:`~ponderlib.tasks.chains.train_chains` returns: its ``config`` (``seed``,
``max_len``, ``max_depth``, ``test_max_len``, ``test_max_depth``, ``fixed_depth``) and its ``tests``
(``"trained"``, ``"longer"``, ``"deeper"``: each a :class:`~ponderlib.tasks.chains.ChainsEvaluation`).
``runs`` maps each method (``"act"``, ``"fixed"``, ``"pondernet"``) to its runs, one per seed, in seed
order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.experiments.transformer import LEARNT_ACCURACY, StepsDistribution, mean_steps_by_depth
from ponderlib.figures import style
from ponderlib.presentation.tables import markdown_table, number_word, verdict
from ponderlib.sweep.evidence import Evidence, Rate
from ponderlib.sweep.presets import DEEP_START
from ponderlib.tasks.chains import ChainsEvaluation

Runs = Mapping[str, Sequence[Any]]
"""Method -> its runs (each with ``config`` and ``tests``), one per seed."""


def _range(values: Sequence[float], digits: int) -> str:
    return f"{min(values):.{digits}f} to {max(values):.{digits}f}"


def _span(values: Sequence[float], digits: int) -> str:
    """:func:`_range`, or the one value when all are equal: ``"0.85"`` rather than ``"0.85 to 0.85"``."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low} to {high}"


def _hops(depth: int) -> str:
    return "1 hop" if depth == 1 else f"{depth} hops"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def spread(values: Sequence[float]) -> str:
    """``"0.02 to 0.93 (mean 0.51)"``: the smallest, the largest and the mean of ``values``.

    >>> spread([0.5, 0.25, 1.0])
    '0.25 to 1.00 (mean 0.58)'
    """
    if len(values) == 0:
        raise ValueError("values must hold at least one number, got none")
    return f"{_range(values, 2)} (mean {_mean(values):.2f})"


def scores(runs: Runs, test: str = "trained") -> dict[str, list[ChainsEvaluation]]:
    """Method -> each seed's evaluation on the test set ``test`` (``"trained"``, ``"longer"``, ``"deeper"``)."""
    return {method: [run.tests[test] for run in method_runs] for method, method_runs in runs.items()}


def test_sets(config: Any) -> dict[str, str]:
    """Label -> test set of a run's ``config``: the programs as trained, longer ones, and longer ones
    with deeper chains, e.g. ``{"trained: len <= 10, depth <= 4": "trained", "len <= 20, depth <= 4":
    "longer", "len <= 20, depth <= 7": "deeper"}``."""
    return {
        f"trained: len <= {config.max_len}, depth <= {config.max_depth}": "trained",
        f"len <= {config.test_max_len}, depth <= {config.max_depth}": "longer",
        f"len <= {config.test_max_len}, depth <= {config.test_max_depth}": "deeper",
    }


def _config(evidence: Evidence) -> dict:
    """The configuration of the evidence's runs (every run of a chains preset has the same programs)."""
    return evidence.records[0]["config"]


def _first(runs: Runs) -> Any:
    return next(iter(runs.values()))[0]


def accuracies_by_test(runs: Runs) -> dict[str, dict[str, list[float]]]:
    """Method -> test-set label (:func:`test_sets`) -> accuracy of each seed: what
    :func:`~ponderlib.figures.transformer.plot_lengths` draws."""
    labels = test_sets(_first(runs).config)
    return {
        method: {label: [run.tests[test].accuracy for run in method_runs] for label, test in labels.items()}
        for method, method_runs in runs.items()
    }


def _r(value: float | None) -> str:
    """A correlation to two decimals; a dash where it is undefined (the fixed depth's constant steps)."""
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def live_table(runs: Runs) -> str:
    """Per method and seed: held-out accuracy, mean ponder steps, and the correlation of ponder steps with
    the required depth, over all positions and within each position (:meth:`ChainsEvaluation.correlations`)."""
    header = ["method", "seed", "accuracy", "ponder steps", "r(N, d)", "r(N, d) within position"]
    rows = []
    for method, method_runs in runs.items():
        for run in method_runs:
            trained = run.tests["trained"]
            correlations = trained.correlations()
            rows.append([
                style.label(method), run.config.seed, f"{trained.accuracy:.3f}", f"{trained.mean_ponder_steps:.2f}",
                _r(correlations["depth"]), _r(correlations["depth_given_position"]),
            ])
    return markdown_table(header, rows, align="lrrrrr")


def learnt(accuracies: Sequence[float]) -> int:
    """How many of ``accuracies`` reach :data:`~ponderlib.experiments.transformer.LEARNT_ACCURACY`."""
    return sum(accuracy >= LEARNT_ACCURACY for accuracy in accuracies)


def live_paragraph(runs: Runs) -> str:
    """The live runs in a paragraph: in how many seeds each ACT learnt the chains, and how closely
    its ponder steps follow the required depth where it did; the fixed depth's and PonderNet's accuracy."""
    evaluations = scores(runs)
    seeds = len(next(iter(evaluations.values())))
    parts = []
    for method in ("act", "act-deep-start"):
        accuracies = [e.accuracy for e in evaluations[method]]
        correlations = [e.depth_correlation for e in evaluations[method] if e.accuracy >= LEARNT_ACCURACY]
        follows = f", its ponder steps following the depth with r = {_span(correlations, 2)} there" if correlations else ""
        parts.append(f"in {learnt(accuracies)} of the {number_word(seeds)} seeds (accuracy {_span(accuracies, 3)}){follows}")
    return (
        f"In this run, ACT with Graves' initial bias learnt the chains (accuracy {LEARNT_ACCURACY} or more) {parts[0]}; "
        f"with a deep start, {parts[1]}. The fixed depth reaches {_span([e.accuracy for e in evaluations['fixed']], 3)}, "
        f"PonderNet {_span([e.accuracy for e in evaluations['pondernet']], 3)}."
    )


def evidence_paragraph(evidence: Evidence) -> str:
    """What the live setting's evidence says in a paragraph: in how many seeds ACT learns the chains with
    Graves' initial halting bias and with a deep start, and what the stuck runs do; then
    :meth:`~ponderlib.sweep.evidence.Evidence.describe`."""
    graves = evidence.runs(method="act", halting_bias_init=1.0)
    deep = evidence.runs(method="act", halting_bias_init=DEEP_START)
    stuck = [run for run in graves if run["test_accuracy"] < LEARNT_ACCURACY]
    seeds = len(graves)
    text = (
        f"Over the {seeds} seeds of the evidence, ACT with Graves' initial bias learns the chains in "
        f"**{learnt([r['test_accuracy'] for r in graves])} of {seeds}**; with a deep start in "
        f"**{learnt([r['test_accuracy'] for r in deep])} of {len(deep)}**."
    )
    if stuck:
        text += (
            f" The {len(stuck)} runs with Graves' bias that do not learn them ponder "
            f"{_span([r['test_ponder_steps'] for r in stuck], 2)} steps per position and reach "
            f"{_span([r['test_accuracy'] for r in stuck], 3)} accuracy: "
            + ", ".join(
                f"{_span([r['accuracy_by_depth'][str(d)] for r in stuck], 2)} at {_hops(d)}"
                for d in range(_config(evidence)["max_depth"] + 1)
            )
            + "."
        )
    return text + "\n\n" + evidence.describe()


def correlation_table(settings: Mapping[str, Sequence[Mapping]]) -> str:
    """One row per setting (``settings``: label -> run summaries, one per seed): Pearson's r of the ponder
    steps N with the required depth d, over all positions and within each position; of the expected
    steps E[N] (the halting distribution's mean) with d; and of d with the position in the test programs
    (the confound). Each as :func:`spread` over the seeds."""

    def cell(summaries: Sequence[Mapping], name: str) -> str:
        values = [s[name] for s in summaries if s.get(name) is not None]
        return spread(values) if values else "–"

    header = ["setting", "r(N, d)", "r(N, d) within position", "r(E[N], d)", "r(d, position) in the data"]
    rows = [
        [
            label, cell(summaries, "test_depth_correlation"), cell(summaries, "test_depth_correlation_given_position"),
            cell(summaries, "test_expected_depth_correlation"), cell(summaries, "test_depth_position_correlation"),
        ]
        for label, summaries in settings.items()
    ]
    return markdown_table(header, rows)


def distribution_table(distributions: Mapping[str, Mapping[int, StepsDistribution]]) -> str:
    """Ponder steps per required depth as the paper reports bAbI's, mean ± standard deviation over every
    position of that depth in every run (``distributions``: method -> :func:`pooled_steps`)."""
    methods = list(distributions)
    depths = sorted(set.intersection(*(set(table) for table in distributions.values())))
    header = ["required depth", *(style.label(method) for method in methods)]
    rows = [[d, *(f"{distributions[m][d].mean:.1f} ± {distributions[m][d].sd:.1f}" for m in methods)] for d in depths]
    return markdown_table(header, rows, align="r" * len(header))


def steps_by_depth_sentence(evaluations: Sequence[ChainsEvaluation], method: str = "act") -> str:
    """``"Mean ponder steps per required depth 0 to 4, ACT: 2.53, 2.90, 3.53, 4.15, 4.55."``, averaged
    over the seeds' evaluations (:func:`~ponderlib.experiments.transformer.mean_steps_by_depth`)."""
    table = mean_steps_by_depth(evaluations)
    return (
        f"Mean ponder steps per required depth {min(table)} to {max(table)}, {style.label(method)}: "
        + ", ".join(f"{steps:.2f}" for steps in table.values())
        + "."
    )


def shift_table(runs: Runs) -> str:
    """Per method and seed: the accuracy on longer programs, on deeper chains, and the accuracy and
    ponder steps at the depths deeper than any trained."""
    config = _first(runs).config
    unseen = config.max_depth + 1
    header = [
        "method",
        "seed",
        f"accuracy, len <= {config.test_max_len}",
        f"accuracy, depth <= {config.test_max_depth}",
        f"accuracy at depth {unseen}-{config.test_max_depth}",
        f"ponder steps at depth {unseen}-{config.test_max_depth}",
    ]
    rows = []
    for method, method_runs in runs.items():
        for run in method_runs:
            deeper = run.tests["deeper"]
            accuracy, steps, _ = deeper.at_depths(unseen)
            rows.append(
                [
                    style.label(method),
                    run.config.seed,
                    f"{run.tests['longer'].accuracy:.3f}",
                    f"{deeper.accuracy:.3f}",
                    f"{accuracy:.3f}",
                    f"{steps:.2f}",
                ]
            )
    return markdown_table(header, rows, align="llrrrr")


def shift_paragraph(runs: Runs, act: str = "act") -> str:
    """The runs on longer programs and deeper chains in a paragraph: what each method loses, how close to
    chance every model is beyond the trained depth, and how many steps ACT (the runs ``runs[act]``)
    spends there."""
    config = _first(runs).config
    unseen = config.max_depth + 1
    drop = {
        method: [run.tests["trained"].accuracy - run.tests["longer"].accuracy for run in method_runs]
        for method, method_runs in runs.items()
    }
    deep_steps = [run.tests["deeper"].at_depths(unseen)[1] for run in runs[act]]
    one_hop_steps = [run.tests["trained"].by_depth()[1][1] for run in runs[act]]
    best = max(run.tests["deeper"].at_depths(unseen)[0] for method_runs in runs.values() for run in method_runs)
    return (
        "In this run, on programs twice as long, "
        + ", ".join(f"{style.label(method)} loses {_range(drops, 3)}" for method, drops in drop.items())
        + f" accuracy. On chains {unseen} to {config.test_max_depth} hops deep, deeper than any seen in training, "
        f"the best run is right on {best:.2f} of the positions, where chance is 0.50. {style.label(act)} spends "
        f"{', '.join(f'{s:.1f}' for s in deep_steps)} ponder steps there per seed, against "
        f"{', '.join(f'{s:.1f}' for s in one_hop_steps)} on one-hop positions, and the extra steps turn into few "
        "right answers: the block has learnt what to do for chains as deep as it was trained on."
    )


PONDER_TIME_QUOTE = (
    "\"with dynamic halting we observe that the average ponder time (i.e. depth of the per-symbol recurrent "
    "processing chain) over all positions in all samples in the test data for tasks requiring three supporting "
    "facts is higher (3.8±2.2) than for tasks requiring only two (3.1±1.1), which is in turn higher than for "
    "tasks requiring only one supporting fact (2.3±0.8)\" (sec. 4.1)"
)
"""Dehghani et al.'s ponder-time claim on bAbI, as the paper (arXiv 1807.03819v3) words it."""

HALTING_QUOTE = (
    "\"We also add a dynamic per-position halting mechanism and find that it improves accuracy on several "
    "tasks.\" (abstract)"
)
"""Dehghani et al.'s claim for dynamic halting, as the paper words it."""

LENGTH_QUOTE = (
    "\"popular feed-forward sequence models like the Transformer fail to generalize in many simple tasks that "
    "recurrent models handle with ease, e.g. copying strings or even simple logical inference when the string or "
    "formula lengths exceed those observed at training time\" (abstract)"
)
"""Dehghani et al.'s motivation: generalising to longer inputs than trained."""


def paper_table(
    converged: Evidence, distributions: Mapping[str, Mapping[int, StepsDistribution]], *, ordered: Mapping[str, Rate],
    as_accurate: Mapping[str, Rate], longer_cost: Rate,
) -> str:
    """Dehghani et al.'s claims, quoted, against the evidence at convergence (``converged``, the preset
    ``ut-chains-depth``): the paper's setting, what the runs show, and the verdict.

    Args:
        distributions: method -> depth -> pooled ponder steps (:func:`pooled_steps`) of ``converged``.
        ordered: method -> in how many seeds its mean ponder steps grow with every hop from 1 to the
            deepest trained depth.
        as_accurate: method -> in how many seeds it is at least as accurate as the fixed depth.
        longer_cost: in how many seeds programs twice as long cost every model accuracy.
    """
    seeds = len(converged.preset.seeds)
    updates = converged.preset.max_updates

    def steps(method: str) -> str:
        table = distributions[method]
        return ", ".join(f"{table[d].mean:.1f} ± {table[d].sd:.1f}" for d in sorted(table))

    def accuracy(method: str, bias: float = 1.0) -> str:
        return spread(converged.values("test_accuracy", method=method, halting_bias_init=bias))

    depths = sorted(next(iter(distributions.values())))
    rows = [
        [
            PONDER_TIME_QUOTE,
            "bAbI (10k examples), UT with dynamic halting",
            "ponder steps at depth " + f"{depths[0]} to {depths[-1]} hops, mean ± sd over every position of "
            f"{seeds} seeds: " + "; ".join(f"{style.label(m)} {steps(m)}" for m in distributions),
            "; ".join(f"{style.label(m)}: {verdict(rate)} grow with every hop" for m, rate in ordered.items()),
        ],
        [
            HALTING_QUOTE,
            "bAbI, UT against UT with dynamic halting (table 1)",
            f"accuracy after {updates:,} updates: fixed depth 3 {accuracy('fixed')}; ACT {accuracy('act')}; "
            f"ACT, deep start {accuracy('act', DEEP_START)}; PonderNet {accuracy('pondernet')}",
            "; ".join(f"{style.label(m)} at least as accurate as the fixed depth: {verdict(rate)}" for m, rate in as_accurate.items()),
        ],
        [
            LENGTH_QUOTE,
            "algorithmic tasks trained on length 40, tested on 400; a Transformer and an LSTM as baselines",
            f"programs twice as long cost every model accuracy ({longer_cost}); we have no Transformer with "
            "distinct layers to compare with",
            "not tested",
        ],
        [
            "bAbI's attention \"start[s] out very uniform, but get[s] progressively sharper in later steps around the "
            "correct supporting facts\" (sec. 4.1)",
            "bAbI",
            "we keep only each position's attention at its last ponder step (the interactive figure)",
            "not tested",
        ],
        [
            "state of the art on LAMBADA, +0.9 BLEU on WMT14 English-German, Turing completeness (secs. 3.3, 3.5, 4)",
            "large models, days on GPUs",
            "beyond this chapter's scale",
            "not tested",
        ],
    ]
    header = ["claim (Dehghani et al. 2019)", "paper's setting", f"this chapter's evidence, {seeds} seeds", "verdict"]
    return markdown_table(header, rows)


def distribution_paragraph(distributions: Mapping[str, Mapping[int, StepsDistribution]], evidence: Evidence) -> str:
    """The pooled distributions of :func:`distribution_table` in words: for each method how its mean
    ponder steps rise from roots to the deepest chains and how wide the spread is, and the share of
    positions that ran exactly ``d + 1`` steps at ``d >= 1`` hops."""
    seeds = len(evidence.preset.seeds)
    parts = []
    for method, table in distributions.items():
        depths = sorted(table)
        hops = [d for d in depths if d >= 1 and d + 1 <= len(table[d].counts)]
        on_line = sum(table[d].counts[d] for d in hops) / sum(table[d].positions for d in hops)
        parts.append(
            f"{style.label(method)}'s mean rises from {table[depths[0]].mean:.1f} steps on roots to "
            f"{table[depths[-1]].mean:.1f} at {depths[-1]} hops, with a standard deviation of "
            f"{min(table[d].sd for d in depths):.1f} to {max(table[d].sd for d in depths):.1f} steps; "
            f"{on_line:.0%} of the positions 1 to {depths[-1]} hops deep ran exactly $d + 1$ steps"
        )
    return f"Over the {seeds} seeds, " + "; ".join(parts) + "."


def correlation_paragraph(converged: Evidence, topological: Evidence) -> str:
    """:func:`correlation_table` in words: how much of ACT's and PonderNet's correlation with depth is
    left within each position, in both orders, and how much closer PonderNet's expected steps follow
    the depth than the steps it samples."""

    def mean(evidence: Evidence, name: str, **point: Any) -> float:
        return _mean(evidence.values(name, **point))

    act = {"method": "act", "halting_bias_init": DEEP_START}
    pondernet = {"method": "pondernet", "halting_bias_init": 1.0}
    return (
        f"Controlling for position changes little. With a deep start, ACT's mean r is "
        f"{mean(converged, 'test_depth_correlation', **act):.2f} over all positions and "
        f"{mean(converged, 'test_depth_correlation_given_position', **act):.2f} within each; in topological "
        f"order, where depth and position correlate with r = "
        f"{mean(topological, 'test_depth_position_correlation', method='act'):.2f}, ACT's r is "
        f"{mean(topological, 'test_depth_correlation', method='act'):.2f} over all positions and "
        f"{mean(topological, 'test_depth_correlation_given_position', method='act'):.2f} within each. "
        f"PonderNet's sampled steps follow the depth with r = {mean(converged, 'test_depth_correlation', **pondernet):.2f}, "
        f"the mean of its halting distribution with r = "
        f"{mean(converged, 'test_expected_depth_correlation', **pondernet):.2f}: most of the gap to ACT is the "
        "noise of drawing one halting step per position, not a distribution that ignores the depth."
    )


def compute_paragraph(
    fixed: Mapping[int, Sequence[Sequence[float]]], adaptive: Mapping[str, Sequence[Sequence[float]]], deepest: int
) -> str:
    """:func:`~ponderlib.figures.transformer.plot_compute_accuracy`'s points in words: each adaptive
    model's mean computation and accuracies beside the fixed depths that spend the nearest amounts."""

    def means(rows: Sequence[Sequence[float]]) -> list[float]:
        return [_mean([row[k] for row in rows]) for k in range(3)]

    fixed_means = {depth: means(rows) for depth, rows in sorted(fixed.items())}
    parts = []
    for method, rows in adaptive.items():
        steps, at_deepest, deeper = means(rows)
        below = max((d for d in fixed_means if d <= steps), default=min(fixed_means))
        above = min((d for d in fixed_means if d >= steps), default=max(fixed_means))
        nearest = sorted({below, above})
        fixed_text = " and ".join(
            f"L = {d}: {fixed_means[d][1]:.3f} and {fixed_means[d][2]:.3f}" for d in nearest
        )
        parts.append(
            f"{style.label(method)} spends {steps:.2f} steps per position for {at_deepest:.3f} at {deepest} hops and "
            f"{deeper:.3f} on the longer, deeper programs (the fixed depth, {fixed_text})"
        )
    return "Means over the seeds: " + "; ".join(parts) + "."


def tau_paragraph(evidence: Evidence) -> str:
    """In how many seeds of the tau evidence (grid ``tau``) ACT learns the chains at each tau, and its
    mean ponder steps there."""
    parts = [
        f"{learnt(evidence.values('test_accuracy', tau=tau))} of {len(evidence.values('test_accuracy', tau=tau))} "
        f"seeds at tau = {tau:g} ({_mean(evidence.values('test_ponder_steps', tau=tau)):.2f} steps per position)"
        for tau in evidence.preset.grid["tau"]
    ]
    return (
        f"Over the evidence's seeds, ACT with a deep start learns the chains (accuracy {LEARNT_ACCURACY} or more) in "
        + ", ".join(parts[:-1]) + f" and {parts[-1]}: the smaller the ponder cost, the more runs learn the look-up "
        "before their steps erode, as the trap above predicts."
    )
