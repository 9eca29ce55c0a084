"""What chapter 3 shows in words, built from its results: the tables of exact match by length, of the
decoders and of the hulls, the sentences that state this run's and the evidence's numbers, and the
table of the paper against the evidence.

Every function returns Markdown (a chapter shows it with :func:`ponderlib.presentation.tables.show`);
fractions are written as percentages with one decimal (``0.992`` is ``99.2%``) in sentences and with
three decimals in tables. A seed's values are listed in the order the mappings give them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.experiments.pointer import HULL_GOAL, HULL_GOAL_AREA, BeamScore, mean_and_half_range, updates_to_reach
from ponderlib.figures import style
from ponderlib.mechanisms.pointer import DECODERS
from ponderlib.presentation.tables import markdown_table, number_word, verdict
from ponderlib.sweep.evidence import Rate

HULL_METRICS = ("accuracy", "area_coverage", "invalid")
"""The per-point-count metrics a hull table reads, each ``{n: [one value per seed]}``."""

PAPER_RATES = (
    "hull_area_10",
    "hull_rising",
    "hull_falls",
    "hull_area_20",
    "pointer_ahead",
    "attention_helps",
    "sort_20",
)
"""The claims' rates :func:`paper_table` reads, by short name (see its docstring)."""

CONVERGED_RATES = ("converged_ahead", "converged_faster")
"""The rates :func:`paper_table` also reads when it is given the decoders at one large budget."""

NEAR_PAPER_RATES = ("near_paper_goal",)
"""The rate :func:`paper_table` also reads when it is given the hulls near the paper's setting."""

PAPER_HULLS = {"Vinyals et al. (trained on 5-50)": {5: 0.920, 10: 0.870}, "a public reproduction": {5: 0.938, 10: 0.879}}
"""The published polygon accuracies a hull figure marks: the paper's Table 1 row for 5 to 50 points and
a public reproduction's (256 units, Adam decaying, a beam of 3), by number of points."""


def spread(values: Sequence[float]) -> str:
    """Per-seed fractions as a range and their mean, ``"98.6% to 99.8% (mean 99.2%)"``, or
    ``"100.0% in each of the 20 seeds"`` when every seed shows the same value to 0.1%.

    >>> spread([0.5, 0.7, 0.9])
    '50.0% to 90.0% (mean 70.0%)'
    >>> spread([0.9991, 0.9989])
    '99.9% in each of the 2 seeds'
    """
    if len(values) == 0:
        raise ValueError("values must hold at least one number, got none")
    if f"{min(values):.1%}" == f"{max(values):.1%}":
        return f"{min(values):.1%} in each of the {len(values)} seeds"
    return f"{min(values):.1%} to {max(values):.1%} (mean {statistics.mean(values):.1%})"


def sort_length_table(by_length: Mapping[int, Mapping[int, float]], lengths: Sequence[int] = (5, 10, 15, 20)) -> str:
    """Exact match at each of ``lengths``, one column per seed and their mean.

    Args:
        by_length: seed -> {array length: exact match} (a sorting run's ``by_length``).
        lengths: the rows.
    """
    seeds = list(by_length)
    if not seeds:
        raise ValueError("by_length must hold at least one seed, got none")
    rows = []
    for n in lengths:
        values = [by_length[seed][n] for seed in seeds]
        rows.append([n, *(f"{v:.3f}" for v in values), f"{statistics.mean(values):.3f}"])
    return markdown_table(["length", *(f"seed {seed}" for seed in seeds), "mean"], rows, align="r" * (len(seeds) + 2))


def sort_live_sentence(by_length: Mapping[int, Mapping[int, float]], trained_max: int = 10, longest: int = 20) -> str:
    """This run's exact match on arrays of ``trained_max`` reals (the longest trained) and of ``longest``,
    over its seeds (``by_length`` as in :func:`sort_length_table`)."""
    at_trained = [curve[trained_max] for curve in by_length.values()]
    at_longest = [curve[longest] for curve in by_length.values()]
    return (
        f"In this run, trained on lengths 5 to {trained_max}, the pointer sorts arrays of {trained_max} reals in "
        f"descending order exactly in **{min(at_trained):.1%} to {max(at_trained):.1%}** of cases over the "
        f"{len(at_trained)} seeds (mean {statistics.mean(at_trained):.1%}) and arrays of {longest}, "
        f"{_times(longest, trained_max)} the longest it saw, in **{min(at_longest):.1%} to {max(at_longest):.1%}** "
        f"(mean {statistics.mean(at_longest):.1%})."
    )


