"""Scoring a parity model (ACT or PonderNet) as it runs at inference: on a batch, at every difficulty, and
step by step.

- :func:`predict_parity` and :func:`evaluate_parity`: logits, ponder steps and accuracy on a batch;
- :func:`evaluate_by_difficulty`: the same at every number of non-zero entries, with ``E[n]`` and the
  halting distribution (:class:`DifficultyEvaluation`);
- :func:`step_profile`: a PonderNet's loss and accuracy at every ponder step, and the halting
  distribution that would minimise its loss (:class:`StepProfile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.seeds import SEED_MAX, stream_generator
from ponderlib.core.stats import pearson_correlation
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_ELEMENTS,
    MAX_LENGTH,
    check_choice,
    check_counts,
    check_int,
    check_product,
    ensure_generator,
    ensure_tensor,
    ensure_type,
)
from ponderlib.mechanisms.act import ACT, ACTOutput
from ponderlib.mechanisms.halting import expected_ponder_steps
from ponderlib.mechanisms.losses import (
    binary_step_losses,
    binary_step_losses_unchecked,
    kl_optimal_halting,
    kl_optimal_halting_unchecked,
)
from ponderlib.mechanisms.pondernet import HALTING_RULES, PonderNet
from ponderlib.tasks.parity_data import LABELS, ParityBatch, draw_vectors


def act_logits(result: ACTOutput) -> torch.Tensor:
    """The parity logit of an ACT pass: the mean-field output, shape ``(B,)``."""
    return result.output.squeeze(1)


@dataclass
class ParityEvaluation:
    """A model's predictions on a parity batch.

    Attributes:
        accuracy: fraction of correct parities.
        ponder_steps: ponder steps per sample ``(B,)``: ``N(t)`` for ACT, the sampled (or median)
            halting step actually executed for PonderNet.
        expected_ponder_steps: ``E[n] = sum_n n p_n`` per sample ``(B,)``.
        correct: per-sample correctness ``(B,)``, bool.
        halting_probs: ``p_n`` of the training-mode pass, ``(B, n_run)``.
    """

    accuracy: float
    ponder_steps: torch.Tensor
    expected_ponder_steps: torch.Tensor
    correct: torch.Tensor
    halting_probs: torch.Tensor


def check_parity_batch(batch: ParityBatch) -> None:
    """Raise unless ``batch`` is a :class:`ParityBatch` whose ``targets`` are a tensor of 0s and 1s, one per
    row of its ``inputs`` (``TypeError`` for the wrong kind, ``ValueError`` for the shape or a value): a
    target of 2 or NaN would count as wrong silently, and one of shape ``(B, 1)`` would broadcast to
    ``(B, B)``. One reduction; where a batch is scored, never per training update."""
    ensure_type("batch", batch, ParityBatch)
    ensure_tensor("batch.inputs", batch.inputs, " of shape (B, n_elems)")
    ensure_tensor("batch.targets", batch.targets, " of shape (B,)")
    if batch.inputs.dim() < 1 or batch.targets.shape != batch.inputs.shape[:1]:
        raise ValueError(
            f"batch.targets must have shape (B,), one per row of batch.inputs {tuple(batch.inputs.shape)}; "
            f"got {tuple(batch.targets.shape)}"
        )
    if bool(((batch.targets != 0) & (batch.targets != 1)).any()):
        raise ValueError("batch.targets must hold parities, 0s and 1s (no NaN)")


@torch.no_grad()
def predict_parity(
    model: ACT | PonderNet,
    inputs: torch.Tensor,
    halting_rule: str = "sample",
    generator: torch.Generator | None = None,
    max_ponder_steps: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Parity logits ``(B,)`` and ponder steps ``(B,)`` of either method, as it runs at inference.

    ACT predicts with its mean-field output after ``N(t)`` ponder steps. PonderNet predicts with
    ``y_n`` at the step where it halts (``halting_rule``: ``"sample"`` or ``"median"``, see
    :meth:`PonderNet.infer`), computing nothing for samples that have halted. ``max_ponder_steps``: the
    cap at inference (None: the model's). ``TypeError`` for another kind of model, or ``inputs`` that
    are not a tensor.
    """
    _check_prediction(model, halting_rule, generator)
    return predict_parity_unchecked(model, inputs, halting_rule, generator, max_ponder_steps)


