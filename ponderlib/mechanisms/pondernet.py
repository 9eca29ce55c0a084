"""PonderNet (Banino, Balaguer & Blundell 2021, "PonderNet: Learning to Ponder") around any step function.

The step function is ``(y_n, h_{n+1}, lambda_n) = s(x, h_n)`` (Banino sec. 2.2): a prediction, the next
state and the conditional probability of halting at step ``n`` given that the network has not halted
yet, ``lambda_n = P(Lambda_n = 1 | Lambda_{n-1} = 0)`` (Banino eq. 1).

*Training* unrolls the step function and returns every ``y_n`` with the unconditional halting
distribution ``p_n = lambda_n prod_{j<n}(1 - lambda_j)`` (Banino eq. 2,
:func:`ponderlib.mechanisms.halting.pondernet_halting`), so the loss is an expectation over ``n``
(:class:`ponderlib.mechanisms.losses.PonderNetLoss`), with ``log p_n`` computed in log space for the KL. The
unroll stops early once every sample has less than ``unroll_tolerance`` probability left of still
running; the last step run absorbs that mass. The reverse KL needs ``log p_n`` at every step up to
``max_ponder_steps``, so it trains with ``unroll_tolerance=0``.

*Inference* halts for real: at step ``n`` each sample halts with probability ``lambda_n``
(``halting_rule="sample"``, as in the paper, sec. 2.5), or once its cumulative halting probability reaches one
half (``halting_rule="median"``, deterministic). Halted samples leave the batch, so the step function
only ever runs on the samples still pondering; the result reports the steps actually executed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.validation import (
    MAX_LENGTH,
    MAX_WIDTH,
    check_choice,
    check_counts,
    check_fraction,
    check_lambda_p,
    check_non_negative,
    ensure_generator,
    ensure_in_range,
    ensure_model_input,
    ensure_tensor,
)
from ponderlib.mechanisms.halting import PRIOR_TRUNCATIONS, pondernet_halting, pondernet_log_halting, truncate_at_mass
from ponderlib.mechanisms.losses import KL_DIRECTIONS

HALTING_RULES = ("sample", "median")


def check_pondernet_settings(lambda_p: float, beta: float, kl_direction: str, halting_rule: str) -> None:
    """Raise ``ValueError`` naming the first of PonderNet's settings out of its range, as a task's config
    checks them once: the prior's ``lambda_p`` in ``(0, 1]``, the KL's weight ``beta >= 0`` and direction
    (Banino eq. 3), and the halting rule at inference."""
    check_lambda_p(lambda_p)
    check_non_negative("beta", beta)
    check_choice("kl_direction", kl_direction, KL_DIRECTIONS)
    check_choice("halting_rule", halting_rule, HALTING_RULES)


@dataclass
class PonderNetOutput:
    """What a training unroll returns.

    Attributes:
        step_outputs: ``y_n`` for every step run, shape ``(B, n_run, ...)``.
        lambdas: ``lambda_n``, shape ``(B, n_run)``.
        halting_probs: ``p_n``, shape ``(B, n_run)``, rows summing to one.
        log_halting_probs: ``log p_n`` computed from the ``lambda_n`` in log space, shape ``(B, n_run)``.
        steps: each sample's training ``N`` under Banino's rule (``halting_mass``, :func:`truncate_at_mass`),
            shape ``(B,)``, with ``p_n`` cut there; ``None`` where the unroll's last step absorbs the rest.
    """

    step_outputs: torch.Tensor
    lambdas: torch.Tensor
    halting_probs: torch.Tensor
    log_halting_probs: torch.Tensor
    steps: torch.Tensor | None = None


@dataclass
class PonderNetInference:
    """What halting at inference returns.

    Attributes:
        output: ``y_n`` at each sample's halting step, shape ``(B, ...)``.
        ponder_steps: the ponder step each sample halted at, shape ``(B,)``, int64, in
            ``[1, max_ponder_steps]`` (the call's cap).
        ponder_steps_run: how many times the step function ran on the (shrinking) batch: the latest
            ponder step at which any sample halted.
        sample_ponder_steps: step-function evaluations summed over samples (``ponder_steps.sum()``):
            the compute spent, against ``B * max_ponder_steps`` for a network that always runs to the end.
    """

    output: torch.Tensor
    ponder_steps: torch.Tensor
    ponder_steps_run: int
    sample_ponder_steps: int


def _check_batch(x: torch.Tensor, model: nn.Module) -> None:
    """``TypeError`` unless ``x`` is a tensor, ``ValueError`` unless it is a non-empty batch of rank >= 2 with
    the model's dtype and device (and, where the step function says, its ``input_size`` features)."""
    ensure_tensor("x", x, " of shape (batch, ...)")
    if x.dim() < 2 or x.shape[0] == 0:
        raise ValueError(f"x must be a non-empty batch of rank >= 2, shape (batch, ...); got {tuple(x.shape)}")
    ensure_model_input("x", x, model, getattr(model.step, "input_size", None), "input_size")


def _check_lambda_shape(lambdas: torch.Tensor, shape: tuple[int, ...]) -> None:
    """``ValueError`` unless the step function's ``lambda_n`` came one per sample: metadata only."""
    ensure_tensor("lambda_n", lambdas)
    if lambdas.shape != shape:
        raise ValueError(
            f"the step function's lambda_n must have one value per sample, shape (B,) = {shape}; "
            f"got {tuple(lambdas.shape)}"
        )


class PonderNet(nn.Module):
    """PonderNet around a step function.

    Args:
        step: called as ``step(x, h) -> (y_n, h_next, lambda_n)`` with ``x`` of shape ``(B, ...)``,
            ``h`` of shape ``(B, hidden_size)``, ``lambda_n`` of shape ``(B,)`` in [0, 1]. A
            ``lambda_n`` outside [0, 1] or NaN (which would make ``p_n`` negative or NaN) raises
            ``ValueError`` naming ``lambdas``: checked once per training unroll (one vectorised
            reduction over every step's ``lambda_n``) and at every step at inference.
        hidden_size: size of the state ``h``; the first state is zeros.
        max_ponder_steps: ``N``, the truncation of the halting distribution, ``>= 1``.
        unroll_tolerance: in training, stop unrolling once every sample's probability of still
            running is below this; 0 always unrolls ``max_ponder_steps``. The last step run absorbs
            the mass left.
        halting_mass: ``None`` (the above), or Banino et al.'s training ``N`` (sec. 2.3, their
            ``eps``, 0.05 in their experiments): each sample's ``N`` is the smallest ``n`` with
            ``sum_{j<=n} p_j > 1 - halting_mass``, the unroll stops once every sample has reached its
            own (or at ``max_ponder_steps``), and ``p_n`` is cut at each sample's ``N`` as
            ``mass_truncation`` says (:func:`~ponderlib.mechanisms.halting.truncate_at_mass`); the
            loss then cuts the prior there too. Replaces ``unroll_tolerance``.
        mass_truncation: ``"last"`` or ``"normalised"``, the paper's two ways of cutting ``p_n``.
    """

    def __init__(
        self,
        step: nn.Module,
        hidden_size: int,
        max_ponder_steps: int = 20,
        unroll_tolerance: float = 1e-3,
        halting_mass: float | None = None,
        mass_truncation: str = "last",
    ) -> None:
        super().__init__()
        if not callable(step):
            raise TypeError(f"step must be callable, step(x, h) -> (y_n, h_next, lambda_n), got {type(step).__name__}")
        check_counts(MAX_WIDTH, hidden_size=hidden_size)
        check_counts(MAX_LENGTH, max_ponder_steps=max_ponder_steps)
        check_fraction("unroll_tolerance", unroll_tolerance, include_one=False)
        if halting_mass is not None:
            check_fraction("halting_mass", halting_mass, include_one=False)
        check_choice("mass_truncation", mass_truncation, PRIOR_TRUNCATIONS)
        self.step = step
        self.hidden_size = hidden_size
        self.max_ponder_steps = max_ponder_steps
        self.unroll_tolerance = unroll_tolerance if halting_mass is None else halting_mass
        self.halting_mass = halting_mass
        self.mass_truncation = mass_truncation

    def forward(self, x: torch.Tensor, unroll_tolerance: float | None = None) -> PonderNetOutput:
        """Unroll on ``x`` of shape ``(B, ...)`` for training; returns every ``y_n`` and ``p_n``.

        ``unroll_tolerance``: overrides the model's for this call (0: all ``max_ponder_steps``, e.g.
        to score every step's prediction ``y_n``), and returns ``p_n`` uncut (``steps`` None) also
        under ``halting_mass``.
        """
        if unroll_tolerance is not None:
            check_fraction("unroll_tolerance", unroll_tolerance, include_one=False)
        tolerance = self.unroll_tolerance if unroll_tolerance is None else unroll_tolerance
        _check_batch(x, self)
        batch = x.shape[0]
        h = x.new_zeros(batch, self.hidden_size)  # (B, H)
        still_running = x.new_ones(batch)  # (B,): prod_{j<n}(1 - lambda_j), only for the early exit
        outputs, lambdas = [], []
        for n in range(1, self.max_ponder_steps + 1):
            # the step function (Banino sec. 2.2): y^_n, h_{n+1}, lambda_n = s(x, h_n), lambda_n as in eq. 1
            y, h, lam = self.step(x, h)
            _check_lambda_shape(lam, (batch,))
            outputs.append(y)
            lambdas.append(lam)
            still_running = still_running * (1.0 - lam.detach())
            if n < self.max_ponder_steps and bool((still_running < tolerance).all()):
                break
        lambdas_t = torch.stack(lambdas, dim=1)  # (B, n_run)
        ensure_in_range("lambdas", lambdas_t)  # the step's lambda_n, all steps at once: one synchronisation
        if self.halting_mass is not None and unroll_tolerance is None:
            # Banino eq. 2, p cut at each sample's N (sec. 2.3: the smallest n with sum_{j<=n} p_j > 1 - eps)
            cut = truncate_at_mass(lambdas_t, self.halting_mass, self.mass_truncation, check=False)
            return PonderNetOutput(
                step_outputs=torch.stack(outputs, dim=1),  # (B, n_run, ...)
                lambdas=lambdas_t,
                halting_probs=cut.halting_probs,  # (B, n_run): zero after each sample's N
                log_halting_probs=cut.log_halting_probs,
                steps=cut.steps,  # (B,)
            )
        # Banino eq. 2: p_n = lambda_n prod_{j<n} (1 - lambda_j), the last step run taking the mass left
        return PonderNetOutput(
            step_outputs=torch.stack(outputs, dim=1),  # (B, n_run, ...)
            lambdas=lambdas_t,
            halting_probs=pondernet_halting(lambdas_t, check=False),  # (B, n_run)
            log_halting_probs=pondernet_log_halting(lambdas_t, check=False),  # (B, n_run)
        )

    @torch.no_grad()
    def infer(
        self,
        x: torch.Tensor,
        halting_rule: str = "sample",
        generator: torch.Generator | None = None,
        max_ponder_steps: int | None = None,
    ) -> PonderNetInference:
        """Halt for real on ``x`` of shape ``(B, ...)``: halted samples stop being computed.

        Args:
            halting_rule: ``"sample"`` draws ``halt ~ Bernoulli(lambda_n)`` at every step (the paper);
                ``"median"`` halts once ``sum_{j<=n} p_j >= 1/2``.
            generator: for reproducible sampling.
            max_ponder_steps: the cap for this call (None: the model's), where every sample still
                pondering halts; Banino et al. (sec. 2.3) let it be any constant at evaluation, or none.
        """
        check_choice("halting_rule", halting_rule, HALTING_RULES)
        ensure_generator("generator", generator)
        if max_ponder_steps is not None:  # the model's own cap was checked when it was built
            check_counts(MAX_LENGTH, max_ponder_steps=max_ponder_steps)
        cap = self.max_ponder_steps if max_ponder_steps is None else max_ponder_steps
        _check_batch(x, self)
        batch = x.shape[0]
        active = torch.arange(batch, device=x.device)  # (A,): indices of samples still pondering
        x_active = x
        h = x.new_zeros(batch, self.hidden_size)  # (A, H)
        still_running = x.new_ones(batch)  # (A,): prod_{j<n}(1 - lambda_j)
        output: torch.Tensor | None = None
        ponder_steps = torch.zeros(batch, dtype=torch.long, device=x.device)
        n = 0
        for n in range(1, cap + 1):
            y, h, lam = self.step(x_active, h)
            _check_lambda_shape(lam, (x_active.shape[0],))
            ensure_in_range("lambdas", lam)
            if output is None:
                output = y.new_zeros((batch,) + tuple(y.shape[1:]))
            if n == cap:
                halt = torch.ones_like(lam, dtype=torch.bool)
            elif halting_rule == "sample":  # Banino sec. 2.5: Lambda_n ~ Bernoulli(lambda_n)
                halt = torch.rand(lam.shape, generator=generator, device=lam.device) < lam
            else:
                still_running = still_running * (1.0 - lam)
                halt = still_running <= 0.5
            output[active[halt]] = y[halt]
            ponder_steps[active[halt]] = n
            keep = ~halt
            active, x_active, h, still_running = active[keep], x_active[keep], h[keep], still_running[keep]
            if active.numel() == 0:
                break
        return PonderNetInference(
            output=output, ponder_steps=ponder_steps, ponder_steps_run=n, sample_ponder_steps=int(ponder_steps.sum())
        )
