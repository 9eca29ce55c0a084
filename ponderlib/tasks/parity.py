"""The parity task (Graves 2016, sec. 3.1; Banino et al. 2021, sec. 3.1): config, loss, training.

ACT and PonderNet are compared on equal terms, the same cell and size for both
(:mod:`ponderlib.tasks.parity_models`). The data (:func:`ponderlib.tasks.parity_data.parity_batch`) is
shared with sequence parity; the scoring (:mod:`ponderlib.tasks.parity_eval`) with the chapters' analyses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ponderlib.core.config import ACT_ONLY, PONDERNET_ONLY, TrainConfig, default, option
from ponderlib.core.engine import PonderingResult, fit, start_run
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_ELEMENTS,
    MAX_LENGTH,
    MAX_STEPS,
    MAX_WIDTH,
    check_choice,
    check_correlated,
    check_counts,
    check_fraction,
    check_int,
    check_product,
)
from ponderlib.mechanisms.act import ACT, check_act_settings
from ponderlib.mechanisms.halting import PRIOR_TRUNCATIONS, geometric_prior
from ponderlib.mechanisms.losses import KL_DIRECTIONS, ACTLoss, PonderNetLoss, binary_step_losses_unchecked
from ponderlib.mechanisms.pondernet import HALTING_RULES, PonderNet, check_pondernet_settings
from ponderlib.tasks.parity_data import LABELS, ParityBatch, ParityVectors, draw_vectors
from ponderlib.tasks.parity_eval import (
    DifficultyEvaluation,
    StepProfile,
    act_logits,
    evaluate_by_difficulty_unchecked,
    predict_parity_unchecked,
    step_profile_unchecked,
)
from ponderlib.tasks.parity_models import CELLS, act_parity_model, pondernet_parity_model

METHODS = ("act", "pondernet")

UNROLLS = ("cap", "mass")
"""How PonderNet's training sets ``N`` (:class:`ParityConfig` ``unroll``): ``"cap"``, the book's, unrolls until
99.9 % of every sample has halted (all ``max_ponder_steps`` for the reverse KL), the last step run taking
the rest, the prior cut at ``max_ponder_steps``; ``"mass"``, Banino et al.'s sec. 2.3, cuts ``p_n`` and the
prior at each sample's smallest ``n`` with ``sum p_n > 1 - unroll_eps``
(:func:`~ponderlib.mechanisms.halting.truncate_at_mass`)."""


CHECKPOINTS = {"final": None, "best": "accuracy", "best-beyond": "extrapolation_accuracy"}
"""Which network a parity run scores after training -> the held-out metric whose best evaluation picks it:
the final one; the one most accurate on the trained range; or the one most accurate beyond it (on vectors
drawn like the test's: thesofakillers/ponder-bayes keeps "the model with the highest validation halted step
accuracy", and in extrapolation their validation set is drawn like their test set)."""
"""The recurrent cells a parity model can ponder with: ``"gru"`` (``nn.GRUCell``, the book's default)
or ``"tanh"``, the simple RNN ``h' = tanh(W x + U h + b)`` of Graves' and Banino et al.'s parity
networks ("a simple RNN with a single hidden layer containing 128 tanh units")."""

DEFAULT_LR = {"act": 5e-3, "pondernet": 1e-2}
"""Adam's learning rate for each method when :class:`ParityConfig` leaves ``lr`` unset: the fastest
of those tried to 0.99 on 8-element parity on a 2-core CPU (medians of seeds 0-2; ACT diverges more
often at 1e-2, PonderNet learns more slowly at 5e-3)."""


def trained_range(config: Mapping[str, Any]) -> range:
    """The difficulties (non-zero entries) a parity run of ``config`` (its fields, as a config's ``to_dict()``
    or a run's summary holds them) trains on: ``min_nonzero..max_nonzero`` (``n_elems`` if None). The one
    place the range is computed, for a live config (:attr:`ParityConfig.trained_difficulties`) and for a
    record read back."""
    top = config["n_elems"] if config["max_nonzero"] is None else config["max_nonzero"]
    return range(config["min_nonzero"], top + 1)


@dataclass
class ParityConfig(TrainConfig):
    """Everything that defines a parity run. The defaults train on a 2-core CPU in seconds.

    Method-specific fields: ``tau`` and ``eps`` for ACT; ``lambda_p``, ``beta``, ``kl_direction``,
    ``prior_truncation`` and ``halting_rule`` for PonderNet. ``max_nonzero=None`` means ``n_elems``;
    ``lr=None`` means the method's :data:`DEFAULT_LR`.
    """

    method: str = option("pondernet", "the halting method", choices=METHODS)
    n_elems: int = option(8, "parity vector length")
    hidden: int = option(64, "recurrent cell size (both methods)")
    cell: str = option("gru", "the recurrent cell: gru, or tanh (Graves' simple RNN of tanh units)", choices=CELLS)
    max_ponder_steps: int = option(20, "cap on ponder steps per input")
    tau: float = option(0.01, "ACT's time penalty, >= 0", methods=ACT_ONLY)
    eps: float = option(0.01, "ACT's halting slack: halt once sum h_n >= 1 - eps, in [0, 1)", methods=ACT_ONLY)
    halting_bias_init: float = option(
        1.0, "ACT's initial halting bias b_h (Graves: 1; sigmoid(3) = 0.95 halts at once)", methods=ACT_ONLY
    )
    lambda_p: float = option(0.2, "PonderNet's geometric prior parameter, in (0, 1]", methods=PONDERNET_ONLY)
    beta: float = option(0.01, "PonderNet's KL weight, >= 0", methods=PONDERNET_ONLY)
    kl_direction: str = option(
        "paper", "KL(p||p_G) as the paper, or the reverse KL(p_G||p)", choices=KL_DIRECTIONS, methods=PONDERNET_ONLY
    )
    prior_truncation: str = option(
        "normalised",
        "PonderNet's prior cut at max_ponder_steps (with unroll=mass, p and the prior cut at each sample's N): "
        "normalised, or the tail on the last step",
        choices=PRIOR_TRUNCATIONS,
        methods=PONDERNET_ONLY,
    )
    unroll: str = option(
        "cap",
        "PonderNet's training N: cap (unroll until 99.9 % has halted, the prior cut at max_ponder_steps), or mass "
        "(Banino sec. 2.3: each sample's N is the smallest n with sum p_n > 1 - unroll_eps; p and prior cut there)",
        choices=UNROLLS,
        methods=PONDERNET_ONLY,
    )
    unroll_eps: float = option(
        0.05, "PonderNet's eps for unroll=mass (the paper's: 0.05), in (0, 1)", methods=PONDERNET_ONLY
    )
    halting_rule: str = option(
        "sample", "PonderNet's halting at evaluation", choices=HALTING_RULES, methods=PONDERNET_ONLY
    )
    eval_max_ponder_steps: int | None = option(
        None,
        "the cap on ponder steps at evaluation, >= max_ponder_steps (None: max_ponder_steps; Banino sec. 2.3: "
        "at evaluation N 'can be set naively as a constant (or not set any limit)')",
    )
    checkpoint: str = option(
        "final",
        "the network scored after training: final, best (the evaluation with the highest held-out accuracy), or "
        "best-beyond (the highest accuracy beyond the trained range, on the held-out vectors drawn there); "
        "final_accuracy and mean_ponder_steps stay the last evaluation's, the numbers by difficulty are the kept network's",
        choices=tuple(CHECKPOINTS),
    )
    min_nonzero: int = option(1, "fewest non-zero entries in a training vector")
    max_nonzero: int | None = option(None, "most non-zero entries in a training vector (None: n_elems)")
    label: str = option(
        "ones", "the target: parity of the +1 entries (ones, the papers'), or of all non-zero entries", choices=LABELS
    )
    difficulty_eval_size: int = option(512, "held-out vectors per difficulty 1..n_elems, scored after training")
    batch_size: int = default("batch_size", 256)
    target_accuracy: float | None = default("target_accuracy", 0.99)
    max_updates: int | None = default("max_updates", 10_000)
    eval_size: int = default("eval_size", 2048)

    def validate(self) -> None:
        check_choice("method", self.method, METHODS)
        check_choice("cell", self.cell, CELLS)
        check_choice("label", self.label, LABELS)
        check_counts(MAX_LENGTH, n_elems=self.n_elems, max_ponder_steps=self.max_ponder_steps)
        check_counts(MAX_WIDTH, hidden=self.hidden)
        check_act_settings(self.tau, self.eps, self.halting_bias_init)
        check_pondernet_settings(self.lambda_p, self.beta, self.kl_direction, self.halting_rule)
        check_choice("prior_truncation", self.prior_truncation, PRIOR_TRUNCATIONS)
        check_choice("unroll", self.unroll, UNROLLS)
        if self.eval_max_ponder_steps is not None:
            check_int("eval_max_ponder_steps", self.eval_max_ponder_steps, minimum=self.max_ponder_steps, maximum=MAX_LENGTH)
        check_choice("checkpoint", self.checkpoint, tuple(CHECKPOINTS))
        check_fraction("unroll_eps", self.unroll_eps, include_zero=False, include_one=False)
        check_int("min_nonzero", self.min_nonzero, minimum=1, maximum=self.n_elems)
        if self.max_nonzero is not None:
            check_int("max_nonzero", self.max_nonzero, minimum=self.min_nonzero, maximum=self.n_elems)
        check_counts(MAX_BATCH, difficulty_eval_size=self.difficulty_eval_size)
        # the ponder steps' correlation with difficulty, over the trained difficulties' vectors
        trained = len(self.trained_difficulties)
        check_correlated(
            "difficulty_eval_size", self.difficulty_eval_size, trained, f"training vectors have {trained} difficulty"
        )
        if self.checkpoint == "best-beyond" and not self.extrapolates:
            raise ValueError(
                "checkpoint best-beyond needs vectors beyond the trained range: min_nonzero 1 and max_nonzero < n_elems, "
                f"got {self.min_nonzero} and {self.max_nonzero}"
            )
        super().validate()
        self._check_products(trained)  # after batch_size and eval_size are checked

    def _check_products(self, trained: int) -> None:
        """The products of counts that size one tensor or one loop, each count already in its bounds."""
        n, width, steps = ("n_elems", self.n_elems), ("hidden", self.hidden), ("max_ponder_steps", self.max_ponder_steps)
        cap = steps if self.eval_max_ponder_steps is None else ("eval_max_ponder_steps", self.eval_max_ponder_steps)
        for size in (("batch_size", self.batch_size), ("eval_size", self.eval_size)):
            check_product(MAX_ELEMENTS, "a batch's entries", n, size)
            check_product(MAX_ELEMENTS, "the states an unroll keeps", size, steps, width)
        check_product(MAX_ELEMENTS, "the states an evaluation's unroll keeps", ("eval_size", self.eval_size), cap, width)
        check_product(MAX_STEPS, "the ponder steps scored by difficulty, n_elems difficulties", n, cap)
        scored = ("difficulty_eval_size", self.difficulty_eval_size)
        check_product(MAX_ELEMENTS, "the entries scored by difficulty, n_elems difficulties of vectors", n, n, scored)
        # the step profile's batch: difficulty_eval_size vectors per trained difficulty
        check_product(MAX_BATCH, "the step profile's batch", ("trained difficulties", trained), scored)
        check_product(MAX_ELEMENTS, "the step profile's predictions", ("trained difficulties", trained), steps, scored)

    @property
    def trained_difficulties(self) -> range:
        """The difficulties (non-zero entries) training draws (:func:`trained_range`)."""
        return trained_range(vars(self))

    @property
    def extrapolates(self) -> bool:
        """Whether training leaves difficulties above its range to score (it starts at one non-zero entry
        and stops below ``n_elems``): :func:`extrapolation_held_out`."""
        return self.min_nonzero == 1 and self.trained_difficulties.stop <= self.n_elems

    def default_lr(self) -> float:
        return DEFAULT_LR[self.method]

    def checkpoint_metric(self) -> str | None:
        return CHECKPOINTS[self.checkpoint]


def build_parity_model(config: ParityConfig) -> ACT | PonderNet:
    """The model ``config.method`` names, with the same cell and size for both methods. PonderNet trained
    with the reverse KL unrolls all ``max_ponder_steps`` (the KL needs ``log p_n`` at every step)."""
    if config.method == "act":
        return act_parity_model(
            config.n_elems, config.hidden, config.max_ponder_steps, config.eps, config.halting_bias_init, config.cell
        )
    unroll_tolerance = 0.0 if config.kl_direction == "reverse" else 1e-3
    mass = config.unroll_eps if config.unroll == "mass" else None  # Banino's N, per sample
    return pondernet_parity_model(
        config.n_elems, config.hidden, config.max_ponder_steps, unroll_tolerance, config.cell, mass, config.prior_truncation
    )


def parity_objective(config: ParityConfig, device: torch.device | str | None = None):
    """The training loss of ``config.method`` on one batch, as ``(model, batch) -> scalar``.

    ACT: binary cross-entropy of the mean-field output plus ``tau * rho`` (Graves eq. 12).
    PonderNet: ``L_Rec + beta * KL`` (Banino eq. 3), through a :class:`PonderNetLoss` built once,
    its prior truncated at ``max_ponder_steps`` and ``log p_n`` taken in log space.
    """
    if config.method == "act":
        loss = ACTLoss(config.tau)

        def act_objective(model: ACT, batch: ParityBatch) -> torch.Tensor:
            result = model(batch.inputs)
            task = nn.functional.binary_cross_entropy_with_logits(act_logits(result), batch.targets)
            return loss(task, result.ponder_cost)

        return act_objective
    loss = PonderNetLoss(
        config.lambda_p, config.beta, config.kl_direction, config.max_ponder_steps, config.prior_truncation
    ).to(device)

    def pondernet_objective(model: PonderNet, batch: ParityBatch) -> torch.Tensor:
        out = model(batch.inputs)
        step_losses = binary_step_losses_unchecked(out.step_outputs, batch.targets)  # (B, n_run)
        return loss(step_losses, out.halting_probs, out.log_halting_probs, out.steps)[0]

    return pondernet_objective


@dataclass
class ParityResult(PonderingResult):
    """A trained parity model with its history, its last held-out numbers and, measured after
    training, its accuracy and ponder steps at every difficulty ``1..n_elems``.

    With ``checkpoint`` ``"best"`` or ``"best-beyond"``, the summary describes two networks, by design:
    ``final_accuracy`` and ``mean_ponder_steps`` are the last evaluation's during training (the final
    network's, as the learning curve ends), while everything measured after training (by difficulty,
    interpolation and extrapolation accuracy, the step profile) is the restored network's, from the
    evaluation ``checkpoint_update`` names (None: no evaluation gave the metric a number, and the final
    network stayed)."""

    task = "parity"

    by_difficulty: DifficultyEvaluation | None = None
    steps: StepProfile | None = None

    def metrics(self) -> dict:
        """Besides the last held-out numbers: per difficulty, accuracy, mean ponder steps executed
        and expected ponder steps ``E[n] = sum_n n p_n`` (for ACT, over its ``p_n``); the
        correlation between difficulty and ponder steps and the mean halting distribution ``p_n``
        (a list, step 1 first, up to the last step the unroll ran: shorter than ``max_ponder_steps``
        when it stopped early) over the training range; accuracy inside
        the training range (interpolation) and beyond it (extrapolation, None when there is none); for
        PonderNet, its :class:`StepProfile` on the training range: ``step_losses``, ``step_accuracy`` and,
        under the paper's KL with ``beta > 0``, ``kl_optimal_halting_distribution``."""
        metrics = {"method": self.config.method, "n_elems": self.config.n_elems, **super().metrics()}
        if self.by_difficulty is None:
            return metrics
        evaluation, config = self.by_difficulty, self.config
        trained = config.trained_difficulties
        unseen = [d for d in range(1, config.n_elems + 1) if d not in trained]
        levels = [str(d) for d in evaluation.difficulty.tolist()]
        profile = {} if self.steps is None else {
            "step_losses": [round_or_none(v) for v in self.steps.step_losses.tolist()],
            "step_accuracy": [round_or_none(v) for v in self.steps.step_accuracy.tolist()],
        }
        optimum = None if self.steps is None else self.steps.kl_optimal_halting_distribution
        if optimum is not None:
            profile["kl_optimal_halting_distribution"] = [round_or_none(v) for v in optimum.tolist()]
        return {
            **metrics,
            **profile,
            "accuracy_by_difficulty": dict(zip(levels, map(round_or_none, evaluation.accuracy.tolist()))),
            "ponder_steps_by_difficulty": dict(zip(levels, map(round_or_none, evaluation.ponder_steps.tolist()))),
            "expected_ponder_steps_by_difficulty": dict(
                zip(levels, map(round_or_none, evaluation.expected_ponder_steps.tolist()))
            ),
            "ponder_difficulty_correlation": round_or_none(evaluation.correlation_on(trained)),
            "halting_distribution": [round_or_none(p) for p in evaluation.halting_distribution_on(trained).tolist()],
            "interpolation_accuracy": round_or_none(evaluation.accuracy_on(trained)),
            "extrapolation_accuracy": round_or_none(evaluation.accuracy_on(unseen)) if unseen else None,
        }


def extrapolation_held_out(config: ParityConfig, held_out_stream: torch.Generator) -> ParityBatch | None:
    """What a run trained on ``1..max_nonzero < n_elems`` non-zero entries is scored on beyond that range
    at every evaluation: ``eval_size`` vectors of ``max_nonzero + 1..n_elems`` entries, drawn from
    ``held_out_stream`` after the held-out set (which stays as it was). ``None`` when training saw every
    difficulty, or started above one (where "beyond" has two sides). ``config`` is validated here
    (:meth:`~ponderlib.core.config.TrainConfig.validate_once`: nothing again for a run's own)."""
    config.validate_once()
    if not config.extrapolates:
        return None
    top = config.trained_difficulties[-1]
    return draw_vectors(
        config.eval_size, config.n_elems, top + 1, config.n_elems, config.label, held_out_stream, held_out_stream.device
    )


def train_parity(
    config: ParityConfig | None = None, *, on_evaluate: Callable[[int, nn.Module], None] | None = None, **overrides
) -> ParityResult:
    """Train ACT or PonderNet on parity as ``config`` (or ``ParityConfig(**overrides)``) says.

    Seeded: the same config gives the same weights and history on the same machine. The held-out
    set (``eval_size`` samples) is drawn once from its own seed, from the same difficulty range.
    History metrics: ``accuracy`` and ``ponder_steps`` (mean ponder steps at inference), and, for a
    run trained on ``1..max_nonzero < n_elems`` entries, ``extrapolation_accuracy`` and
    ``extrapolation_ponder_steps`` beyond it (:func:`extrapolation_held_out`). After
    training, every difficulty ``1..n_elems`` is scored on ``difficulty_eval_size`` fresh vectors
    (:class:`DifficultyEvaluation`, in the result's ``by_difficulty``), so the summary reports
    ponder steps against difficulty and, when training saw fewer non-zero entries than
    ``n_elems``, extrapolation accuracy. A PonderNet run is then profiled step by step
    (:func:`step_profile`, in the result's ``steps``) on ``difficulty_eval_size`` vectors per trained
    difficulty, drawn from the ``"test"`` stream. ``on_evaluate(update, model)``: called after every held-out
    evaluation during training (:func:`~ponderlib.core.engine.fit`).
    """
    config = ParityConfig.from_overrides(config, overrides)
    device = start_run(config)
    model = build_parity_model(config).to(device)
    data, sampling = config.generator("data", device), config.generator("sampling", device)
    held_out_stream = config.generator("held_out", device)
    trained = config.trained_difficulties
    held_out = draw_vectors(
        config.eval_size, config.n_elems, trained[0], trained[-1], config.label, held_out_stream, device
    )
    beyond, beyond_sampling = extrapolation_held_out(config, held_out_stream), config.generator("sampling", device)
    training_vectors = ParityVectors(config.n_elems, config.min_nonzero, config.max_nonzero, label=config.label)

    def evaluate(model: ACT | PonderNet) -> dict[str, float]:
        metrics = held_out_metrics(model, held_out, config, sampling)
        if beyond is not None:
            metrics |= held_out_metrics(model, beyond, config, beyond_sampling, prefix="extrapolation_")
        return metrics

    fitted = fit(
        model, lambda: training_vectors.draw(config.batch_size, data, check=False), parity_objective(config, device),
        evaluate, config, target_metric="accuracy", desc=f"{config.method} parity-{config.n_elems}",
        on_evaluate=on_evaluate,
    )
    result = ParityResult(model=model, config=config, fit=fitted, device=device)
    result.by_difficulty = scored_by_difficulty(model, config)
    if config.method == "pondernet":
        batch = draw_vectors(
            config.difficulty_eval_size * len(trained), config.n_elems, trained[0], trained[-1], config.label,
            config.generator("test", device), device,
        )
        # The optimum is that of the loss over every step: not the loss of a run that cut p_n at each input's
        # own N (unroll "mass"), whose optimum moves with where each input's N falls.
        closed_form = config.kl_direction == "paper" and config.beta > 0 and config.unroll == "cap"
        prior = geometric_prior(config.lambda_p, config.max_ponder_steps, config.prior_truncation) if closed_form else None
        result.steps = step_profile_unchecked(model, batch, prior, config.beta)
    return result


def held_out_metrics(
    model: ACT | PonderNet, batch: ParityBatch, config: ParityConfig, sampling: torch.Generator, prefix: str = ""
) -> dict[str, float]:
    """``accuracy`` and ``ponder_steps`` (the mean ponder steps at inference) of ``model`` on ``batch``, halting
    by ``config.halting_rule`` with ``sampling`` up to ``config.eval_max_ponder_steps``; names prefixed by ``prefix``."""
    logits, ponder_steps = predict_parity_unchecked(
        model, batch.inputs, config.halting_rule, sampling, config.eval_max_ponder_steps
    )
    return {
        f"{prefix}accuracy": ((logits > 0) == batch.targets.bool()).float().mean().item(),
        f"{prefix}ponder_steps": ponder_steps.float().mean().item(),
    }


def scored_by_difficulty(model: ACT | PonderNet, config: ParityConfig) -> DifficultyEvaluation:
    """``model`` scored at every difficulty ``1..n_elems`` as a run of ``config`` is scored after training
    (:func:`evaluate_by_difficulty` with the config's sizes, halting rule, seed, label and cap): the one
    place a config's scoring settings are passed on, for a run and for snapshots of it."""
    return evaluate_by_difficulty_unchecked(
        model, config.n_elems, list(range(1, config.n_elems + 1)), config.difficulty_eval_size, config.halting_rule,
        config.seed, config.label, config.eval_max_ponder_steps,
    )