def _times(longer: int, shorter: int) -> str:
    return "twice" if longer == 2 * shorter else f"{longer / shorter:g} times"


def sort_evidence_sentence(at_10: Sequence[float], at_20: Sequence[float], rate_10: Rate, rate_20: Rate) -> str:
    """The evidence's exact match on arrays of 10 and of 20 reals (one value per seed), their spread at 20,
    and in how many seeds the thresholds of 0.98 at length 10 (``rate_10``) and 0.90 at 20 hold."""
    return (
        f"Over the {len(at_10)} seeds of the evidence, the pointer sorts arrays of 10 reals exactly in "
        f"{spread(at_10)} of cases and arrays of 20 in {spread(at_20)}: the seeds lie within "
        f"{100 * (max(at_20) - min(at_20)):.1f} percentage points of each other at length 20. The threshold of "
        f"0.98 at length 10 holds in {rate_10}, that of 0.90 at length 20 in {rate_20}."
    )


def beam_sentence(beam_scores: Mapping[int, Mapping[int, BeamScore]], width: int = 4, length: int = 20) -> str:
    """What beam search of ``width`` changed against greedy decoding (width 1) on arrays of ``length``,
    from seed -> {beam width: :class:`~ponderlib.experiments.pointer.BeamScore`}; a statement about these
    runs, not about the setting."""
    changes = [scores[width].exact_match - scores[1].exact_match for scores in beam_scores.values()]
    if all(change == 0 for change in changes):
        effect = (
            f"gives the same exact match on arrays of {length} as greedy decoding in each of the {len(changes)} seeds"
        )
    else:
        effect = (
            f"changes exact match on arrays of {length} by {min(changes):+.4f} to {max(changes):+.4f} against "
            "greedy decoding"
        )
    same = [scores[width].greedy_agreement for scores in beam_scores.values()]
    share = f"{min(same):.1%}" if min(same) == max(same) else f"{min(same):.1%} to {max(same):.1%}"
    why = f": its output is greedy decoding's own on {share} of the arrays"
    if min(same) == 1.0:
        why += ", so the most likely position at every step is already on the most likely whole order the beam can find"
    return (
        f"In this run, beam width {width} {effect}{why}. Beam search is not part of the evidence, so this is a "
        f"statement about these {number_word(len(changes))} runs, not a claim about the setting."
    )


def decoder_table(comparison: Mapping[str, Mapping[int, Any]]) -> str:
    """The decoders' exact match per seed, its mean and half-range, and their mean element accuracy.

    Args:
        comparison: decoder -> seed -> a sorting result (its ``test.exact_match`` and
            ``test.element_accuracy``, fractions).
    """
    if not comparison:
        raise ValueError("comparison must hold at least one decoder, got none")
    seeds = list(next(iter(comparison.values())))
    rows = []
    for decoder, runs in comparison.items():
        exact = [runs[seed].test.exact_match for seed in seeds]
        elements = [runs[seed].test.element_accuracy for seed in seeds]
        mean, half_range = mean_and_half_range(exact)
        rows.append(
            [
                style.label(decoder),
                ", ".join(f"{x:.3f}" for x in exact),
                f"{mean:.3f} ± {half_range:.3f}",
                f"{statistics.mean(elements):.3f}",
            ]
        )
    header = [
        "decoder",
        "exact match, " + ", ".join(f"seed {s}" for s in seeds),
        "mean ± half-range",
        "element accuracy, mean",
    ]
    return markdown_table(header, rows, align="lrrr")


def decoder_live_sentence(comparison: Mapping[str, Mapping[int, Any]], updates: int) -> str:
    """The pointer's worst seed against the best seed of the better seq2seq decoder (every decoder but
    ``"pointer"``), after ``updates`` training updates (``comparison`` as in :func:`decoder_table`)."""
    pointer_worst = min(run.test.exact_match for run in comparison["pointer"].values())
    baseline_best = max(
        run.test.exact_match for d, runs in comparison.items() if d != "pointer" for run in runs.values()
    )
    return (
        f"In this run, after {updates} training updates the pointer's worst seed sorts **{pointer_worst:.1%}** of "
        f"the test arrays exactly; the better seq2seq decoder in its best seed sorts **{baseline_best:.1%}**."
    )


