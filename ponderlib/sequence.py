"""ACT inside an RNN (Graves 2016, sec. 2): a sequence of parity problems, pondering per time step.

At every time step ``t`` the network reads a fresh parity vector ``x_t`` (its difficulty, the number
of non-zero entries, drawn anew for each ``t``) and must output its parity. :class:`ponderlib.act.ACTRNN`
ponders on ``x_t`` for ``N(t)`` steps, starting from the mean-field state ``s(t-1)`` of the previous
time step, with the first-step flag set on the first ponder step of every ``t``. The loss is
Graves eq. 12 with the ponder cost averaged over time steps and samples:

    L = mean_t BCE(y_t, mean-field output y(t)) + tau * mean_{b, t} rho(t),   rho(t) = N(t) + R(t)

so the work the network spends can differ from one time step to the next, and the chapter plots
``N(t)`` per sample and time step next to the difficulty of each ``x_t``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.act import ACT, ACTRNN
from ponderlib.data import ParityBatch, make_generator, parity_sequence_batch
from ponderlib.losses import act_loss
from ponderlib.training import FitResult, History, check_training_fields, fit, start_training
from ponderlib.validation import check_int, check_non_negative


def act_sequence_model(n_elems: int, hidden: int = 64, max_steps: int = 12, eps: float = 0.01) -> ACTRNN:
    """An :class:`ACTRNN` for sequence parity: ``GRUCell(n_elems + 1, hidden)`` (+1: first-step flag), one logit."""
    check_int("n_elems", n_elems, minimum=1)
    check_int("hidden", hidden, minimum=1)
    cell = nn.GRUCell(n_elems + 1, hidden)
    return ACTRNN(ACT(cell, nn.Linear(hidden, 1), hidden_size=hidden, max_steps=max_steps, eps=eps))


@dataclass
class SequenceConfig:
    """A sequence-parity run of :func:`train_act_sequence`; the defaults train on a 2-core CPU in seconds.

    ``threads`` is passed to ``torch.set_num_threads`` before training (``None`` leaves torch's
    choice), as in :class:`ponderlib.training.ParityConfig`.
    """

    n_elems: int = 6
    seq_len: int = 5
    hidden: int = 64
    max_steps: int = 12
    tau: float = 0.001
    eps: float = 0.01
    batch_size: int = 128
    lr: float = 1e-2
    grad_clip: float = 1.0
    target_accuracy: float | None = 0.98
    max_seconds: float | None = 60.0
    max_train_steps: int | None = None
    eval_every: int = 50
    eval_size: int = 512
    seed: int = 0
    device: str | None = None
    threads: int | None = 1
    progress: bool = True

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field outside its allowed range."""
        check_int("n_elems", self.n_elems, minimum=1)
        check_int("seq_len", self.seq_len, minimum=1)
        check_int("hidden", self.hidden, minimum=1)
        check_int("max_steps", self.max_steps, minimum=1)
        check_non_negative("tau", self.tau)
        if not 0.0 <= self.eps < 1.0:
            raise ValueError(f"eps must be in [0, 1), got {self.eps!r}")
        check_training_fields(self)


def sequence_loss(model: ACTRNN, batch: ParityBatch, tau: float) -> torch.Tensor:
    """``mean BCE + tau * mean rho`` over samples and time steps (Graves eq. 12, averaged)."""
    result = model(batch.inputs)
    logits = result.outputs.squeeze(2)  # (B, T)
    task = nn.functional.binary_cross_entropy_with_logits(logits, batch.targets)
    return act_loss(task, result.ponder_cost, tau)  # ponder_cost: (B, T)


@dataclass
class SequenceEvaluation:
    """An :class:`ACTRNN` on a sequence-parity batch.

    Attributes:
        accuracy: fraction of correct parities over all samples and time steps.
        steps: ``N(t)`` per sample and time step, shape ``(B, T)``, int64.
        correct: per sample and time step, shape ``(B, T)``, bool.
        difficulty: the batch's number of non-zero entries, shape ``(B, T)``.
    """

    accuracy: float
    steps: torch.Tensor
    correct: torch.Tensor
    difficulty: torch.Tensor


@torch.no_grad()
def evaluate_act_sequence(model: ACTRNN, batch: ParityBatch) -> SequenceEvaluation:
    """Accuracy and ``N(t)`` of ``model`` on ``batch`` (inputs ``(B, T, n_elems)``)."""
    result = model(batch.inputs)
    correct = (result.outputs.squeeze(2) > 0) == batch.targets.bool()  # (B, T)
    return SequenceEvaluation(
        accuracy=correct.float().mean().item(),
        steps=result.steps,
        correct=correct,
        difficulty=batch.difficulty,
    )


@dataclass
class SequenceResult:
    """A trained :class:`ACTRNN`, its config, its training history and its last held-out numbers."""

    model: ACTRNN
    config: SequenceConfig
    fit: FitResult
    device: torch.device
    final_accuracy: float
    mean_ponder_steps: float

    @property
    def history(self) -> History:
        return self.fit.history


def train_act_sequence(config: SequenceConfig | None = None, **overrides) -> SequenceResult:
    """Train an :class:`ACTRNN` on sequence parity as ``config`` (or ``SequenceConfig(**overrides)``) says.

    Seeded like :func:`ponderlib.training.train_parity`; the held-out batch (``eval_size`` sequences)
    comes from its own seed. History metrics: ``accuracy`` and ``ponder_steps`` (mean ``N(t)``).
    """
    if config is None:
        config = SequenceConfig(**overrides)
    elif overrides:
        raise ValueError("pass either a SequenceConfig or keyword overrides, not both")
    device = start_training(config)
    model = act_sequence_model(config.n_elems, config.hidden, config.max_steps, config.eps).to(device)
    data_generator = make_generator(config.seed, device)
    held_out = parity_sequence_batch(
        config.eval_size, config.seq_len, config.n_elems, generator=make_generator(config.seed + 1_000_003, device)
    )

    def loss_on_fresh_batch() -> torch.Tensor:
        batch = parity_sequence_batch(config.batch_size, config.seq_len, config.n_elems, generator=data_generator)
        return sequence_loss(model, batch, config.tau)

    def evaluate() -> dict[str, float]:
        evaluation = evaluate_act_sequence(model, held_out)
        return {"accuracy": evaluation.accuracy, "ponder_steps": evaluation.steps.float().mean().item()}

    result = fit(
        model,
        loss_on_fresh_batch,
        evaluate,
        config,
        target_metric="accuracy",
        desc=f"act sequence parity-{config.n_elems} x {config.seq_len}",
    )
    return SequenceResult(
        model=model,
        config=config,
        fit=result,
        device=device,
        final_accuracy=result.history.last("accuracy"),
        mean_ponder_steps=result.history.last("ponder_steps"),
    )
