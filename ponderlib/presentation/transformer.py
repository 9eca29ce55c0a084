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

from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.experiments.transformer import mean_steps_by_depth
from ponderlib.figures import style
from ponderlib.presentation.tables import markdown_table, number_word, verdict
from ponderlib.sweep.evidence import Evidence, Rate
from ponderlib.tasks.chains import ChainsEvaluation

Runs = Mapping[str, Sequence[Any]]
"""Method -> its runs (each with ``config`` and ``tests``), one per seed."""


def _range(values: Sequence[float], digits: int) -> str:
    return f"{min(values):.{digits}f} to {max(values):.{digits}f}"


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


def live_table(runs: Runs) -> str:
    """Per seed: the held-out accuracy of ACT, the fixed depth and PonderNet, the mean ponder steps of the
    two halting methods and the correlation of their ponder steps with the required depth."""
    act, fixed, pondernet = (scores(runs)[method] for method in ("act", "fixed", "pondernet"))
    header = [
        "seed",
        "accuracy ACT",
        f"accuracy fixed depth {runs['fixed'][0].config.fixed_depth}",
        "accuracy PonderNet",
        "ponder steps ACT",
        "ponder steps PonderNet",
        "r(depth, N) ACT",
        "r(depth, N) PonderNet",
    ]
    rows = [
        [
            run.config.seed,
            f"{a.accuracy:.3f}",
            f"{f.accuracy:.3f}",
            f"{p.accuracy:.3f}",
            f"{a.mean_ponder_steps:.2f}",
            f"{p.mean_ponder_steps:.2f}",
            f"{a.depth_correlation:.2f}",
            f"{p.depth_correlation:.2f}",
        ]
        for run, a, f, p in zip(runs["act"], act, fixed, pondernet)
    ]
    return markdown_table(header, rows, align="r" * len(header))


def live_paragraph(runs: Runs) -> str:
    """The live runs in a paragraph: accuracies over the seeds, and how closely ACT's and PonderNet's
    ponder steps follow the required depth."""
    act, fixed, pondernet = (scores(runs)[method] for method in ("act", "fixed", "pondernet"))
    correlations = [e.depth_correlation for e in act]
    return (
        f"In this run, ACT reaches {_range([e.accuracy for e in act], 3)} accuracy over the "
        f"{number_word(len(act))} seeds, the fixed depth {_range([e.accuracy for e in fixed], 3)}, and ACT's ponder steps "
        f"follow the required depth with Pearson **r = {_range(correlations, 2)}** (mean {_mean(correlations):.2f}). "
        f"PonderNet's sampled halting steps give r = {_range([e.depth_correlation for e in pondernet], 2)}: "
        "sampling adds noise to every single halting step, even when the distribution behind it moves with the depth."
    )


def evidence_paragraph(evidence: Evidence, direction: Rate, strong: Rate) -> str:
    """What the evidence says about the live setting: every model's accuracy, and in how many seeds
    ACT's ponder steps grow with the depth (``direction``: r > 0) and strongly (``strong``: r >= 0.5),
    by how much; then :meth:`~ponderlib.sweep.evidence.Evidence.describe`."""
    act_r = evidence.values("test_depth_correlation", method="act")
    accuracy = {method: evidence.values("test_accuracy", method=method) for method in ("act", "fixed", "pondernet")}
    deepest = str(_config(evidence)["max_depth"])
    rise = [
        run["ponder_steps_by_depth"][deepest] - run["ponder_steps_by_depth"]["0"] for run in evidence.runs(method="act")
    ]
    return (
        f"Over the {len(act_r)} seeds of the evidence, every model learns the task (accuracy at least "
        f"{min(min(values) for values in accuracy.values()):.3f}; means: ACT {_mean(accuracy['act']):.3f}, fixed depth "
        f"{_mean(accuracy['fixed']):.3f}, PonderNet {_mean(accuracy['pondernet']):.3f}), and ACT's ponder steps "
        f"grow with the required depth in {direction}, **but by very different amounts**: $r$ from {_range(act_r, 2)}, "
        f"at least 0.5 in {strong}; the rise from roots to {deepest} hops goes from {_range(rise, 2)} steps. "
        f"At {evidence.preset.max_updates} training updates some seeds have learnt to spend "
        "their steps where the chains are long, others still spend about the same everywhere. That is why this chapter "
        "asserts only the direction of the effect on its live runs, not its size.\n\n" + evidence.describe()
    )