def decoder_evidence_sentence(exact: Mapping[str, Sequence[float]], updates: int, attention_helps: Rate) -> str:
    """The evidence's exact match of the pointer, seq2seq and seq2seq with Bahdanau's attention (decoder ->
    one value per seed, seed order), the pointer's lead over the better of the two in each seed, and in
    how many seeds attention sorts more arrays exactly than plain seq2seq (``attention_helps``)."""
    lead = [p - max(s, b) for s, b, p in zip(exact["seq2seq"], exact["bahdanau"], exact["pointer"])]
    return (
        f"Over the {len(lead)} seeds of the evidence, after {updates} training updates the share of test arrays "
        f"sorted exactly is {spread(exact['pointer'])} for the pointer, {spread(exact['seq2seq'])} for seq2seq and "
        f"{spread(exact['bahdanau'])} for seq2seq with Bahdanau's attention; the pointer's lead over the better of "
        f"the two is {min(lead):.2f} to {max(lead):.2f}. Attention does not even help the seq2seq decoder at this "
        f"budget: it sorts more arrays exactly in {attention_helps}."
    )


def _updates(update: int | None) -> str:
    return "never" if update is None else f"{update:,}"


def converged_decoder_table(runs: Mapping[str, Sequence[Mapping]], thresholds: Sequence[float] = (0.95, 0.99)) -> str:
    """The decoders at one large budget, from run summaries (a preset's evidence): exact match on the test
    arrays at the end, per seed and its mean, and for each of ``thresholds`` the training update at which
    held-out exact match first reached it (:func:`~ponderlib.experiments.pointer.updates_to_reach`), per
    seed, "never" when no evaluation did.

    Args:
        runs: decoder -> its runs' summaries (``exact_match``, ``curve`` and ``seed``), in seed order.
        thresholds: fractions of held-out arrays sorted exactly.
    """
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each decoder to at least one run summary")
    if not thresholds or not all(0.0 < threshold <= 1.0 for threshold in thresholds):
        raise ValueError(f"thresholds must be fractions in (0, 1], at least one; got {list(thresholds)}")
    seeds = [summary["seed"] for summary in next(iter(runs.values()))]
    rows = []
    for decoder, summaries in runs.items():
        if [summary["seed"] for summary in summaries] != seeds:
            raise ValueError(f"every decoder must hold the seeds {seeds} in that order; {decoder} holds others")
        exact = [summary["exact_match"] for summary in summaries]
        first = [
            " / ".join(_updates(updates_to_reach(s["curve"], "exact_match", threshold)) for s in summaries)
            for threshold in thresholds
        ]
        rows.append([style.label(decoder), ", ".join(f"{x:.3f}" for x in exact), f"{statistics.mean(exact):.3f}", *first])
    header = [
        "decoder",
        "exact match at the end, " + ", ".join(f"seed {s}" for s in seeds),
        "mean",
        *(f"first at {threshold:.0%} held out (updates), per seed" for threshold in thresholds),
    ]
    return markdown_table(header, rows, align="lrr" + "r" * len(thresholds))


def converged_decoder_sentence(runs: Mapping[str, Sequence[Mapping]], updates: int, threshold: float = 0.95) -> str:
    """The decoders at one large budget in a sentence (``runs`` as in :func:`converged_decoder_table`): the
    share of test arrays each sorts exactly after ``updates`` training updates, over its seeds, and the
    median update at which its held-out exact match first reached ``threshold`` (with the seeds in which
    it never did)."""
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each decoder to at least one run summary")
    exact = ", ".join(
        f"{spread([s['exact_match'] for s in summaries])} for {style.label(decoder)}" for decoder, summaries in runs.items()
    )
    first = []
    for decoder, summaries in runs.items():
        reached = [updates_to_reach(s["curve"], "exact_match", threshold) for s in summaries]
        done = [update for update in reached if update is not None]
        text = f"{statistics.median(done):,.0f} for {style.label(decoder)}" if done else f"never for {style.label(decoder)}"
        if done and len(done) < len(reached):
            text += f" (never in {len(reached) - len(done)} of its {len(reached)} seeds)"
        first.append(text)
    listed = ", ".join(first[:-1]) + (" and " if len(first) > 1 else "") + first[-1]
    return (
        f"After {updates:,} training updates the share of test arrays sorted exactly is {exact}. Held-out exact "
        f"match first reaches {threshold:.0%} at update {listed} (the median over seeds)."
    )


