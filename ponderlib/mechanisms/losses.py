r"""Losses: ACT's ponder cost and PonderNet's reconstruction + KL regulariser.

ACT (Graves 2016, eq. 12):  ``L = L_task(y, mean-field output) + tau * rho``, ``rho = N + R``.
``N`` is an integer and has no gradient, so ``d rho / d theta = d R / d theta`` (Graves eq. 14): the penalty acts
only through the remainder, by pushing the halting units *before* ``N`` up (``R = 1 - sum h_n``).

PonderNet (Banino et al. 2021, eq. 3):

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
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

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
from ponderlib.mechanisms.halting import PRIOR_TRUNCATIONS, check_steps, geometric_prior, geometric_prior_cut

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
    allowed = (prior > 0).to(step_losses.device)  # (N,): steps the prior gives weight
    losses = step_losses.double()  # (..., N)
    least = torch.where(allowed, losses, math.inf).amin(dim=-1, keepdim=True)  # (..., 1)
    log_prior = torch.log(prior.to(losses))  # (N,)
    logits = torch.where(allowed, log_prior - (losses - least) / beta, -math.inf)  # (..., N)
    return torch.softmax(logits, dim=-1).to(step_losses.dtype)


class ACTLoss:
    """ACT's total loss ``L_task + tau * mean(rho)`` (Graves eqs. 11-12) with ``tau`` checked once.

    A training run builds one and calls it on every batch, so ``tau`` is not re-checked per
    training update (:func:`act_loss` is the checked one-call form).
    """

    def __init__(self, tau: float) -> None:
        check_non_negative("tau", tau)
        self.tau = tau

    def __call__(self, task_loss: torch.Tensor, ponder_cost: torch.Tensor) -> torch.Tensor:
        """``task_loss`` (scalar) plus ``tau`` times the mean ``ponder_cost`` (``(B,)``, or ``(B, T)`` for a sequence).

        Runs at every training update, so it checks only what is cheap: two tensors (``TypeError``),
        a scalar ``task_loss`` and a non-empty ``ponder_cost`` (metadata), and that the loss is finite
        (one synchronisation, on the scalar, as :class:`PonderNetLoss`): a NaN or infinite loss raises
        ``ValueError`` naming the argument that holds it rather than training on it. :func:`act_loss`
        checks ``ponder_cost``'s values too."""
        ensure_tensor("task_loss", task_loss, " (a scalar)")
        ensure_tensor("ponder_cost", ponder_cost)
        if task_loss.dim() != 0:
            raise ValueError(f"task_loss must be a scalar (the batch's mean), got shape {tuple(task_loss.shape)}")
        if ponder_cost.numel() == 0:
            raise ValueError(f"ponder_cost must hold one rho per sample, got shape {tuple(ponder_cost.shape)}")
        total = task_loss + self.tau * ponder_cost.mean()
        if not bool(torch.isfinite(total)):
            _explain_non_finite(task_loss=task_loss, ponder_cost=ponder_cost)
        return total


def act_loss(task_loss: torch.Tensor, ponder_cost: torch.Tensor, tau: float) -> torch.Tensor:
    """ACT's total loss ``L_task + tau * mean(rho)`` (Graves eqs. 11-12, averaged over the batch).

    Args:
        task_loss: scalar task loss of the mean-field output.
        ponder_cost: ``rho = N + R`` per sample, shape ``(B,)`` (or ``(B, T)`` for a sequence), each
            ``>= 0`` (``>= 1`` where a sample pondered, 0 at a padded position); a negative one, or NaN,
            raises ``ValueError``: a negative ``rho`` would reward pondering.
        tau: time penalty, ``>= 0``.
    """
    loss = ACTLoss(tau)
    ensure_tensor("ponder_cost", ponder_cost)
    ensure_in_range("ponder_cost", ponder_cost, 0.0, math.inf)
    return loss(task_loss, ponder_cost)


def reconstruction_loss(step_losses: torch.Tensor, halting_probs: torch.Tensor) -> torch.Tensor:
    """PonderNet's ``L_Rec = sum_n p_n L(y, y_n)``, averaged over the batch (the first term of Banino eq. 3).

    Args:
        step_losses: ``L(y, y_n)`` per sample and step, shape ``(B, N)``.
        halting_probs: ``p_n``, shape ``(B, N)``.

    Returns:
        scalar. Unlike ACT's, its gradient reaches every ``lambda_n``: each step's loss is weighted
        by a differentiable probability, so the gradient of this expectation is exact.

    Raises ``TypeError`` for arguments that are not tensors and ``ValueError`` for mismatched
    shapes, a ``p_n`` outside [0, 1] (NaN included), a row of ``p`` that does not sum to one, or a step's
    loss that is negative or NaN.
    """
    _check_step_losses(step_losses, halting_probs)
    return (halting_probs * step_losses).sum(dim=1).mean()


