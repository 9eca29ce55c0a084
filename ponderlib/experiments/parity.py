"""Parity runs the chapters on ACT and PonderNet share: models trained once per value of a config field,
scored on one test batch, each sample's ponder steps beside its difficulty, and what a run's summary
says about its halting (:class:`HaltingSummary`, the same for a live run and a record of the evidence).

In memory, for a chapter's few runs; the resumable runner over seeds and settings, whose results
are committed as evidence, is :mod:`ponderlib.sweep`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

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


def run_summary(run: Any) -> Mapping[str, Any]:
    """A run's JSON summary: ``run.summary()`` for a trained result, ``run`` itself when it is already a
    summary (a record of the committed evidence, :meth:`ponderlib.sweep.evidence.Evidence.runs`)."""
    if hasattr(run, "summary"):
        return run.summary()
    if isinstance(run, Mapping):
        return run
    raise ValueError(f"run must be a trained result or its summary (a mapping), got {type(run).__name__}")


@dataclass(frozen=True, eq=False)
class HaltingSummary:
    """What a parity run's summary says about its accuracy and its halting: the same numbers for a run
    trained live and for a record of the evidence, so that a claim about one is a claim about the other.

    Attributes:
        accuracy: accuracy over the difficulties seen in training, each scored on the same number of
            fresh vectors (the summary's ``interpolation_accuracy``); ``error = 1 - accuracy``.
        mean_ponder_steps: mean ponder steps executed at inference on the held-out set, at the last
            evaluation (``N(t)`` for ACT, the sampled halting step for PonderNet).
        halting_probs: the mean halting distribution ``p_n`` over the difficulties seen in training,
            shape ``(max_ponder_steps,)``, step 1 first: the summary's ``halting_distribution``, which
            stops at the last step the unroll ran (that step took the mass left, less than the
            model's ``unroll_tolerance``), zero-padded to ``max_ponder_steps`` as
            :func:`mean_halting_distribution` pads, so that the last entry is the mass on the cap.
    """

    accuracy: float
    mean_ponder_steps: float
    halting_probs: torch.Tensor

    @classmethod
    def of(cls, run: Any) -> HaltingSummary:
        """From a trained :class:`~ponderlib.tasks.parity.ParityResult` or its summary.

        Raises:
            ValueError: the summary has no halting distribution (records written before summaries
                carried one, or a run never scored by difficulty).
        """
        summary = run_summary(run)
        if summary.get("halting_distribution") is None:
            raise ValueError("run's summary must have a halting_distribution (a run scored at every difficulty)")
        probs = torch.tensor(summary["halting_distribution"], dtype=torch.float64)  # (n_run,)
        return cls(
            accuracy=summary["interpolation_accuracy"],
            mean_ponder_steps=summary["mean_ponder_steps"],
            halting_probs=mean_halting_distribution(probs.unsqueeze(0), summary["config"]["max_ponder_steps"]),
        )

    @property
    def error(self) -> float:
        """``1 - accuracy``."""
        return 1.0 - self.accuracy

    @property
    def expected_ponder_steps(self) -> float:
        """``E_p[n] = sum_n n p_n`` of :attr:`halting_probs`."""
        return distribution_mean(self.halting_probs)

    @property
    def mass_on_cap(self) -> float:
        """``p_N``, the halting probability on the last step ``N = max_ponder_steps``."""
        return self.halting_probs[-1].item()

    def mass_on(self, first: int, last: int | None = None) -> float:
        """The halting probability on ponder steps ``first..last`` (1-based, both included; ``last``
        defaults to ``first``: one step)."""
        last = first if last is None else last
        check_int("first", first, minimum=1, maximum=len(self.halting_probs))
        check_int("last", last, minimum=first, maximum=len(self.halting_probs))
        return self.halting_probs[first - 1:last].sum().item()

    def mass_after(self, step: int) -> float:
        """The halting probability on every ponder step after ``step`` (0 after the last)."""
        check_int("step", step, minimum=0, maximum=len(self.halting_probs))
        return self.halting_probs[step:].sum().item()


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