def _check_hull_metrics(metrics: Mapping[str, Mapping[int, Sequence[float]]], more: Sequence[str] = ()) -> None:
    names = (*more, *HULL_METRICS)
    missing = [name for name in names if name not in metrics]
    if missing:
        raise ValueError(f"metrics must hold {', '.join(names)}; {', '.join(missing)} missing")


def _points_label(n: int, trained_max: int) -> str:
    return f"{n} (longer than trained)" if n > trained_max else str(n)


def _per_seed(values: Sequence[float]) -> str:
    return ", ".join(f"{value:.3f}" for value in values)


def hull_polygon_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """Polygon accuracy and area coverage per seed, with the means of both, of exact-sequence accuracy and
    of invalid outputs, one row per point count (counts above ``trained_max`` marked "longer than
    trained"): the table of hulls near the paper's setting.

    Args:
        metrics: ``"polygon_accuracy"`` and the names of :data:`HULL_METRICS` -> {point count: one
            fraction per seed} (as :func:`ponderlib.experiments.pointer.metric_by_points` gives them).
        point_counts: the rows.
        trained_max: the most points a training set had.
    """
    _check_hull_metrics(metrics, ("polygon_accuracy",))
    rows = []
    for n in point_counts:
        polygon, area = metrics["polygon_accuracy"][n], metrics["area_coverage"][n]
        rows.append([
            _points_label(n, trained_max), _per_seed(polygon), f"{statistics.mean(polygon):.3f}",
            f"{statistics.mean(metrics['accuracy'][n]):.3f}", _per_seed(area), f"{statistics.mean(area):.3f}",
            f"{statistics.mean(metrics['invalid'][n]):.3f}",
        ])
    header = ["points", "polygon accuracy per seed", "mean", "exact sequence, mean", "area coverage per seed",
              "mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrrrr")


def hull_near_paper_sentence(
    metrics: Mapping[str, Mapping[int, Sequence[float]]],
    updates: int,
    beam_width: int,
    longest: int = 20,
    trained_max: int = 10,
) -> str:
    """The hulls near the paper's setting in words: polygon accuracy and area coverage on each point count
    of :data:`~ponderlib.experiments.pointer.HULL_GOAL` and on ``longest`` points, over the seeds
    (``metrics`` as in :func:`hull_polygon_table`), after ``updates`` training updates, decoded with
    ``beam_width`` beams, trained on at most ``trained_max`` points."""
    _check_hull_metrics(metrics, ("polygon_accuracy",))
    polygon, area = metrics["polygon_accuracy"], metrics["area_coverage"]
    seeds = len(polygon[longest])
    on = ", and ".join(f"on {n} points in {spread(polygon[n])} of the sets, with area coverage {spread(area[n])}"
                       for n in HULL_GOAL)
    return (
        f"After {updates:,} training updates, decoded with a beam of {beam_width}, over {number_word(seeds)} seeds, "
        f"the pointer names the true hull's polygon {on}. On {longest} points, {_times(longest, trained_max)} the "
        f"most it trained on, "
        f"polygon accuracy is {spread(polygon[longest])} and area coverage {spread(area[longest])}."
    )