def _check_prediction(model: object, halting_rule: object, generator: object) -> None:
    ensure_type("model", model, (ACT, PonderNet))
    check_choice("halting_rule", halting_rule, HALTING_RULES)  # ACT has none, but a wrong one is still wrong
    ensure_generator("generator", generator)


@torch.no_grad()
def predict_parity_unchecked(
    model: ACT | PonderNet,
    inputs: torch.Tensor,
    halting_rule: str,
    generator: torch.Generator | None,
    max_ponder_steps: int | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`predict_parity` without its checks, for a run's own model and config (its held-out scores)."""
    if isinstance(model, ACT):
        result = model(inputs, max_ponder_steps=max_ponder_steps)
        return act_logits(result), result.ponder_steps
    inference = model.infer(inputs, halting_rule=halting_rule, generator=generator, max_ponder_steps=max_ponder_steps)
    return inference.output, inference.ponder_steps


@torch.no_grad()
def evaluate_parity(
    model: ACT | PonderNet,
    batch: ParityBatch,
    halting_rule: str = "sample",
    generator: torch.Generator | None = None,
    max_ponder_steps: int | None = None,
) -> ParityEvaluation:
    """Accuracy, ponder steps and halting distribution of a parity model on ``batch`` (a :class:`ParityBatch`),
    at most ``max_ponder_steps`` at inference (None: the model's cap; the halting distribution is the
    training-mode pass's, under the model's cap)."""
    check_parity_batch(batch)
    _check_prediction(model, halting_rule, generator)
    return _evaluate_parity(model, batch, halting_rule, generator, max_ponder_steps)


@torch.no_grad()
def _evaluate_parity(
    model: ACT | PonderNet,
    batch: ParityBatch,
    halting_rule: str,
    generator: torch.Generator | None,
    max_ponder_steps: int | None,
) -> ParityEvaluation:
    logits, ponder_steps = predict_parity_unchecked(model, batch.inputs, halting_rule, generator, max_ponder_steps)
    correct = (logits > 0) == batch.targets.bool()
    probs = model(batch.inputs).halting_probs
    return ParityEvaluation(
        accuracy=correct.float().mean().item(),
        ponder_steps=ponder_steps,
        expected_ponder_steps=expected_ponder_steps(probs),
        correct=correct,
        halting_probs=probs,
    )


@dataclass
class DifficultyEvaluation:
    """A parity model evaluated separately at each difficulty (number of non-zero entries).

    Attributes:
        difficulty: the difficulties, shape ``(D,)``, int64.
        accuracy: accuracy at each difficulty, shape ``(D,)``.
        ponder_steps: mean ponder steps executed at inference at each difficulty, shape ``(D,)``.
        expected_ponder_steps: mean ``E[n] = sum_n n p_n`` (for ACT, over its training-mode
            ``p_n``), shape ``(D,)``.
        sample_difficulty, sample_ponder_steps: every sample's difficulty and ponder steps, shape
            ``(D * samples_per_difficulty,)``, for correlations.
        halting_distribution: the mean halting distribution ``p_n`` at each difficulty (the
            training-mode pass; zero after the last step the unroll ran), shape ``(D, N)``.
    """

    difficulty: torch.Tensor
    accuracy: torch.Tensor
    ponder_steps: torch.Tensor
    expected_ponder_steps: torch.Tensor
    sample_difficulty: torch.Tensor
    sample_ponder_steps: torch.Tensor
    halting_distribution: torch.Tensor

    def accuracy_on(self, difficulties: Sequence[int]) -> float:
        """Accuracy averaged over the given difficulties (equal samples per difficulty)."""
        return self.accuracy[self._select(difficulties)].mean().item()

    def halting_distribution_on(self, difficulties: Sequence[int]) -> torch.Tensor:
        """The mean halting distribution ``p_n`` over the given difficulties (equal samples per
        difficulty), shape ``(N,)``."""
        return self.halting_distribution[self._select(difficulties)].mean(dim=0)

    def correlation_on(self, difficulties: Sequence[int]) -> float:
        """Pearson's ``r`` between difficulty and ponder steps, per sample, over the given
        difficulties (NaN if the ponder steps are constant there); ``ValueError`` naming ``difficulties``
        where they hold fewer than two samples."""
        mask = torch.isin(self.sample_difficulty, self.difficulty[self._select(difficulties)])
        if int(mask.sum()) < 2:
            raise ValueError(
                f"difficulties {list(difficulties)} hold {int(mask.sum())} sample: a correlation needs at least two"
            )
        return pearson_correlation(self.sample_difficulty[mask].float(), self.sample_ponder_steps[mask].float())

    def _select(self, difficulties: Sequence[int]) -> torch.Tensor:
        mask = torch.isin(self.difficulty, torch.as_tensor(list(difficulties), dtype=self.difficulty.dtype))
        if not bool(mask.any()):
            raise ValueError(f"difficulties must include some of {self.difficulty.tolist()}, got {list(difficulties)}")
        return mask


def _check_difficulties(difficulties: object, n_elems: int) -> list[int]:
    """``difficulties`` as a list: ``TypeError`` unless it is a sequence (a list, a tuple, a range), ``ValueError``
    unless it holds 1 to ``n_elems`` distinct integers in ``[1, n_elems]`` (each is scored once)."""
    if not isinstance(difficulties, Sequence) or isinstance(difficulties, str):
        raise TypeError(f"difficulties must be a sequence of integers (a list or a range), got {type(difficulties).__name__}")
    if not 1 <= len(difficulties) <= n_elems:
        raise ValueError(f"difficulties must hold 1 to n_elems = {n_elems} difficulties, got {len(difficulties):,}")
    for difficulty in difficulties:
        check_int("each difficulty in difficulties", difficulty, minimum=1, maximum=n_elems)
    if len(set(difficulties)) != len(difficulties):
        raise ValueError(f"difficulties must not repeat a difficulty, got {list(difficulties)}")
    return list(difficulties)


def evaluate_by_difficulty(
    model: ACT | PonderNet,
    n_elems: int,
    difficulties: Sequence[int] | None = None,
    samples_per_difficulty: int = 1024,
    halting_rule: str = "sample",
    *,
    seed: int,
    label: str = "ones",
    max_ponder_steps: int | None = None,
) -> DifficultyEvaluation:
    """Accuracy and ponder steps of ``model`` at each difficulty (default ``1..n_elems``).

    Each difficulty gets its own batch of ``samples_per_difficulty`` vectors with exactly that many
    non-zero entries, on the model's device, drawn from the ``"scoring"`` stream of the run seeded
    with ``seed`` (:func:`~ponderlib.core.seeds.stream_generator`): two models scored with one
    ``seed`` see the same vectors. ``label`` is what the targets count (see
    :data:`~ponderlib.tasks.parity_data.LABELS`); ``max_ponder_steps`` the cap at inference (None: the
    model's).
    """
    ensure_type("model", model, (ACT, PonderNet))
    check_counts(MAX_LENGTH, n_elems=n_elems)
    check_counts(MAX_BATCH, samples_per_difficulty=samples_per_difficulty)
    check_choice("halting_rule", halting_rule, HALTING_RULES)
    difficulties = list(range(1, n_elems + 1)) if difficulties is None else _check_difficulties(difficulties, n_elems)
    check_product(MAX_ELEMENTS, "the entries scored", ("difficulties", len(difficulties)), ("n_elems", n_elems),
                  ("samples_per_difficulty", samples_per_difficulty))
    if next(model.parameters(), None) is None:
        raise ValueError("model must have parameters (their device is where the vectors are drawn), got none")
    check_int("seed", seed, minimum=0, maximum=SEED_MAX)
    check_choice("label", label, LABELS)
    return evaluate_by_difficulty_unchecked(
        model, n_elems, difficulties, samples_per_difficulty, halting_rule, seed, label, max_ponder_steps
    )


@torch.no_grad()
def evaluate_by_difficulty_unchecked(
    model: ACT | PonderNet,
    n_elems: int,
    difficulties: Sequence[int],
    samples_per_difficulty: int,
    halting_rule: str,
    seed: int,
    label: str,
    max_ponder_steps: int | None,
) -> DifficultyEvaluation:
    """:func:`evaluate_by_difficulty` without its checks, for a run's own model and config (its scores after
    training, :func:`~ponderlib.tasks.parity.scored_by_difficulty`); ``difficulties`` given."""
    generator = stream_generator(seed, "scoring", next(model.parameters()).device)
    accuracy, ponder_steps, expected, per_sample, halting = [], [], [], [], []
    for difficulty in difficulties:
        batch = draw_vectors(samples_per_difficulty, n_elems, difficulty, difficulty, label, generator, generator.device)
        evaluation = _evaluate_parity(model, batch, halting_rule, generator, max_ponder_steps)
        accuracy.append(evaluation.accuracy)
        ponder_steps.append(evaluation.ponder_steps.float().mean().item())
        expected.append(evaluation.expected_ponder_steps.mean().item())
        per_sample.append(evaluation.ponder_steps.cpu())
        halting.append(evaluation.halting_probs.mean(dim=0).cpu())  # (n_run,)
    steps = max(len(p) for p in halting)
    return DifficultyEvaluation(
        difficulty=torch.tensor(difficulties),
        accuracy=torch.tensor(accuracy),
        ponder_steps=torch.tensor(ponder_steps),
        expected_ponder_steps=torch.tensor(expected),
        sample_difficulty=torch.tensor(difficulties).repeat_interleave(samples_per_difficulty),
        sample_ponder_steps=torch.cat(per_sample),
        halting_distribution=torch.stack([nn.functional.pad(p, (0, steps - len(p))) for p in halting]),
    )


@dataclass
class StepProfile:
    """PonderNet's steps one by one, on vectors of the trained range: what its loss weighs at each step.

    Attributes:
        step_losses: the mean binary cross-entropy ``L(y, y_n)`` of each step ``n = 1..max_ponder_steps``
            (the whole unroll, :meth:`PonderNet.forward` with ``unroll_tolerance=0``), shape ``(N,)``.
        step_accuracy: the accuracy of each step's prediction ``y_n``, shape ``(N,)``.
        halting_distribution: the mean ``p_n`` of that unroll, shape ``(N,)``.
        kl_optimal_halting_distribution: the mean over the vectors of the halting distribution that minimises
            ``L_Rec + beta KL(p || p_G)`` for each vector's own step losses
            (:func:`~ponderlib.mechanisms.losses.kl_optimal_halting`), shape ``(N,)``: where the loss would
            put ``p_n`` if the steps' predictions stayed as they are. None for the reverse KL, whose optimum
            has no such closed form, and for a run that cut ``p_n`` at each input's own ``N`` (``unroll="mass"``).
    """

    step_losses: torch.Tensor
    step_accuracy: torch.Tensor
    halting_distribution: torch.Tensor
    kl_optimal_halting_distribution: torch.Tensor | None


@torch.no_grad()
def step_profile(model: PonderNet, batch: ParityBatch, prior: torch.Tensor | None, beta: float) -> StepProfile:
    """:class:`StepProfile` of ``model`` on ``batch``, against ``prior`` (:func:`geometric_prior`, as the
    run's loss truncates it; None: no ``kl_optimal_halting_distribution``) and the KL's weight ``beta``."""
    ensure_type("model", model, PonderNet)
    check_parity_batch(batch)
    if prior is not None:
        ensure_tensor("prior", prior, " of shape (max_ponder_steps,)")
    out = model(batch.inputs, unroll_tolerance=0.0)  # every step, (B, N)
    losses = binary_step_losses(out.step_outputs, batch.targets)  # (B, N)
    return _profile(out, batch, losses, None if prior is None else kl_optimal_halting(losses, prior.to(losses.device), beta))


@torch.no_grad()
def step_profile_unchecked(model: PonderNet, batch: ParityBatch, prior: torch.Tensor | None, beta: float) -> StepProfile:
    """:func:`step_profile` without its checks, for a run's own model, a batch the library drew for it and
    the prior and ``beta`` of its validated config."""
    out = model(batch.inputs, unroll_tolerance=0.0)  # every step, (B, N)
    losses = binary_step_losses_unchecked(out.step_outputs, batch.targets)  # (B, N)
    optimum = None if prior is None else kl_optimal_halting_unchecked(losses, prior.to(losses.device), beta)
    return _profile(out, batch, losses, optimum)


def _profile(out, batch: ParityBatch, losses: torch.Tensor, optimum: torch.Tensor | None) -> StepProfile:
    """The profile of one full unroll ``out`` on ``batch``: its step losses, and each vector's optimum."""
    correct = (out.step_outputs > 0) == batch.targets.bool().unsqueeze(1)  # (B, N)
    return StepProfile(
        step_losses=losses.mean(dim=0),
        step_accuracy=correct.float().mean(dim=0),
        halting_distribution=out.halting_probs.mean(dim=0),
        kl_optimal_halting_distribution=None if optimum is None else optimum.mean(dim=0),
    )


