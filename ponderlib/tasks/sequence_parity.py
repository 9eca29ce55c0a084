r"""The sequence-parity task: ACT inside an RNN (Graves 2016, sec. 2), pondering per time step.

At every time step ``t`` the network reads a fresh parity vector ``x_t`` (its difficulty, the number
of non-zero entries, drawn anew for each ``t``) and must output its parity. :class:`ponderlib.mechanisms.act.ACTRNN`
ponders on ``x_t`` for ``N(t)`` steps, starting from the mean-field state ``s(t-1)`` of the previous
time step, with the first-step flag set on the first ponder step of every ``t``. The loss is
Graves eq. 12 with the ponder cost averaged over time steps and samples:

.. math::

    L = \operatorname{mean}_t \operatorname{BCE}\big(y_t, y(t)\big)
        + \tau \operatorname{mean}_{b, t}\, \rho(t), \qquad \rho(t) = N(t) + R(t)

with :math:`y(t)` the mean-field output, so the work the network spends can differ from one time step to
the next, and the chapter plots ``N(t)`` per sample and time step next to the difficulty of each ``x_t``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.config import TrainConfig, default, option
from ponderlib.core.engine import PonderingResult, fit, start_run
from ponderlib.core.stats import pearson_correlation, round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_ELEMENTS,
    MAX_LENGTH,
    MAX_STEPS,
    MAX_WIDTH,
    check_correlated,
    check_counts,
    check_product,
    ensure_type,
)
from ponderlib.mechanisms.act import ACT, ACTRNN, check_act_settings
from ponderlib.mechanisms.losses import ACTLoss
from ponderlib.tasks.parity_data import ParityBatch, ParityVectors, parity_batch


def act_sequence_model(
    n_elems: int, hidden: int = 64, max_ponder_steps: int = 12, eps: float = 0.01, halting_bias_init: float = 1.0
) -> ACTRNN:
    """An :class:`ACTRNN` for sequence parity: ``GRUCell(n_elems + 1, hidden)`` (+1: first-step flag), one logit.

    ``halting_bias_init`` is the initial ``b_h`` of the halting unit (Graves eq. 5; he uses 1).
    """
    check_counts(MAX_LENGTH, n_elems=n_elems)
    check_counts(MAX_WIDTH, hidden=hidden)
    cell = nn.GRUCell(n_elems + 1, hidden)
    act = ACT(
        cell, nn.Linear(hidden, 1), hidden_size=hidden, max_ponder_steps=max_ponder_steps, eps=eps,
        halting_bias_init=halting_bias_init,
    )
    return ACTRNN(act)


@dataclass
class SequenceConfig(TrainConfig):
    """A sequence-parity run of :func:`train_act_sequence`; the defaults train on a 2-core CPU in seconds."""

    n_elems: int = option(6, "parity vector length at each time step")
    seq_len: int = option(5, "time steps per sequence")
    hidden: int = option(64, "GRU cell size")
    max_ponder_steps: int = option(12, "cap on ponder steps per time step")
    tau: float = option(0.001, "ACT's time penalty, >= 0")
    eps: float = option(0.01, "ACT's halting slack, in [0, 1)")
    halting_bias_init: float = option(1.0, "ACT's initial halting bias b_h (Graves: 1; sigmoid(3) = 0.95 halts at once)")
    target_accuracy: float | None = default("target_accuracy", 0.98)
    eval_size: int = default("eval_size", 512)

    def validate(self) -> None:
        check_counts(MAX_LENGTH, n_elems=self.n_elems, seq_len=self.seq_len, max_ponder_steps=self.max_ponder_steps)
        check_counts(MAX_WIDTH, hidden=self.hidden)
        check_counts(MAX_BATCH, eval_size=self.eval_size)
        # the test's correlation of ponder steps with difficulty, over every time step of every sequence
        check_correlated("eval_size", self.eval_size, self.seq_len, f"seq_len = {self.seq_len}")
        check_act_settings(self.tau, self.eps, self.halting_bias_init)
        super().validate()
        # products of counts (each checked above): the ponder loop over a sequence, one batch's entries, and
        # the states a training pass keeps for its gradient
        steps, seq_len = ("max_ponder_steps", self.max_ponder_steps), ("seq_len", self.seq_len)
        check_product(MAX_STEPS, "a sequence's ponder steps", seq_len, steps)
        for size in (("batch_size", self.batch_size), ("eval_size", self.eval_size)):
            check_product(MAX_ELEMENTS, "a batch's entries", seq_len, ("n_elems", self.n_elems), size)
        check_product(MAX_ELEMENTS, "the states a training pass keeps", ("batch_size", self.batch_size), seq_len, steps,
                      ("hidden", self.hidden))

    def default_lr(self) -> float:
        return 1e-2


def sequence_loss(model: ACTRNN, batch: ParityBatch, loss: ACTLoss) -> torch.Tensor:
    """``mean BCE + tau * mean rho`` over samples and time steps (Graves eq. 12, averaged), with ``tau``
    in ``loss`` (an :class:`~ponderlib.mechanisms.losses.ACTLoss`, built once per run). ``TypeError``
    unless ``batch`` is a :class:`~ponderlib.tasks.parity_data.ParityBatch`."""
    ensure_type("batch", batch, ParityBatch)
    result = model(batch.inputs)
    logits = result.outputs.squeeze(2)  # (B, T)
    task = nn.functional.binary_cross_entropy_with_logits(logits, batch.targets)
    return loss(task, result.ponder_cost)  # ponder_cost: (B, T)


@dataclass
class SequenceEvaluation:
    """An :class:`ACTRNN` on a sequence-parity batch.

    Attributes:
        accuracy: fraction of correct parities over all samples and time steps.
        ponder_steps: ``N(t)`` per sample and time step, shape ``(B, T)``, int64.
        correct: per sample and time step, shape ``(B, T)``, bool.
        difficulty: the batch's number of non-zero entries, shape ``(B, T)``.
    """

    accuracy: float
    ponder_steps: torch.Tensor
    correct: torch.Tensor
    difficulty: torch.Tensor

    @property
    def ponder_difficulty_correlation(self) -> float:
        """Pearson's ``r`` between difficulty and ``N(t)``, every time step of every sequence a sample
        (NaN when ``N(t)`` is constant)."""
        return pearson_correlation(self.difficulty.flatten().float(), self.ponder_steps.flatten().float())

    def by_difficulty(self) -> dict[int, tuple[float, float]]:
        """Difficulty -> (accuracy, mean ``N(t)``) over the time steps with that many non-zero entries."""
        difficulty, steps, correct = self.difficulty.flatten(), self.ponder_steps.flatten().float(), self.correct.flatten()
        return {
            d: (correct[difficulty == d].float().mean().item(), steps[difficulty == d].mean().item())
            for d in difficulty.unique().tolist()
        }


@torch.no_grad()
def evaluate_act_sequence(model: ACTRNN, batch: ParityBatch) -> SequenceEvaluation:
    """Accuracy and ``N(t)`` of ``model`` on ``batch`` (a :class:`~ponderlib.tasks.parity_data.ParityBatch`
    with inputs ``(B, T, n_elems)``)."""
    ensure_type("batch", batch, ParityBatch)
    result = model(batch.inputs)
    correct = (result.outputs.squeeze(2) > 0) == batch.targets.bool()  # (B, T)
    return SequenceEvaluation(
        accuracy=correct.float().mean().item(),
        ponder_steps=result.ponder_steps,
        correct=correct,
        difficulty=batch.difficulty,
    )


@dataclass
class SequenceResult(PonderingResult):
    """A trained :class:`ACTRNN`, its config, its training history, its last held-out numbers and its
    test evaluation."""

    task = "sequence_parity"

    test: SequenceEvaluation | None = None
    """The trained model on ``eval_size`` fresh sequences from the ``"scoring"`` stream of its seed,
    measured by :func:`train_act_sequence`."""

    def metrics(self) -> dict:
        metrics = {"n_elems": self.config.n_elems, "seq_len": self.config.seq_len, **super().metrics()}
        if self.test is None:
            return metrics
        by_difficulty = self.test.by_difficulty()
        return {
            **metrics,
            "test_accuracy": round_or_none(self.test.accuracy),
            "test_ponder_steps": round_or_none(self.test.ponder_steps.float().mean().item()),
            "accuracy_by_difficulty": {str(d): round_or_none(row[0]) for d, row in by_difficulty.items()},
            "ponder_steps_by_difficulty": {str(d): round_or_none(row[1]) for d, row in by_difficulty.items()},
            "ponder_difficulty_correlation": round_or_none(self.test.ponder_difficulty_correlation),
        }


def train_act_sequence(
    config: SequenceConfig | None = None, *, on_evaluate: Callable[[int, nn.Module], None] | None = None, **overrides
) -> SequenceResult:
    """Train an :class:`ACTRNN` on sequence parity as ``config`` (or ``SequenceConfig(**overrides)``) says.

    Seeded like :func:`ponderlib.tasks.parity.train_parity`; the held-out batch (``eval_size`` sequences)
    comes from its own seed. History metrics: ``accuracy`` and ``ponder_steps`` (mean ``N(t)``). After
    training, :attr:`SequenceResult.test` on as many fresh sequences. ``on_evaluate(update, model)``: called
    after every held-out evaluation during training (:func:`~ponderlib.core.engine.fit`).
    """
    config = SequenceConfig.from_overrides(config, overrides)
    device = start_run(config)
    model = act_sequence_model(
        config.n_elems, config.hidden, config.max_ponder_steps, config.eps, config.halting_bias_init
    ).to(device)
    data = config.generator("data", device)
    held_out = parity_batch(
        config.eval_size, config.n_elems, generator=config.generator("held_out", device), seq_len=config.seq_len
    )
    training_sequences = ParityVectors(config.n_elems, seq_len=config.seq_len)
    loss = ACTLoss(config.tau)

    def evaluate(model: ACTRNN) -> dict[str, float]:
        evaluation = evaluate_act_sequence(model, held_out)
        return {"accuracy": evaluation.accuracy, "ponder_steps": evaluation.ponder_steps.float().mean().item()}

    fitted = fit(
        model, lambda: training_sequences.draw(config.batch_size, data, check=False),
        lambda model, batch: sequence_loss(model, batch, loss), evaluate, config, target_metric="accuracy",
        desc=f"act sequence parity-{config.n_elems} x {config.seq_len}", on_evaluate=on_evaluate,
    )
    result = SequenceResult(model=model, config=config, fit=fitted, device=device)
    sequences = parity_batch(
        config.eval_size, config.n_elems, generator=config.generator("scoring", device), seq_len=config.seq_len
    )
    result.test = evaluate_act_sequence(model, sequences)
    return result