def plateau_sentence(gains: Sequence[float], since: int, updates: int, metric: str = "held-out accuracy") -> str:
    """Whether runs had stopped improving: how much ``metric`` changed (``gains``, one per seed, as
    :func:`ponderlib.experiments.pointer.gain_since` gives them) from update ``since`` to the end,
    ``updates``; "stopped" when no seed gained a percentage point or more."""
    if not 0 < since < updates:
        raise ValueError(f"since must be between 0 and updates = {updates}, exclusive; got {since}")
    if len(gains) == 0:
        raise ValueError("gains must hold one change per seed, got none")
    rising = sum(gain >= 0.01 for gain in gains)
    state = (
        "no seed gained a percentage point: the runs had stopped improving" if rising == 0
        else f"{rising} of the {len(gains)} seeds gained a percentage point or more: still improving"
    )
    changes = ", ".join(f"{gain:+.1%}" for gain in gains)
    return f"From update {since:,} to the last, {updates:,}, {metric} changed by {changes} (per seed); {state}."


def hull_table(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], point_counts: Sequence[int], trained_max: int = 10
) -> str:
    """Hull accuracy per seed and its mean, mean area coverage and mean fraction of invalid outputs, one
    row per point count; counts above ``trained_max`` are marked "longer than trained".

    Args:
        metrics: ``"accuracy"``, ``"area_coverage"``, ``"invalid"`` -> {point count: one fraction per seed}
            (as :func:`ponderlib.experiments.pointer.metric_by_points` gives them).
        point_counts: the rows.
        trained_max: the most points a training set had.
    """
    _check_hull_metrics(metrics)
    rows = []
    for n in point_counts:
        accuracy = metrics["accuracy"][n]
        rows.append(
            [
                _points_label(n, trained_max),
                _per_seed(accuracy),
                f"{statistics.mean(accuracy):.3f}",
                f"{statistics.mean(metrics['area_coverage'][n]):.3f}",
                f"{statistics.mean(metrics['invalid'][n]):.3f}",
            ]
        )
    header = ["points", "accuracy per seed", "accuracy, mean", "area coverage, mean", "invalid outputs, mean"]
    return markdown_table(header, rows, align="lrrrr")


def hull_live_sentence(
    metrics: Mapping[str, Mapping[int, Sequence[float]]], trained_max: int = 10, longest: int = 20
) -> str:
    """This run's exact hulls and area coverage on ``trained_max`` points (the largest trained sets) and on
    ``longest`` (``metrics`` as in :func:`hull_table`)."""
    _check_hull_metrics(metrics)
    accuracy, area = metrics["accuracy"], metrics["area_coverage"]
    return (
        f"In this run, on {trained_max} points, the largest sets it trained on, the pointer outputs the exact hull "
        f"in **{min(accuracy[trained_max]):.1%} to {max(accuracy[trained_max]):.1%}** of sets "
        f"({len(accuracy[trained_max])} seeds) and its polygons cover **{statistics.mean(area[trained_max]):.1%}** "
        f"of the true area on average; on {longest} points, {_times(longest, trained_max)} as many as it saw, "
        f"accuracy falls to {statistics.mean(accuracy[longest]):.1%} while the area covered stays at "
        f"{statistics.mean(area[longest]):.1%}."
    )


def hull_evidence_sentence(metrics: Mapping[str, Mapping[int, Sequence[float]]]) -> str:
    """The evidence's exact hulls and area coverage on 10 and 20 points, and the mean fraction of outputs
    that are not simple polygons on 20 (``metrics`` as in :func:`hull_table`, one value per seed)."""
    _check_hull_metrics(metrics)
    accuracy, area = metrics["accuracy"], metrics["area_coverage"]
    return (
        f"Over the {len(accuracy[10])} seeds of the evidence, on 10 points the pointer outputs the exact hull in "
        f"{spread(accuracy[10])} of sets, and its polygons cover {spread(area[10])} of the true area; on 20 points "
        f"accuracy is {spread(accuracy[20])}, area coverage {spread(area[20])}, and "
        f"{statistics.mean(metrics['invalid'][20]):.1%} of the outputs are not simple polygons on average."
    )


def rising_sentence(rising: int, seeds: int) -> str:
    """In how many of this run's ``seeds`` held-out hull accuracy was still rising (``rising`` of them)."""
    if not 0 <= rising <= seeds:
        raise ValueError(f"rising must be between 0 and seeds = {seeds}, got {rising}")
    return (
        f"In this run, held-out accuracy is still rising over the second half of the budget in {rising} of the "
        f"{seeds} seeds."
    )


