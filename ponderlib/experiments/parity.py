"""Parity runs the chapters on ACT and PonderNet share: models trained once per value of a config field,
scored on one test batch, and each sample's ponder steps beside its difficulty.

In memory, for a chapter's few runs; the resumable runner over seeds and settings, whose results
are committed as evidence, is :mod:`ponderlib.sweep`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch

from ponderlib.core.stats import pearson_correlation
from ponderlib.core.validation import check_int
from ponderlib.mechanisms.halting import expected_ponder_steps
from ponderlib.tasks.parity import ParityConfig, ParityEvaluation, ParityResult, evaluate_parity, train_parity
from ponderlib.tasks.parity_data import ParityBatch, parity_batch


def mean_of(items: Sequence[object], attribute: str) -> float:
    """The mean of one attribute over results (one per seed): ``mean_of(summaries, "accuracy")``."""
    if len(items) == 0:
        raise ValueError("items must hold at least one result, got an empty sequence")
    return sum(getattr(item, attribute) for item in items) / len(items)


def distribution_mean(halting_probs: torch.Tensor) -> float:
    """``E[n] = sum_n n p_n`` of one halting distribution (or prior) ``p`` of shape ``(N,)``."""
    return expected_ponder_steps(halting_probs.unsqueeze(0)).item()


@dataclass
class PonderByDifficulty:
    """A model's ponder steps on each sample of a held-out batch, next to the sample's difficulty.

    Attributes:
        difficulty: number of non-zero entries per sample, shape ``(B,)``, int64, CPU.
        ponder_steps: ponder steps per sample (``N(t)`` for ACT), shape ``(B,)``, int64, CPU.
        correct: whether the parity was right, shape ``(B,)``, bool, CPU.
        correlation: Pearson's ``r`` between ``difficulty`` and ``ponder_steps`` (NaN if constant).
    """

    difficulty: torch.Tensor
    ponder_steps: torch.Tensor
    correct: torch.Tensor
    correlation: float

    def mean_ponder_steps_per_difficulty(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The difficulties present ``(D,)`` and the mean ponder steps at each ``(D,)``."""
        levels = self.difficulty.unique()  # sorted
        means = torch.stack([self.ponder_steps[self.difficulty == level].float().mean() for level in levels])
        return levels, means


def pair_with_difficulty(evaluation: ParityEvaluation, batch: ParityBatch) -> PonderByDifficulty:
    """Pair each sample's ponder steps in ``evaluation`` with its difficulty in ``batch``."""
    difficulty, ponder_steps = batch.difficulty.cpu(), evaluation.ponder_steps.cpu()
    return PonderByDifficulty(
        difficulty=difficulty,
        ponder_steps=ponder_steps,
        correct=evaluation.correct.cpu(),
        correlation=pearson_correlation(difficulty.float(), ponder_steps.float()),
    )


@dataclass
class ValueRun:
    """One run of :func:`train_each_value`, scored on its test batch.

    Attributes:
        value: the value of the varied config field in this run.
        result: the trained model, its config and its training history.
        accuracy: accuracy on the held-out batch, halting as the model halts at inference;
            ``error = 1 - accuracy``.
        mean_ponder_steps: mean ponder steps executed at inference (``N(t)`` for ACT, the sampled
            halting step for PonderNet).
        halting_probs: mean ``p_n`` over the held-out batch, shape ``(max_ponder_steps,)``, zero
            after the last ponder step the unroll ran.
        ponder: per-sample ponder steps against difficulty on the same batch.
    """

    value: float
    result: ParityResult
    accuracy: float
    mean_ponder_steps: float
    halting_probs: torch.Tensor
    ponder: PonderByDifficulty

    @property
    def error(self) -> float:
        """``1 - accuracy``."""
        return 1.0 - self.accuracy

    @property
    def expected_ponder_steps(self) -> float:
        """``E_p[n] = sum_n n p_n`` of the mean halting distribution :attr:`halting_probs`."""
        return distribution_mean(self.halting_probs)

    @property
    def mass_on_cap(self) -> float:
        """The mean halting probability on the last step, ``p_N`` at ``N = max_ponder_steps``."""
        return self.halting_probs[-1].item()


def mean_halting_distribution(halting_probs: torch.Tensor, max_ponder_steps: int) -> torch.Tensor:
    """Mean of ``p_n`` over a batch ``(B, n_run)``, zero-padded to shape ``(max_ponder_steps,)``, on the CPU."""
    check_int("max_ponder_steps", max_ponder_steps, minimum=halting_probs.shape[1])
    mean = halting_probs.mean(dim=0).detach().cpu()  # (n_run,)
    return torch.cat([mean, mean.new_zeros(max_ponder_steps - mean.shape[0])])


def test_batch(
    config: ParityConfig, size: int, min_nonzero: int | None = None, max_nonzero: int | None = None
) -> ParityBatch:
    """A parity batch of ``size`` for ``config``'s vector length and device, drawn from the ``"test"``
    stream of ``config.seed`` (:func:`~ponderlib.core.seeds.stream_generator`).

    The difficulty range defaults to ``config``'s (``min_nonzero``/``max_nonzero`` override it).
    """
    generator = config.generator("test", config.device)
    return parity_batch(
        size,
        config.n_elems,
        config.min_nonzero if min_nonzero is None else min_nonzero,
        config.max_nonzero if max_nonzero is None else max_nonzero,
        generator=generator,
    )


def train_each_value(base: ParityConfig, name: str, values: Sequence[float], eval_size: int = 2048) -> list[ValueRun]:
    """Train one model per value of the ``ParityConfig`` field ``name``; everything else as ``base``.

    Every run sees the same training data (``base.seed``) and the same budget, and is evaluated on
    the same test batch of ``eval_size`` samples (:func:`test_batch` of ``base``), halting as
    ``base`` says, with the same sampling stream. (In memory, for a chapter's few runs; a resumable
    sweep over seeds and settings is :func:`ponderlib.sweep.sweep`.)

    Raises:
        ValueError: ``name`` is not a field of ``ParityConfig``, or ``values`` is empty.
    """
    if name not in ParityConfig.__dataclass_fields__:
        raise ValueError(f"name must be a field of ParityConfig, got {name!r}")
    if len(values) == 0:
        raise ValueError("values must hold at least one value, got an empty sequence")
    runs = []
    for value in values:
        result = train_parity(replace(base, **{name: value}))
        batch = test_batch(result.config, eval_size)
        evaluation = evaluate_parity(
            result.model, batch, halting_rule=base.halting_rule, generator=result.config.generator("sampling", result.device)
        )
        runs.append(
            ValueRun(
                value=value,
                result=result,
                accuracy=evaluation.accuracy,
                mean_ponder_steps=evaluation.ponder_steps.float().mean().item(),
                halting_probs=mean_halting_distribution(evaluation.halting_probs, base.max_ponder_steps),
                ponder=pair_with_difficulty(evaluation, batch),
            )
        )
    return runs


