"""What chapter 4 computes about the Universal Transformer on assignment chains: one config per halting
method on equal terms, every run scored on its own seed's test programs (longer or deeper ones too),
ponder steps by required depth over seeds, and which programs are long enough to show.

Test programs come from the ``"test"`` stream of each run's seed (:func:`~ponderlib.tasks.chains.evaluation_batch`)
and PonderNet's sampled halting from its ``"sampling"`` stream, so the three methods of one seed see the
same programs and a chapter never names a seed of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ponderlib.core.validation import check_choice, check_int
from ponderlib.mechanisms.universal_transformer import METHODS
from ponderlib.tasks.chains import (
    ChainsBatch,
    ChainsConfig,
    ChainsEvaluation,
    ChainsResult,
    evaluate_chains,
    evaluation_batch,
)


def chains_config(method: str, seed: int, fixed_depth: int, **setting) -> ChainsConfig:
    """The config of one run of chapter 4's comparison: ``ChainsConfig(**setting)`` with ``method`` and
    ``seed``. The fixed depth applies the block ``fixed_depth`` times; ACT and PonderNet keep
    ``setting``'s cap ``max_ponder_steps`` (ponder steps per position)."""
    check_choice("method", method, METHODS)
    check_int("fixed_depth", fixed_depth, minimum=1)
    if method == "fixed":
        setting = {**setting, "max_ponder_steps": fixed_depth}
    return ChainsConfig(**{**setting, "method": method, "seed": seed})


@torch.no_grad()
def evaluate_run(
    result: ChainsResult, batch: ChainsBatch, device: torch.device | str | None = None
) -> ChainsEvaluation:
    """``result``'s model on ``batch``: PonderNet halts by its config's ``halting_rule``, sampling from
    the ``"sampling"`` stream of the run's seed (a fresh generator each call, so a call is repeatable);
    ``device`` defaults to the run's."""
    device = result.device if device is None else device
    return evaluate_chains(result.model, batch, result.config.halting_rule, result.config.generator("sampling", device))


def evaluate_runs(
    results: Sequence[ChainsResult],
    batch_size: int,
    max_len: int | None = None,
    max_depth: int | None = None,
    device: torch.device | str | None = None,
) -> list[ChainsEvaluation]:
    """Every run on ``batch_size`` programs from its own seed's test stream
    (:func:`~ponderlib.tasks.chains.evaluation_batch`), of up to ``max_len`` assignments and chains of up
    to ``max_depth`` hops (default: as trained). Runs of one seed and setting see the same programs."""
    evaluations = []
    for result in results:
        run_device = result.device if device is None else device
        batch = evaluation_batch(result.config, batch_size, max_len, max_depth, run_device)
        evaluations.append(evaluate_run(result, batch, run_device))
    return evaluations


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