def paper_table(
    hulls: Mapping[str, Mapping[int, Sequence[float]]],
    decoders: Mapping[str, Sequence[float]],
    sort_at_20: Sequence[float],
    updates: int,
    rates: Mapping[str, Rate],
    converged: Mapping[str, Sequence[float]] | None = None,
    converged_updates: int | None = None,
    near_paper: Mapping[str, Mapping[int, Sequence[float]]] | None = None,
    near_paper_updates: int | None = None,
) -> str:
    """Vinyals et al.'s claims (Table 1 and sec. 4) against the evidence: the paper's setting and number,
    the evidence's (20 seeds), and the verdict from each claim's rate.

    Args:
        hulls: the hull evidence as in :func:`hull_table`, at 5, 10, 15 and 20 points.
        decoders: ``"seq2seq"``, ``"bahdanau"``, ``"pointer"`` -> exact match per seed after ``updates``
            training updates (the decoder comparison's evidence).
        sort_at_20: exact match on arrays of 20 reals per seed (trained on 5 to 10).
        updates: the decoder comparison's budget in training updates.
        rates: the claims' rates in the evidence, by the short names of :data:`PAPER_RATES`: hull area on
            10 points at least 0.95 (``hull_area_10``), hull accuracy still rising when the budget ends
            (``hull_rising``), hull accuracy falling from 5 to 10 to 20 points (``hull_falls``), hull area
            on 20 points at least 0.90 (``hull_area_20``), the pointer ahead of the better seq2seq decoder
            by 0.2 or more (``pointer_ahead``), attention ahead of plain seq2seq (``attention_helps``),
            sorting at least 90% exact at length 20 (``sort_20``); with ``converged``, also the names of
            :data:`CONVERGED_RATES`: the pointer ahead of the better seq2seq decoder by 0.2 or more at the end
            (``converged_ahead``), the pointer's held-out exact match reaching 95% before every seq2seq
            decoder's (``converged_faster``).
        converged: the decoders at one large budget, ``converged_updates`` training updates: decoder ->
            exact match per seed (every decoder of :data:`ponderlib.mechanisms.pointer.DECODERS`).
        near_paper: the hulls near the paper's setting, ``near_paper_updates`` training updates, as in
            :func:`hull_polygon_table` (at the point counts of
            :data:`~ponderlib.experiments.pointer.HULL_GOAL` and 20); with it, ``rates`` also holds
            :data:`NEAR_PAPER_RATES`: every seed's polygon accuracy and area at least the goal
            (:func:`~ponderlib.experiments.pointer.meets_hull_goal`, ``near_paper_goal``).
    """
    _check_hull_metrics(hulls)
    names = (PAPER_RATES + (CONVERGED_RATES if converged is not None else ())
             + (NEAR_PAPER_RATES if near_paper is not None else ()))
    missing = [name for name in names if name not in rates]
    if missing:
        raise ValueError(f"rates must hold {', '.join(names)}; {', '.join(missing)} missing")
    for given, budget, name in ((converged, converged_updates, "converged"), (near_paper, near_paper_updates, "near_paper")):
        if (given is None) != (budget is None):
            raise ValueError(f"{name} and {name}_updates must be given together")
    accuracy_10, area_10 = hulls["accuracy"][10], hulls["area_coverage"][10]

    def means(name: str) -> str:
        return ", ".join(f"{n}: {statistics.mean(values):.1%}" for n, values in hulls[name].items())

    rows = [
        [
            "Ptr-Net finds exact hulls",
            "trained on 50, tested on 50: 72.6% accuracy, 99.9% area",
            f"the live setting, trained on 5-10, tested on 10: accuracy {spread(accuracy_10)}, area {spread(area_10)}",
            f"area at least 95%: {verdict(rates['hull_area_10'])}; accuracy not: at most {max(accuracy_10):.1%} "
            f"of the hulls are exact, and accuracy is still rising when the budget ends in {rates['hull_rising']}",
        ],
        [
            "accuracy falls with n, area stays high",
            "trained on 5-50; n = 5: 92.0%, 10: 87.0%, 50: 69.6%, 100: 50.3%, 200: 22.1%, 500: 1.3%; area 99.2% (n = 500) to 99.9%",
            f"the live setting, trained on 5-10; mean accuracy n = {means('accuracy')}; mean area n = "
            f"{means('area_coverage')}",
            f"in shape: accuracy falls from 5 to 10 to 20 points, {verdict(rates['hull_falls'])}; area at least "
            f"90% on 20 points, {verdict(rates['hull_area_20'])}",
        ],
        *([_near_paper_row(near_paper, near_paper_updates, rates)] if near_paper is not None else []),
        [
            "LSTM and LSTM+attention fall behind",
            "50 -> 50: LSTM 1.9% (area FAIL), +attention 38.9% (99.7%)",
            f"not run on hulls; on sorting, {updates} updates, exact match: seq2seq {spread(decoders['seq2seq'])}, "
            f"+attention (Bahdanau) {spread(decoders['bahdanau'])}, pointer {spread(decoders['pointer'])}",
            f"on sorting, the pointer ahead of both by 0.2 or more: {verdict(rates['pointer_ahead'])}; attention "
            f"ahead of plain seq2seq: {verdict(rates['attention_helps'])}; not tested on hulls",
        ],
        *([_converged_row(converged, converged_updates, rates)] if converged is not None else []),
        [
            "pointers generalise past the trained length (sec. 4)",
            "sorting and hulls beyond the trained n",
            f"sorting reals, trained 5-10: length 20 at {spread(sort_at_20)} exact; hulls on 20 points at "
            f"{spread(hulls['area_coverage'][20])} area",
            f"sorting at least 90% exact at length 20: {verdict(rates['sort_20'])}; hull area at least 90% on 20 "
            f"points: {verdict(rates['hull_area_20'])}",
        ],
    ]
    header = [
        "claim (Table 1 and sec. 4)",
        "paper: setting, number",
        "the evidence (20 seeds unless said): setting, number",
        "verdict",
    ]
    return markdown_table(header, rows)


