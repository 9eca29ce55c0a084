"""What chapter 4 computes about the Universal Transformer on assignment chains: every run scored on its
own seed's test programs (longer or deeper ones too), ponder steps by required depth over seeds, and
which programs are long enough to show. (One config per halting method on equal terms is
:class:`~ponderlib.tasks.chains.ChainsConfig` with ``fixed_depth``.)

Test programs come from the ``"test"`` stream of each run's seed (:func:`~ponderlib.tasks.chains.evaluation_batch`)
and PonderNet's sampled halting from its ``"sampling"`` stream, so the three methods of one seed see the
same programs and a chapter never names a seed of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ponderlib.core.validation import check_int
from ponderlib.tasks.chains import ChainsBatch, ChainsEvaluation, ChainsResult, score_chains


def evaluate_runs(
    results: Sequence[ChainsResult],
    batch_size: int,
    max_len: int | None = None,
    max_depth: int | None = None,
    device: torch.device | str | None = None,
) -> list[ChainsEvaluation]:
    """Every run on ``batch_size`` programs from its own seed's test stream
    (:func:`~ponderlib.tasks.chains.score_chains`), of up to ``max_len`` assignments and chains of up
    to ``max_depth`` hops (default: as trained). Runs of one seed and setting see the same programs."""
    return [
        score_chains(result.model, result.config, batch_size, max_len, max_depth, result.device if device is None else device)
        for result in results
    ]


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