def _check_step_losses(step_losses: torch.Tensor, halting_probs: torch.Tensor) -> None:
    """The checks of the one-call forms: two ``(B, N)`` tensors of one shape, every ``p_n`` in [0, 1], each
    row of ``p`` a distribution, every step's loss finite and ``>= 0`` (a loss, as ``L(y, y_n)`` is)."""
    check_rank("step_losses", step_losses, 2, "(batch, max_ponder_steps)")
    check_rank("halting_probs", halting_probs, 2, "(batch, max_ponder_steps)")
    ensure_same_shape(halting_probs=halting_probs, step_losses=step_losses)
    check_distribution_rows("halting_probs", halting_probs)
    ensure_in_range("step_losses", step_losses, 0.0, math.inf)


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
        kl = halting_probs * (log_p - log_prior)  # (B, n): 0 where p_n = 0
    else:
        kl = prior * (log_prior - log_p)  # (B, n)
    return kl.sum(dim=1).mean()


class PonderNetLoss:
    """PonderNet's loss ``L = L_Rec + beta * KL`` (Banino eq. 3) with its settings checked once.

    A training run builds one and calls it on every batch: ``lambda_p``, ``beta``, ``direction``
    and ``truncation`` are validated here, and the prior, truncated at ``max_ponder_steps``, is
    built here, so nothing is re-checked or rebuilt per training update.
    """

    def __init__(
        self,
        lambda_p: float,
        beta: float,
        direction: str = "paper",
        max_ponder_steps: int = 20,
        truncation: str = "normalised",
    ) -> None:
        check_non_negative("beta", beta)
        check_choice("direction", direction, KL_DIRECTIONS)
        check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
        self.beta = beta
        self.direction = direction
        self.lambda_p = lambda_p
        self.truncation = truncation
        self.prior = geometric_prior(lambda_p, max_ponder_steps, truncation)  # (N,)

    def __call__(
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
        tensors (``TypeError``), and that the loss is finite (one synchronisation, on the scalar). A
        NaN or infinite loss raises ``ValueError`` naming the argument that holds a NaN (or else an
        infinity) rather than training on it.
        """
        ensure_tensor("step_losses", step_losses)
        ensure_tensor("halting_probs", halting_probs)
        if halting_probs.dim() != 2:
            raise ValueError(f"halting_probs must have rank 2, shape (batch, steps); got shape {tuple(halting_probs.shape)}")
        ensure_same_shape(halting_probs=halting_probs, step_losses=step_losses)
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
        if self.prior.device != halting_probs.device or self.prior.dtype != halting_probs.dtype:
            self.prior = self.prior.to(device=halting_probs.device, dtype=halting_probs.dtype)
        if steps is None:
            prior = self.prior[:n_run]  # (n_run,)
        if log_halting_probs is None:
            log_halting_probs = torch.log(halting_probs.clamp_min(_TINY))
        ensure_tensor("log_halting_probs", log_halting_probs)
        ensure_same_shape(halting_probs=halting_probs, log_halting_probs=log_halting_probs)
        rec = (halting_probs * step_losses).sum(dim=1).mean()  # L_Rec, as reconstruction_loss
        kl = _kl(halting_probs, log_halting_probs, prior, self.direction)
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


def pondernet_loss(
    step_losses: torch.Tensor,
    halting_probs: torch.Tensor,
    lambda_p: float,
    beta: float,
    direction: str = "paper",
    truncation: str = "normalised",
    log_halting_probs: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``L = L_Rec + beta * KL`` (Banino eq. 3); returns ``(total, reconstruction, kl)``, all scalars.

    Shapes: ``step_losses``, ``halting_probs`` and ``log_halting_probs`` ``(B, N)``; the prior is
    truncated at ``N``. Checks its arguments (``TypeError`` for anything but tensors, ``ValueError``
    for mismatched shapes, a ``p_n`` outside [0, 1] or NaN, a NaN loss); a training loop uses a
    :class:`PonderNetLoss` built once instead.
    """
    _check_step_losses(step_losses, halting_probs)
    loss = PonderNetLoss(lambda_p, beta, direction, halting_probs.shape[1], truncation)
    return loss(step_losses, halting_probs, log_halting_probs)


def binary_step_losses(step_logits: torch.Tensor, targets: torch.Tensor, check: bool = True) -> torch.Tensor:
    """Binary cross-entropy of every step's prediction: ``L(y, y_n)``, shape ``(B, N)``.

    Args:
        step_logits: logits ``y_n``, shape ``(B, N)``, finite.
        targets: 0/1 targets, shape ``(B,)``.
        check: check the arguments: tensors (``TypeError``), the shapes, finite logits and targets of 0
            or 1 (``ValueError`` naming them: a target of 2 gave a loss without a word). A training loss
            whose batches the library drew passes False (the value checks synchronise a GPU).
    """
    ensure_tensor("step_logits", step_logits)
    ensure_tensor("targets", targets)
    if check:
        check_rank("step_logits", step_logits, 2, "(batch, max_ponder_steps)")
        ensure_same_shape(**{"step_logits' batch": step_logits[:, 0], "targets": targets})  # (B,)
        ensure_finite("step_logits", step_logits)
        if not bool(((targets == 0) | (targets == 1)).all()):
            raise ValueError(f"targets must be 0 or 1, found {targets[(targets != 0) & (targets != 1)][0].item()}")
    return F.binary_cross_entropy_with_logits(
        step_logits, targets.to(step_logits.dtype).unsqueeze(1).expand_as(step_logits), reduction="none"
    )
