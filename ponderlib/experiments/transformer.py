"""What chapter 4 computes about the Universal Transformer on assignment chains beyond what a run
measures itself (:attr:`~ponderlib.tasks.chains.ChainsResult.tests`, scored by
:func:`~ponderlib.tasks.chains.score_chains`): ponder steps by required depth over seeds, and which
programs are long enough to show.
"""

from __future__ import annotations

from collections.abc import Sequence

from ponderlib.core.validation import check_int
from ponderlib.tasks.chains import ChainsBatch, ChainsEvaluation


def mean_steps_by_depth(evaluations: Sequence[ChainsEvaluation]) -> dict[int, float]:
    """Required depth (hops) -> mean ponder steps per position, averaged over the evaluations (one per
    seed, each weighing the same), at the depths every evaluation has."""
    if len(evaluations) == 0:
        raise ValueError("evaluations must hold at least one evaluation, got none")
    tables = [evaluation.by_depth() for evaluation in evaluations]
    depths = sorted(set.intersection(*(set(table) for table in tables)))
    return {d: sum(table[d][1] for table in tables) / len(tables) for d in depths}


def long_programs(batch: ChainsBatch, min_length: int, count: int) -> list[int]:
    """Indices of the first ``count`` programs of ``batch`` with at least ``min_length`` assignments
    (fewer when the batch has fewer)."""
    check_int("min_length", min_length, minimum=1)
    check_int("count", count, minimum=1)
    return (batch.lengths >= min_length).nonzero().squeeze(1)[:count].tolist()
