r"""Losses: ACT's ponder cost and PonderNet's reconstruction + KL regulariser, one module each.

ACT (Graves 2016, "Adaptive Computation Time for Recurrent Neural Networks"), :class:`ACTLoss`:

.. math::

    \hat{\mathcal L}(x, y) &= \mathcal L(x, y) + \tau\, \mathcal P(x) \qquad \text{(Graves eq. 12)} \\
    \mathcal P(x) &= \textstyle\sum_t \rho_t \qquad \text{(Graves eq. 11)} \\
    \rho_t &= N(t) + R(t) \qquad \text{(Graves eq. 10)}

with the sum over the sequence taken as a mean over the batch (and time), as the task loss is.
``N`` is an integer and has no gradient, so ``d rho / d theta = d R / d theta``: Graves treats ``N`` as
constant, ``d P / d h_n = -1`` before ``N`` and 0 at it (Graves eq. 14), so the penalty acts only through the
remainder, by pushing the halting units *before* ``N`` up (``R = 1 - sum h_n``).

PonderNet (Banino et al. 2021, "PonderNet: Learning to Ponder", eq. 3), :class:`PonderNetLoss`:

.. math::

    L &= L_\text{Rec} + \beta\, L_\text{Reg} \\
    L_\text{Rec} &= \textstyle\sum_{n=1}^{N} p_n\, \mathcal{L}(y, \hat y_n)
        \qquad \text{(the expected loss under } p\text{)} \\
    L_\text{Reg} &= \mathrm{KL}\big(p \,\|\, p_G(\lambda_p)\big) \qquad \text{(the paper's direction)}

``KL(p || p_G) = sum_n p_n log(p_n / p_G(n))`` is *mode-seeking in p*: it penalises the network
for putting mass where the prior has little; ``KL(p_G || p)`` (the reverse, computed by a popular
public implementation through ``nn.KLDivLoss(log p, p_G)``) is *mass-covering*: it penalises the
network for having little mass where the prior has some, and so forces ``p`` to keep a long tail.
Both are offered; the paper's is the default.

Both are computed from ``log p_n`` (:func:`ponderlib.mechanisms.halting.pondernet_log_halting`), so the reverse
KL's gradient is finite and non-zero where ``p_n`` is tiny, exactly where it pushes hardest. The
prior is truncated at ``max_ponder_steps`` (:func:`ponderlib.mechanisms.halting.geometric_prior`), whatever
the number of steps a training unroll ran: for the paper's direction an unroll that stopped early
has ``p_n = 0`` on the steps it skipped, which add ``0 log 0 = 0``; the reverse direction needs
``log p_n`` on every step, so it needs the full unroll.

Both losses are modules (``torch.nn.Module``): their settings are checked once, in the constructor, and
:class:`PonderNetLoss` holds the truncated prior as a (non-persistent) buffer, so whoever builds the
loss moves it with the model, ``PonderNetLoss(...).to(device)``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ponderlib.core.validation import (
    check_choice,
    check_distribution_rows,
    check_lambda_p,
    check_non_negative,
    check_positive,
    check_probability_tensor,
    check_rank,
    ensure_finite,
    ensure_in_range,
    ensure_same_shape,
    ensure_tensor,
)
from ponderlib.mechanisms.halting import check_steps, geometric_prior, geometric_prior_cut

KL_DIRECTIONS = ("paper", "reverse")
"""``"paper"``: ``KL(p || p_G)`` as Banino et al. write it. ``"reverse"``: ``KL(p_G || p)``."""

_TINY = 1e-12


def step_price(lambda_p: float, beta: float) -> float:
    """What PonderNet's loss charges for one more expected ponder step, ``beta * -log(1 - lambda_p)``:
    the slope in ``E[n]`` of ``beta * KL(p || p_G)`` with the entropy of ``p`` held fixed (the middle term
    of the chapter's eq. kl-decomposed). ACT charges ``tau`` per step of its ponder cost, so this is the
    ``tau`` that prices a step as PonderNet does: 0.00223 at ``lambda_p = 0.2, beta = 0.01``.

    Raises:
        ValueError: ``lambda_p`` outside (0, 1) (at 1 a step beyond the first costs without bound),
            or ``beta`` negative.
    """
    check_lambda_p(lambda_p)
    if lambda_p == 1.0:
        raise ValueError("lambda_p must be in (0, 1) for a finite price per step, got 1.0")
    check_non_negative("beta", beta)
    # beta * -log(1 - lambda_p): -log p_G(n + 1) + log p_G(n), the KL's cost of one more step (not in the paper)
    return -beta * math.log1p(-lambda_p)


def kl_optimal_halting(step_losses: torch.Tensor, prior: torch.Tensor, beta: float) -> torch.Tensor:
    """The halting distribution that minimises PonderNet's loss for fixed per-step losses (Banino eq. 3,
    the paper's KL): ``p*_n = p_G(n) exp(-L_n / beta) / Z``.

    For one input, ``sum_n p_n L_n + beta KL(p || p_G)`` is minimised over the simplex where its
    Lagrangian's derivative vanishes, ``L_n + beta (log(p_n / p_G(n)) + 1) + mu = 0``: the prior
    reweighted by ``exp(-L_n / beta)``. So the KL alone never moves ``E[n]`` below the prior's mean; only
    per-step losses that grow with ``n`` do, and at ``beta = 0.01`` a step whose loss is 0.05 above
    another's keeps ``e^-5`` of its prior weight relative to it.

    Computed in float64, each row's losses shifted by their least (over the steps the prior allows), so
    ``(L_n - min L) / beta >= 0`` and the step of least loss keeps a finite weight at any allowed ``beta``:
    as ``beta -> 0``, ``p*`` tends to the prior restricted to the steps of least loss (an overflow to
    ``inf`` there gives that limit, never NaN).

    Args:
        step_losses: ``L(y, y_n)``, shape ``(..., N)``, floating-point, finite, not empty.
        prior: ``p_G``, shape ``(N,)``, non-negative, summing to one (:func:`geometric_prior`).
        beta: the KL's weight, > 0.

    Returns:
        ``p*``, the shape and dtype of ``step_losses``, each row summing to one.
    """
    ensure_tensor("step_losses", step_losses, " of shape (..., N)")
    ensure_tensor("prior", prior, " of shape (N,)")
    check_rank("prior", prior, 1, "(N,)")
    if step_losses.dim() == 0 or step_losses.shape[-1] != prior.shape[0]:
        raise ValueError(
            f"step_losses must end in the prior's {prior.shape[0]} steps, got shape {tuple(step_losses.shape)}"
        )
    if not step_losses.is_floating_point():  # an integer or bool tensor would cast the prior to its dtype
        raise ValueError(f"step_losses must be a floating-point tensor, got {step_losses.dtype}")
    if step_losses.numel() == 0:
        raise ValueError(f"step_losses is empty (shape {tuple(step_losses.shape)}): there is no row to weigh")
    ensure_finite("step_losses", step_losses)
    check_probability_tensor("prior", prior)
    if abs(float(prior.sum()) - 1.0) > 1e-4:
        raise ValueError(f"prior must sum to one, got {float(prior.sum()):.6g}")
    check_positive("beta", beta)
    return kl_optimal_halting_unchecked(step_losses, prior, beta)


def kl_optimal_halting_unchecked(step_losses: torch.Tensor, prior: torch.Tensor, beta: float) -> torch.Tensor:
    """:func:`kl_optimal_halting` without its checks, for arguments already checked where they entered
    (a run's step profile: its prior built by :func:`geometric_prior`, its ``beta`` by the run's config)."""
    allowed = (prior > 0).to(step_losses.device)  # (N,): steps the prior gives weight
    losses = step_losses.double()  # (..., N)
    least = torch.where(allowed, losses, math.inf).amin(dim=-1, keepdim=True)  # (..., 1)
    log_prior = torch.log(prior.to(losses))  # (N,)
    # p*_n = p_G(n) exp(-L_n / beta) / Z, the minimiser of Banino eq. 3 over p for fixed L_n (derived above)
    logits = torch.where(allowed, log_prior - (losses - least) / beta, -math.inf)  # (..., N)
    return torch.softmax(logits, dim=-1).to(step_losses.dtype)


class ACTLoss(nn.Module):
    """ACT's total loss ``L_task + tau * mean(rho)`` (Graves eqs. 10-12, averaged) with ``tau`` checked once.

    A training run builds one and calls it on every batch, so ``tau`` is not re-checked per
    training update. It holds no tensor: ``.to(device)`` leaves it as it is.
    """

    def __init__(self, tau: float) -> None:
        super().__init__()
        check_non_negative("tau", tau)
        self.tau = tau

    def extra_repr(self) -> str:
        return f"tau={self.tau}"

    def forward(self, task_loss: torch.Tensor, ponder_cost: torch.Tensor) -> torch.Tensor:
        """``task_loss`` (scalar) plus ``tau`` times the mean ``ponder_cost`` (``(B,)``, or ``(B, T)`` for a sequence).

        Runs at every training update, so it checks only what is cheap: two tensors (``TypeError``),
        a scalar ``task_loss`` and a non-empty ``ponder_cost`` (metadata), and that the loss is finite
        (one synchronisation, on the scalar, as :class:`PonderNetLoss`): a NaN or infinite loss raises
        ``ValueError`` naming the argument that holds it rather than training on it."""
        ensure_tensor("task_loss", task_loss, " (a scalar)")
        ensure_tensor("ponder_cost", ponder_cost)
        if task_loss.dim() != 0:
            raise ValueError(f"task_loss must be a scalar (the batch's mean), got shape {tuple(task_loss.shape)}")
        if ponder_cost.numel() == 0:
            raise ValueError(f"ponder_cost must hold one rho per sample, got shape {tuple(ponder_cost.shape)}")
        # Graves eq. 12, L^(x, y) = L(x, y) + tau P(x), with P(x) = sum_t rho_t (eq. 11) of the ponder costs
        # rho_t = N(t) + R(t) (eq. 10): here a mean over the batch (and time), as the task loss is.
        total = task_loss + self.tau * ponder_cost.mean()
        if not bool(torch.isfinite(total)):
            _explain_non_finite(task_loss=task_loss, ponder_cost=ponder_cost)
        return total


def reconstruction_loss(step_losses: torch.Tensor, halting_probs: torch.Tensor, check: bool = True) -> torch.Tensor:
    """PonderNet's ``L_Rec = sum_n p_n L(y, y_n)``, averaged over the batch (the first term of Banino eq. 3).

    Args:
        step_losses: ``L(y, y_n)`` per sample and step, shape ``(B, N)``.
        halting_probs: ``p_n``, shape ``(B, N)``.
        check: check the arguments: ``TypeError`` for arguments that are not tensors and ``ValueError``
            for mismatched shapes, a ``p_n`` outside [0, 1] (NaN included), a row of ``p`` that does not
            sum to one, or a step's loss that is negative or NaN. :class:`PonderNetLoss` passes False
            (the value checks synchronise a GPU; it checks the loss is finite instead).

    Returns:
        scalar. Unlike ACT's, its gradient reaches every ``lambda_n``: each step's loss is weighted
        by a differentiable probability, so the gradient of this expectation is exact.
    """
    if check:
        check_rank("step_losses", step_losses, 2, "(batch, max_ponder_steps)")
        check_rank("halting_probs", halting_probs, 2, "(batch, max_ponder_steps)")
        ensure_same_shape(halting_probs=halting_probs, step_losses=step_losses)
        check_distribution_rows("halting_probs", halting_probs)
        ensure_in_range("step_losses", step_losses, 0.0, math.inf)  # a loss, as L(y, y_n) is
    # Banino eq. 3, first term: L_Rec = sum_{n=1}^{N} p_n L(y, y^_n), the expected loss under p; batch mean.
    return (halting_probs * step_losses).sum(dim=1).mean()


def kl_to_geometric(
    halting_probs: torch.Tensor, lambda_p: float, direction: str = "paper", truncation: str = "normalised"
) -> torch.Tensor:
    """KL between a halting distribution and the truncated geometric prior, batch mean (the second term of Banino eq. 3).

    ``direction="paper"``: ``KL(p || p_G) = sum_n p_n (log p_n - log p_G(n))``;
    ``direction="reverse"``: ``KL(p_G || p) = sum_n p_G(n) (log p_G(n) - log p_n)``.

    For a ``p`` given as probabilities, which may hold exact zeros (the book's worked examples):
    terms with ``p_n = 0`` count as ``0 log 0 = 0``, and ``log p_n`` is taken of ``p_n`` clamped at
    ``1e-12``, so a zero where the prior has mass costs ``-log(1e-12) = 27.6`` nats per unit of prior
    mass in the reverse direction, finite but with no gradient. Training computes ``log p_n`` from
    the ``lambda_n`` instead (:class:`PonderNetLoss`).

    Args:
        halting_probs: ``p_n``, shape ``(B, N)``, rows summing to one; a ``p_n`` outside [0, 1] or
            NaN, or a row that does not sum to one, raises ``ValueError`` (a NaN would make the KL NaN
            without a word, such a row a negative KL), anything but a tensor ``TypeError``.
        lambda_p: prior parameter in (0, 1].
        direction: one of :data:`KL_DIRECTIONS`.
        truncation: how the prior is cut at ``N`` (:data:`ponderlib.mechanisms.halting.PRIOR_TRUNCATIONS`).
    """
    check_rank("halting_probs", halting_probs, 2, "(batch, max_ponder_steps)")
    check_distribution_rows("halting_probs", halting_probs)
    check_lambda_p(lambda_p)
    check_choice("direction", direction, KL_DIRECTIONS)
    prior = geometric_prior(lambda_p, halting_probs.shape[1], truncation, device=halting_probs.device)  # (N,)
    log_p = torch.log(halting_probs.clamp_min(_TINY))  # (B, N)
    return _kl(halting_probs, log_p, prior.to(halting_probs.dtype), direction)


def _kl(halting_probs: torch.Tensor, log_p: torch.Tensor, prior: torch.Tensor, direction: str) -> torch.Tensor:
    """The KL of :func:`kl_to_geometric` from ``p`` and ``log p`` ``(B, n)`` and the prior's first
    ``n`` steps ``(n,)``, or each sample's prior ``(B, n)`` (zero after its cut, where ``p`` is zero too,
    so those steps add nothing in either direction); no checks (hot path)."""
    log_prior = torch.log(prior.clamp_min(_TINY))  # lambda_p = 1 leaves steps 2..N without mass
    if direction == "paper":
        # Banino eq. 3, second term: L_Reg = KL(p_n || p_G(lambda_p)) = sum_n p_n (log p_n - log p_G(n))
        kl = halting_probs * (log_p - log_prior)  # (B, n): 0 where p_n = 0
    else:
        # the reverse direction, KL(p_G(lambda_p) || p_n) = sum_n p_G(n) (log p_G(n) - log p_n)
        kl = prior * (log_prior - log_p)  # (B, n)
    return kl.sum(dim=1).mean()


class PonderNetLoss(nn.Module):
    """PonderNet's loss ``L = L_Rec + beta * KL`` (Banino eq. 3) with its settings checked once.

    A training run builds one and calls it on every batch: ``lambda_p``, ``beta``, ``direction``,
    ``max_ponder_steps`` and ``truncation`` are validated here, and the prior, truncated at
    ``max_ponder_steps``, is built here, once, as the buffer ``prior`` (``(max_ponder_steps,)``,
    float32, not persistent: the settings rebuild it, so it is in no ``state_dict``). It follows
    ``.to()``: whoever builds the loss moves it to the inputs' device, ``PonderNetLoss(...).to(device)``.
    """

    prior: torch.Tensor

    def __init__(
        self,
        lambda_p: float,
        beta: float,
        direction: str = "paper",
        max_ponder_steps: int = 20,
        truncation: str = "normalised",
    ) -> None:
        super().__init__()
        check_non_negative("beta", beta)
        check_choice("direction", direction, KL_DIRECTIONS)
        self.beta = beta
        self.direction = direction
        self.lambda_p = lambda_p
        self.truncation = truncation
        # p_G(lambda_p), "truncated at N" (Banino sec. 2.4); checks lambda_p, max_ponder_steps and truncation
        self.register_buffer("prior", geometric_prior(lambda_p, max_ponder_steps, truncation), persistent=False)  # (N,)

    def extra_repr(self) -> str:
        return (
            f"lambda_p={self.lambda_p}, beta={self.beta}, direction={self.direction}, "
            f"max_ponder_steps={self.prior.shape[0]}, truncation={self.truncation}"
        )

    def forward(
        self,
        step_losses: torch.Tensor,
        halting_probs: torch.Tensor,
        log_halting_probs: torch.Tensor | None = None,
        steps: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(total, reconstruction, kl)`` for ``step_losses`` and ``halting_probs`` of shape ``(B, n_run)``.

        ``log_halting_probs`` ``(B, n_run)``: ``log p_n`` from the ``lambda_n``
        (:func:`ponderlib.mechanisms.halting.pondernet_log_halting`); without it, ``log`` of ``p_n`` clamped
        at ``1e-12``. ``n_run`` may be less than ``max_ponder_steps`` for the paper's direction
        only (the steps not run hold no mass); the reverse KL needs every step.

        ``steps`` ``(B,)``: each sample's ``N`` under Banino's training rule (``p`` cut there,
        :func:`~ponderlib.mechanisms.halting.truncate_at_mass`): the prior is then "truncated at N" for
        each sample (:func:`~ponderlib.mechanisms.halting.geometric_prior_cut`, this loss's
        ``truncation``), in either direction.

        Runs at every training update, so it checks only what is cheap: that the arguments are
        tensors (``TypeError``), their shapes, that the loss is on ``halting_probs``' device (all
        metadata), and that the loss is finite (one synchronisation, on the scalar). A NaN or infinite
        loss raises ``ValueError`` naming the argument that holds a NaN (or else an infinity) rather
        than training on it. The prior is cast to ``halting_probs``' dtype (float64 inputs get the
        float32 prior's values in float64).
        """
        ensure_tensor("step_losses", step_losses)
        ensure_tensor("halting_probs", halting_probs)
        if halting_probs.dim() != 2:
            raise ValueError(f"halting_probs must have rank 2, shape (batch, steps); got shape {tuple(halting_probs.shape)}")
        ensure_same_shape(halting_probs=halting_probs, step_losses=step_losses)
        if self.prior.device != halting_probs.device:
            raise ValueError(
                f"halting_probs is on {halting_probs.device} but the loss's prior on {self.prior.device}: "
                "build the loss with .to(device), as the model"
            )
        n_run = halting_probs.shape[1]
        if n_run > self.prior.shape[0]:
            raise ValueError(f"halting_probs must have at most max_ponder_steps = {self.prior.shape[0]} steps, got {n_run}")
        if steps is not None:
            ensure_tensor("steps", steps, " of shape (batch,)")
            ensure_same_shape(**{"halting_probs' batch": halting_probs[:, 0], "steps": steps})  # (B,)
            prior = geometric_prior_cut(self.lambda_p, steps, n_run, self.truncation, check=False).to(halting_probs.dtype)
        elif n_run < self.prior.shape[0] and self.direction == "reverse":
            raise ValueError(
                f"halting_probs must cover all max_ponder_steps = {self.prior.shape[0]} steps for the reverse KL, "
                f"got {n_run} (unroll fully: unroll_tolerance=0)"
            )
        else:
            prior = self.prior[:n_run].to(halting_probs.dtype)  # (n_run,)
        if log_halting_probs is None:
            log_halting_probs = torch.log(halting_probs.clamp_min(_TINY))
        ensure_tensor("log_halting_probs", log_halting_probs)
        ensure_same_shape(halting_probs=halting_probs, log_halting_probs=log_halting_probs)
        rec = reconstruction_loss(step_losses, halting_probs, check=False)  # L_Rec
        kl = _kl(halting_probs, log_halting_probs, prior, self.direction)  # L_Reg
        # Banino eq. 3: L = L_Rec + beta L_Reg
        total = rec + self.beta * kl
        fine = torch.isfinite(total)  # a NaN anywhere in the inputs makes the total NaN
        if steps is not None:
            fine = fine & ((steps >= 1) & (steps <= n_run)).all()  # an N_i out of range: a wrong prior
        if not bool(fine):  # one synchronisation for both
            if steps is not None:
                check_steps(steps, n_run)
            _explain_non_finite(halting_probs=halting_probs, log_halting_probs=log_halting_probs, step_losses=step_losses)
        return total, rec, kl


def _explain_non_finite(**inputs: torch.Tensor) -> None:
    """Raise ``ValueError`` naming the first of ``inputs`` that holds a NaN, else the first that holds
    an infinity (``0 * inf`` is NaN); only called once a loss has come out NaN or infinite."""
    for name, tensor in inputs.items():
        ensure_finite(name, tensor, allow_infinite=True)
    for name, tensor in inputs.items():
        ensure_finite(name, tensor)
    raise ValueError(f"the loss is not finite although {', '.join(inputs)} are: they overflow")


def binary_step_losses(step_logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy of every step's prediction: ``L(y, y_n)``, shape ``(B, N)``.

    Checks the arguments: tensors (``TypeError``), the shapes, finite logits and targets of 0 or 1
    (``ValueError`` naming them: a target of 2 gave a loss without a word). A run's training loss and
    step profile, on batches the library drew, call :func:`binary_step_losses_unchecked` (the value
    checks synchronise a GPU).

    Args:
        step_logits: logits ``y_n``, shape ``(B, N)``, finite.
        targets: 0/1 targets, shape ``(B,)``.
    """
    ensure_tensor("step_logits", step_logits)
    ensure_tensor("targets", targets)
    check_rank("step_logits", step_logits, 2, "(batch, max_ponder_steps)")
    ensure_same_shape(**{"step_logits' batch": step_logits[:, 0], "targets": targets})  # (B,)
    ensure_finite("step_logits", step_logits)
    if not bool(((targets == 0) | (targets == 1)).all()):
        raise ValueError(f"targets must be 0 or 1, found {targets[(targets != 0) & (targets != 1)][0].item()}")
    return binary_step_losses_unchecked(step_logits, targets)


def binary_step_losses_unchecked(step_logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """:func:`binary_step_losses` without its checks: for a model's own outputs on a batch the library drew
    (a training loss, a step profile)."""
    # the loss L(y, y^_n) of Banino eq. 3 at every step n: binary cross-entropy here
    return F.binary_cross_entropy_with_logits(
        step_logits, targets.to(step_logits.dtype).unsqueeze(1).expand_as(step_logits), reduction="none"
    )