def _near_paper_row(
    near_paper: Mapping[str, Mapping[int, Sequence[float]]], updates: int, rates: Mapping[str, Rate]
) -> list[str]:
    """:func:`paper_table`'s row of the hulls near the paper's setting."""
    _check_hull_metrics(near_paper, ("polygon_accuracy",))
    polygon, area = near_paper["polygon_accuracy"], near_paper["area_coverage"]
    goal = " and ".join(f"{accuracy:.0%} on {n} points" for n, accuracy in HULL_GOAL.items())
    on = "; ".join(f"n = {n}: {spread(polygon[n])}, area {spread(area[n])}" for n in (*HULL_GOAL, 20))
    return [
        "... near the paper's setting (256 units, Adam decaying, a beam of 3)",
        "trained on 5-50; n = 5: 92.0%, 10: 87.0% (a public reproduction: 93.8%, 87.9%)",
        f"trained on 5-10, {updates:,} updates, {len(polygon[20])} seeds, polygon accuracy {on}",
        f"at least {goal} with area at least {HULL_GOAL_AREA:.0%}: {verdict(rates['near_paper_goal'])}",
    ]


def _converged_row(converged: Mapping[str, Sequence[float]], updates: int, rates: Mapping[str, Rate]) -> list[str]:
    """:func:`paper_table`'s row of the decoders at one large budget."""
    if set(converged) != set(DECODERS):
        raise ValueError(f"converged must hold every decoder, {', '.join(DECODERS)}; got {', '.join(converged)}")
    seeds = {len(values) for values in converged.values()}
    if len(seeds) != 1:
        raise ValueError("converged must hold as many seeds for every decoder")
    order = ("seq2seq", "bahdanau", "luong", "pointer")  # the paper's order, weakest first
    exact = ", ".join(f"{style.label(decoder)} {spread(converged[decoder])}" for decoder in order)
    return [
        "... at one large budget (not in the paper: one budget a model, on hulls)",
        "50 -> 50 as above; the paper's order: LSTM < +attention < Ptr-Net",
        f"on sorting, {updates:,} updates, {seeds.pop()} seeds, exact match: {exact}",
        f"the pointer ahead of the better seq2seq decoder by 0.2 or more: {verdict(rates['converged_ahead'])}; "
        f"the order stays in how fast each learns: the pointer first at 95% held out, before every seq2seq "
        f"decoder: {verdict(rates['converged_faster'])}",
    ]

