"""What chapter 4 computes about the Universal Transformer on assignment chains beyond what a run
measures itself (:attr:`~ponderlib.tasks.chains.ChainsResult.tests`, scored by
:func:`~ponderlib.tasks.chains.score_chains`): ponder steps by required depth over seeds, their
distribution pooled over the evidence's runs, and which programs are long enough to show.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ponderlib.core.records import summary_value
from ponderlib.core.stats import mean
from ponderlib.core.validation import check_int
from ponderlib.tasks.chains import ChainsEvaluation
from ponderlib.tasks.chains_data import ChainsBatch

LEARNT_ACCURACY = 0.95
"""The held-out accuracy from which a run counts as having learnt the chains: the runs that follow them
reach 0.99 or more, those whose ponder steps collapsed to about one per position 0.92 at most."""


def mean_steps_by_depth(evaluations: Sequence[ChainsEvaluation]) -> dict[int, float]:
    """Required depth (hops) -> mean ponder steps per position, averaged over the evaluations (one per
    seed, each weighing the same), at the depths every evaluation has."""
    if len(evaluations) == 0:
        raise ValueError("evaluations must hold at least one evaluation, got none")
    tables = [evaluation.by_depth() for evaluation in evaluations]
    depths = sorted(set.intersection(*(set(table) for table in tables)))
    return {d: mean([table[d][1] for table in tables]) for d in depths}


def long_programs(batch: ChainsBatch, min_length: int, count: int) -> list[int]:
    """Indices of the first ``count`` programs of ``batch`` with at least ``min_length`` assignments
    (fewer when the batch has fewer)."""
    check_int("min_length", min_length, minimum=1)
    check_int("count", count, minimum=1)
    return (batch.lengths >= min_length).nonzero().squeeze(1)[:count].tolist()


@dataclass(frozen=True)
class StepsDistribution:
    """The ponder steps of every position of one required depth, pooled over runs.

    Attributes:
        counts: how many positions ran 1, 2, ..., ``M`` ponder steps.
    """

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        counts = self.counts
        if not isinstance(counts, tuple) or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
            raise ValueError(f"counts must be a tuple of integers >= 0 (positions per step count), got {counts!r}")
        if sum(counts) == 0:  # shares, mean and sd would divide by zero
            raise ValueError(f"counts must count at least one position, got {counts!r}")

    @property
    def positions(self) -> int:
        """How many positions the distribution counts."""
        return sum(self.counts)

    @property
    def shares(self) -> tuple[float, ...]:
        """The fraction of positions that ran 1, 2, ..., ``M`` steps."""
        return tuple(count / self.positions for count in self.counts)

    @property
    def mean(self) -> float:
        """Mean ponder steps."""
        return sum(step * share for step, share in enumerate(self.shares, start=1))

    @property
    def sd(self) -> float:
        """Standard deviation of the ponder steps over positions (the paper's "2.3 ± 0.8")."""
        mean = self.mean
        return math.sqrt(sum((step - mean) ** 2 * share for step, share in enumerate(self.shares, start=1)))


def pooled_steps(summaries: Sequence[Mapping]) -> dict[int, StepsDistribution]:
    """Required depth -> :class:`StepsDistribution` of every position of that depth in every run
    (``summaries``: run summaries with ``ponder_steps_histogram_by_depth``, e.g. one method's evidence),
    as Dehghani et al. report ponder time for bAbI: over all positions in all samples of the test data."""
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run summary, got none")
    pooled: dict[int, list[int]] = {}
    for index, summary in enumerate(summaries):
        histogram = summary_value(summary, "ponder_steps_histogram_by_depth", f"summaries[{index}]")
        for depth, counts in histogram.items():
            total = pooled.setdefault(int(depth), [])
            total.extend([0] * (len(counts) - len(total)))
            for step, count in enumerate(counts):
                total[step] += count
    return {depth: StepsDistribution(tuple(pooled[depth])) for depth in sorted(pooled)}


def accuracy_against_compute(summaries: Sequence[Mapping], deepest: int) -> list[tuple[float, float, float]]:
    """One row per run summary: (mean ponder steps per position, accuracy at ``deepest`` hops, accuracy on
    the longer programs with deeper chains), what
    :func:`~ponderlib.figures.transformer.plot_compute_accuracy` draws."""
    return [(s["test_ponder_steps"], accuracy_at_depth(s, deepest, f"summaries[{i}]"), s["deeper_accuracy"])
            for i, s in enumerate(summaries)]


def accuracy_at_depth(summary: Mapping, deepest: int, where: str) -> float:
    """``summary["accuracy_by_depth"]`` at ``deepest`` hops: ``ValueError`` naming ``deepest`` and ``where`` (the
    summary) unless it is an integer >= 0 at which the summary scored its accuracy (a KeyError before)."""
    check_int("deepest", deepest, minimum=0)
    by_depth = summary["accuracy_by_depth"]
    if str(deepest) not in by_depth:
        raise ValueError(f"deepest must be a depth {where} scored ({', '.join(by_depth)}), got {deepest}")
    return by_depth[str(deepest)]