def steps_by_depth_sentence(evaluations: Sequence[ChainsEvaluation], method: str = "act") -> str:
    """``"Mean ACT ponder steps per required depth 0 to 4: 2.53, 2.90, 3.53, 4.15, 4.55."``, averaged
    over the seeds' evaluations (:func:`~ponderlib.experiments.transformer.mean_steps_by_depth`)."""
    table = mean_steps_by_depth(evaluations)
    return (
        f"Mean {style.label(method)} ponder steps per required depth {min(table)} to {max(table)}: "
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


def shift_paragraph(runs: Runs) -> str:
    """The runs on longer programs and deeper chains in a paragraph: what each method loses, how close to
    chance every model is beyond the trained depth, and how many steps ACT spends there."""
    config = _first(runs).config
    unseen = config.max_depth + 1
    drop = {
        method: [run.tests["trained"].accuracy - run.tests["longer"].accuracy for run in method_runs]
        for method, method_runs in runs.items()
    }
    deep_steps = [run.tests["deeper"].at_depths(unseen)[1] for run in runs["act"]]
    one_hop_steps = [run.tests["trained"].by_depth()[1][1] for run in runs["act"]]
    best = max(run.tests["deeper"].at_depths(unseen)[0] for method_runs in runs.values() for run in method_runs)
    return (
        f"In this run, on programs twice as long, ACT loses {_range(drop['act'], 3)} accuracy, the fixed depth "
        f"{_range(drop['fixed'], 3)}, PonderNet {_range(drop['pondernet'], 3)}. On chains "
        f"{unseen} to {config.test_max_depth} hops deep, deeper than any seen in training, **no model does much "
        f"better than chance** (accuracy at most {best:.2f}). ACT spends "
        f"{', '.join(f'{s:.1f}' for s in deep_steps)} ponder steps there per seed, against "
        f"{', '.join(f'{s:.1f}' for s in one_hop_steps)} on one-hop positions, and the extra steps do not turn "
        "into right answers: the block has only learnt what to do for chains it was trained on."
    )


def paper_table(
    evidence: Evidence, *, direction: Rate, strong: Rate, as_accurate: Rate, longer_cost: Rate, near_chance: Rate
) -> str:
    """Dehghani et al.'s claims against the evidence of the live setting: the paper's setting, the
    numbers over the evidence's seeds, and the verdict (:func:`verdict`).

    The rates are the evidence's counts of the chapter's claims: ACT's ponder steps grow with the depth
    (``direction``) and strongly (``strong``), ACT is at least as accurate as the fixed depth
    (``as_accurate``), longer programs cost every method accuracy (``longer_cost``), and every method is
    near chance beyond the trained depth (``near_chance``).
    """

    def values(name: str, method: str) -> str:
        return spread(evidence.values(name, method=method))

    act_longer_better = evidence.rate_by_seed(
        lambda seed: seed["act"]["longer_accuracy"] >= seed["fixed"]["longer_accuracy"]
    )
    seeds = len(evidence.values("test_accuracy", method="act"))
    config = _config(evidence)
    unseen = f"{config['max_depth'] + 1}-{config['test_max_depth']}"
    rows = [
        [
            "ACT's ponder time differs between positions and is larger where more reasoning is needed "
            "(sec. 3.1, bAbI ponder-time figures)",
            "bAbI, 1k/10k examples, up to 24 steps",
            f"r(depth, N) = {values('test_depth_correlation', 'act')}; r >= 0.5 in {strong}",
            f"in direction: {verdict(direction)}; strongly: {verdict(strong)}",
        ],
        [
            "UT with ACT is at least as accurate as the fixed-depth model (sec. 3.1, table 1)",
            "bAbI error, UT vs UT + ACT",
            f"accuracy ACT {values('test_accuracy', 'act')}, fixed {values('test_accuracy', 'fixed')}",
            verdict(as_accurate),
        ],
        [
            "UT generalises to longer inputs than trained (sec. 3.4, algorithmic tasks: train on length 40, "
            "test on 400)",
            "copy, reverse, addition",
            f"len <= {config['test_max_len']}: ACT {values('longer_accuracy', 'act')}, fixed {values('longer_accuracy', 'fixed')}",
            f"ACT at least as accurate as the fixed depth: {verdict(act_longer_better)}; every model loses "
            f"accuracy ({longer_cost})",
        ],
        [
            "more steps for harder inputs extends past training (not claimed; our question)",
            "",
            f"depth {unseen}: ACT {values('unseen_depth_accuracy', 'act')} accurate with "
            f"{values('unseen_depth_ponder_steps', 'act')} steps; fixed {values('unseen_depth_accuracy', 'fixed')}",
            f"no: every model is near chance ({near_chance})",
        ],
        [
            "weight sharing in depth beats a vanilla Transformer with distinct layers (secs. 3.2-3.5)",
            "LAMBADA, WMT14, bAbI",
            "not tested: our baseline shares its weights too",
            "not tested",
        ],
        [
            "LAMBADA, machine translation, Turing completeness (secs. 3.3, 3.5, 4)",
            "large models, days on GPUs",
            "not tested at this scale",
            "not tested",
        ],
    ]
    header = ["claim (Dehghani et al. 2019)", "paper's setting", f"the evidence, {seeds} seeds", "verdict"]
    return markdown_table(header, rows)
