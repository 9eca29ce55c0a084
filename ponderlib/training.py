"""One training loop for ACT and PonderNet on parity, and the generic loop under it.

:func:`fit` is the loop itself: Adam steps with gradient clipping, a ``tqdm.auto`` progress bar, an
evaluation every ``eval_every`` steps recorded in a :class:`History`, early stop at a target metric
or a time budget, and Ctrl-C (``KeyboardInterrupt``) returning what was trained so far.
:func:`train_parity` builds the model and data for a :class:`ParityConfig` and runs it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch
from torch import nn
from tqdm.auto import tqdm

from ponderlib.act import ACT
from ponderlib.data import ParityBatch, make_generator, parity_batch
from ponderlib.device import get_device
from ponderlib.halting import expected_steps
from ponderlib.losses import KL_DIRECTIONS, act_loss, binary_step_losses, pondernet_loss
from ponderlib.models import act_logits, act_parity_model, pondernet_parity_model
from ponderlib.pondernet import HALTING_MODES, PonderNet
from ponderlib.validation import (
    check_choice,
    check_int,
    check_lambda_p,
    check_non_negative,
    check_positive,
)

METHODS = ("act", "pondernet")

DEFAULT_LR = {"act": 5e-3, "pondernet": 1e-2}
"""Adam's learning rate for each method when :class:`ParityConfig` leaves ``lr`` unset: the fastest
of those tried to 0.99 on 8-element parity on a 2-core CPU (medians of seeds 0-2; ACT diverges more
often at 1e-2, PonderNet learns more slowly at 5e-3)."""


@dataclass
class History:
    """What :func:`fit` records at every evaluation: one list entry per evaluation."""

    step: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)

    def record(self, step: int, seconds: float, loss: float, metrics: dict[str, float]) -> None:
        self.step.append(step)
        self.seconds.append(seconds)
        self.loss.append(loss)
        for name, value in metrics.items():
            self.metrics.setdefault(name, []).append(value)

    def last(self, name: str) -> float | None:
        """The latest value of a metric, or None before the first evaluation."""
        values = self.metrics.get(name)
        return values[-1] if values else None


@dataclass
class FitResult:
    """What :func:`fit` returns. ``seconds_to_target`` is None when the target was not reached."""

    history: History
    train_steps: int
    seconds: float
    reached_target: bool
    seconds_to_target: float | None
    interrupted: bool


def fit(
    model: nn.Module,
    loss_on_fresh_batch: Callable[[], torch.Tensor],
    evaluate: Callable[[], dict[str, float]],
    config,
    *,
    target_metric: str,
    desc: str,
    lr: float | None = None,
) -> FitResult:
    """Train ``model`` with Adam until ``evaluate()[target_metric]`` reaches the target, or time or steps run out.

    Args:
        loss_on_fresh_batch: draws a new batch and returns its scalar loss (with graph).
        evaluate: returns metrics on held-out data; called every ``config.eval_every`` steps and at
            the end.
        config: a training config (:class:`ParityConfig`, :class:`~ponderlib.sequence.SequenceConfig`,
            :class:`~ponderlib.pointer.SortConfig`): its ``grad_clip`` (maximum global gradient
            norm), ``target_accuracy`` (the target of ``target_metric``; None: none),
            ``max_seconds``, ``max_train_steps`` (budgets; None: unlimited), ``eval_every`` and
            ``progress`` (the ``tqdm`` bar) are used.
        lr: Adam's learning rate (default ``config.lr``).

    ``KeyboardInterrupt`` ends training early; the model keeps its weights and the result has
    ``interrupted=True`` with the history so far.
    """
    check_training_fields(config)
    lr = config.lr if lr is None else lr
    target, max_seconds, max_train_steps = config.target_accuracy, config.max_seconds, config.max_train_steps
    eval_every, grad_clip, progress = config.eval_every, config.grad_clip, config.progress
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = History()
    start = time.perf_counter()
    step, running_loss, losses_seen = 0, 0.0, 0
    reached, seconds_to_target, interrupted = False, None, False
    bar = tqdm(total=max_train_steps, desc=desc, disable=not progress, leave=False)

    def evaluate_and_record() -> bool:
        nonlocal running_loss, losses_seen
        model.eval()
        metrics = evaluate()
        model.train()
        mean_loss = running_loss / losses_seen if losses_seen else float("nan")
        history.record(step, time.perf_counter() - start, mean_loss, metrics)
        running_loss, losses_seen = 0.0, 0
        bar.set_postfix({k: f"{v:.3f}" for k, v in metrics.items()}, refresh=False)
        return target is not None and metrics[target_metric] >= target

    model.train()
    try:
        while True:
            loss = loss_on_fresh_batch()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
            step += 1
            running_loss += loss.item()  # the one sync per step, for the logged loss
            losses_seen += 1
            bar.update(1)
            if step % eval_every == 0 and evaluate_and_record():
                reached, seconds_to_target = True, history.seconds[-1]
                break
            if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                break
            if max_train_steps is not None and step >= max_train_steps:
                break
    except KeyboardInterrupt:
        interrupted = True
    bar.close()
    if not history.step or history.step[-1] != step:
        if evaluate_and_record() and not reached:
            reached, seconds_to_target = True, history.seconds[-1]
    model.eval()
    return FitResult(
        history=history,
        train_steps=step,
        seconds=time.perf_counter() - start,
        reached_target=reached,
        seconds_to_target=seconds_to_target,
        interrupted=interrupted,
    )


def check_training_fields(config) -> None:
    """Check the fields every training config shares (parity, sequence parity, sorting).

    ``batch_size``, ``lr`` (None allowed: a method default), ``grad_clip``, ``target_accuracy``,
    ``max_seconds``, ``max_train_steps`` (and that at least one of the three stops training),
    ``eval_every``, ``eval_size``, ``seed``, ``threads`` and ``device``.
    """
    check_int("batch_size", config.batch_size, minimum=1)
    if config.lr is not None:
        check_positive("lr", config.lr)
    check_positive("grad_clip", config.grad_clip)
    if config.target_accuracy is not None and not 0.0 < config.target_accuracy <= 1.0:
        raise ValueError(f"target_accuracy must be in (0, 1], got {config.target_accuracy!r}")
    if config.max_seconds is not None:
        check_positive("max_seconds", config.max_seconds)
    if config.max_train_steps is not None:
        check_int("max_train_steps", config.max_train_steps, minimum=1)
    if config.target_accuracy is None and config.max_seconds is None and config.max_train_steps is None:
        raise ValueError("set at least one of target_accuracy, max_seconds, max_train_steps, or training never stops")
    check_int("eval_every", config.eval_every, minimum=1)
    check_int("eval_size", config.eval_size, minimum=1)
    check_int("seed", config.seed, minimum=0)
    if config.threads is not None:
        check_int("threads", config.threads, minimum=1)
    get_device(config.device)


def start_training(config) -> torch.device:
    """Validate ``config``, set the CPU threads it asks for, seed torch; return its device."""
    config.validate()
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    return get_device(config.device)


@dataclass
class ParityConfig:
    """Everything that defines a parity run. The defaults train on a 2-core CPU in seconds.

    Method-specific fields: ``tau`` and ``eps`` for ACT; ``lambda_p``, ``beta``, ``kl_direction``
    and ``eval_halting`` for PonderNet. ``max_nonzero=None`` means ``n_elems``; ``lr=None`` means
    the method's :data:`DEFAULT_LR`. ``threads`` is
    passed to ``torch.set_num_threads`` before training (``None`` leaves torch's choice): the models
    are small enough that a second CPU thread gains little, and on a busy 2-core CPU two threads
    wait on each other.
    """

    method: str = "pondernet"
    n_elems: int = 8
    hidden: int = 64
    max_steps: int = 20
    tau: float = 0.01
    eps: float = 0.01
    lambda_p: float = 0.2
    beta: float = 0.01
    kl_direction: str = "paper"
    eval_halting: str = "sample"
    min_nonzero: int = 1
    max_nonzero: int | None = None
    batch_size: int = 256
    lr: float | None = None
    grad_clip: float = 1.0
    target_accuracy: float | None = 0.99
    max_seconds: float | None = 300.0
    max_train_steps: int | None = None
    eval_every: int = 50
    eval_size: int = 2048
    seed: int = 0
    device: str | None = None
    threads: int | None = 1
    progress: bool = True

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field outside its allowed range."""
        check_choice("method", self.method, METHODS)
        check_int("n_elems", self.n_elems, minimum=1)
        check_int("hidden", self.hidden, minimum=1)
        check_int("max_steps", self.max_steps, minimum=1)
        check_non_negative("tau", self.tau)
        if not 0.0 <= self.eps < 1.0:
            raise ValueError(f"eps must be in [0, 1), got {self.eps!r}")
        check_lambda_p(self.lambda_p)
        check_non_negative("beta", self.beta)
        check_choice("kl_direction", self.kl_direction, KL_DIRECTIONS)
        check_choice("eval_halting", self.eval_halting, HALTING_MODES)
        check_int("min_nonzero", self.min_nonzero, minimum=1, maximum=self.n_elems)
        if self.max_nonzero is not None:
            check_int("max_nonzero", self.max_nonzero, minimum=self.min_nonzero, maximum=self.n_elems)
        check_training_fields(self)

    @property
    def learning_rate(self) -> float:
        """``lr``, or the method's :data:`DEFAULT_LR` when ``lr`` is None."""
        return DEFAULT_LR[self.method] if self.lr is None else self.lr


@dataclass
class ParityEvaluation:
    """A model's predictions on a parity batch.

    Attributes:
        accuracy: fraction of correct parities.
        steps: ponder steps per sample ``(B,)``: ``N(t)`` for ACT, the sampled (or median) halting
            step actually executed for PonderNet.
        expected_steps: ``E[n] = sum_n n p_n`` per sample ``(B,)``.
        correct: per-sample correctness ``(B,)``, bool.
        halting_probs: ``p_n`` of the training-mode pass, ``(B, n_run)``.
    """

    accuracy: float
    steps: torch.Tensor
    expected_steps: torch.Tensor
    correct: torch.Tensor
    halting_probs: torch.Tensor


@torch.no_grad()
def predict_parity(
    model: ACT | PonderNet, inputs: torch.Tensor, halting: str = "sample", generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Parity logits ``(B,)`` and ponder steps ``(B,)`` of either method, as it runs at inference.

    ACT predicts with its mean-field output after ``N(t)`` steps. PonderNet predicts with ``y_n``
    at the step where it halts (``halting``: ``"sample"`` or ``"median"``, see
    :meth:`PonderNet.infer`), computing nothing for samples that have halted.
    """
    if isinstance(model, ACT):
        result = model(inputs)
        return act_logits(result), result.steps
    if isinstance(model, PonderNet):
        inference = model.infer(inputs, halting=halting, generator=generator)
        return inference.output, inference.steps
    raise ValueError(f"model must be an ACT or PonderNet parity model, got {type(model).__name__}")


@torch.no_grad()
def evaluate_parity(
    model: ACT | PonderNet, batch: ParityBatch, halting: str = "sample", generator: torch.Generator | None = None
) -> ParityEvaluation:
    """Accuracy, ponder steps and halting distribution of a parity model on ``batch``."""
    logits, steps = predict_parity(model, batch.inputs, halting, generator)
    correct = (logits > 0) == batch.targets.bool()
    probs = model(batch.inputs).halting_probs
    return ParityEvaluation(
        accuracy=correct.float().mean().item(),
        steps=steps,
        expected_steps=expected_steps(probs),
        correct=correct,
        halting_probs=probs,
    )


def parity_loss(model: ACT | PonderNet, batch: ParityBatch, config: ParityConfig) -> torch.Tensor:
    """The training loss of either method on one batch (ACT: Graves eq. 9; PonderNet: Banino eq. 2-3)."""
    if isinstance(model, ACT):
        result = model(batch.inputs)
        task = nn.functional.binary_cross_entropy_with_logits(act_logits(result), batch.targets)
        return act_loss(task, result.ponder_cost, config.tau)
    out = model(batch.inputs)
    total, _, _ = pondernet_loss(
        binary_step_losses(out.step_outputs, batch.targets),
        out.halting_probs,
        config.lambda_p,
        config.beta,
        config.kl_direction,
    )
    return total


def build_parity_model(config: ParityConfig) -> ACT | PonderNet:
    """The model ``config.method`` names, with the same GRU size for both methods."""
    if config.method == "act":
        return act_parity_model(config.n_elems, config.hidden, config.max_steps, config.eps)
    return pondernet_parity_model(config.n_elems, config.hidden, config.max_steps)


@dataclass
class ParityResult:
    """A trained parity model with its history and the summary the CLI prints."""

    model: ACT | PonderNet
    config: ParityConfig
    fit: FitResult
    device: torch.device
    final_accuracy: float
    mean_ponder_steps: float

    @property
    def history(self) -> History:
        return self.fit.history

    def summary(self) -> dict:
        """The JSON-ready summary of the run (what ``python -m ponderlib train parity --json`` prints)."""
        return {
            "task": "parity",
            "method": self.config.method,
            "n_elems": self.config.n_elems,
            "device": str(self.device),
            "seed": self.config.seed,
            "reached_target": self.fit.reached_target,
            "seconds_to_target": round_or_none(self.fit.seconds_to_target),
            "seconds": round_or_none(self.fit.seconds),
            "train_steps": self.fit.train_steps,
            "final_accuracy": round_or_none(self.final_accuracy),
            "mean_ponder_steps": round_or_none(self.mean_ponder_steps),
            "interrupted": self.fit.interrupted,
            "config": {
                **{k: v for k, v in asdict(self.config).items() if k not in ("progress", "device", "threads")},
                "lr": self.config.learning_rate,
            },
            "torch_threads": torch.get_num_threads(),
        }


def round_or_none(value: float | None) -> float | None:
    """``value`` to 4 decimals for a JSON summary; None (and NaN) as None."""
    return None if value is None or math.isnan(value) else round(value, 4)


def train_parity(config: ParityConfig | None = None, **overrides) -> ParityResult:
    """Train ACT or PonderNet on parity as ``config`` (or ``ParityConfig(**overrides)``) says.

    Seeded: the same config gives the same weights and history on the same machine. The held-out
    set (``eval_size`` samples) is drawn once from its own seed, from the same difficulty range.
    """
    if config is None:
        config = ParityConfig(**overrides)
    elif overrides:
        raise ValueError("pass either a ParityConfig or keyword overrides, not both")
    device = start_training(config)
    model = build_parity_model(config).to(device)
    data_generator = make_generator(config.seed, device)
    eval_generator = make_generator(config.seed + 1_000_003, device)
    halting_generator = make_generator(config.seed + 2_000_003, device)
    held_out = parity_batch(
        config.eval_size, config.n_elems, config.min_nonzero, config.max_nonzero, generator=eval_generator
    )

    def loss_on_fresh_batch() -> torch.Tensor:
        batch = parity_batch(
            config.batch_size, config.n_elems, config.min_nonzero, config.max_nonzero, generator=data_generator
        )
        return parity_loss(model, batch, config)

    def evaluate() -> dict[str, float]:
        logits, steps = predict_parity(model, held_out.inputs, config.eval_halting, halting_generator)
        accuracy = ((logits > 0) == held_out.targets.bool()).float().mean()
        return {"accuracy": accuracy.item(), "ponder_steps": steps.float().mean().item()}

    result = fit(
        model,
        loss_on_fresh_batch,
        evaluate,
        config,
        target_metric="accuracy",
        desc=f"{config.method} parity-{config.n_elems}",
        lr=config.learning_rate,
    )
    return ParityResult(
        model=model,
        config=config,
        fit=result,
        device=device,
        final_accuracy=result.history.last("accuracy"),
        mean_ponder_steps=result.history.last("ponder_steps"),
    )
