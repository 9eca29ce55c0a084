r"""Halting distributions: how ACT and PonderNet turn per-step halting signals into ``p_n``.

Both methods run a step function ``n = 1, 2, ...`` and emit, at every step, a number in [0, 1]
that says "stop here". They differ in how those numbers become a distribution over steps.

ACT (Graves 2016, "Adaptive Computation Time for Recurrent Neural Networks", arXiv v6, eqs. 6-8,
10 and 13). The halting units ``h_n`` are *added up*:

.. math::

    N(t) &= \min\Big\{ n' : \textstyle\sum_{n=1}^{n'} h_n \ge 1 - \epsilon \Big\} \qquad \text{(Graves eqs. 7, 13)} \\
    R(t) &= 1 - \textstyle\sum_{n=1}^{N(t)-1} h_n \qquad \text{(Graves eq. 8)} \\
    p_n &= R(t) \text{ if } n = N(t), \quad h_n \text{ if } n < N(t), \quad 0 \text{ after} \qquad \text{(Graves eq. 6)} \\
    \rho &= N(t) + R(t) \qquad \text{(Graves eq. 10)}

PonderNet (Banino et al. 2021, "PonderNet: Learning to Ponder", eqs. 1-2). The ``lambda_n`` are
*conditional* probabilities of halting at step ``n`` given that the network did not halt before,
``lambda_n = P(Lambda_n = 1 | Lambda_{n-1} = 0)`` (Banino eq. 1):

.. math::

    p_n = \lambda_n \prod_{j<n} (1 - \lambda_j) \qquad \text{(Banino eq. 2)}

truncated at ``max_ponder_steps``, where the last step absorbs all the mass left (``lambda_N := 1``), so
``p`` sums to one (one of the two truncations of Banino sec. 2.3). In log space (what the KL needs
where ``p_n`` is tiny):

.. math::

    \log p_n = \log \lambda_n + \sum_{j<n} \log(1 - \lambda_j)

The geometric prior ``p_G(lambda_p)`` of Banino eq. 3, ``p_G(n) = lambda_p (1 - lambda_p)^(n-1)``, must
be truncated at ``max_ponder_steps`` too, and there are two ways (:data:`PRIOR_TRUNCATIONS`): put the
tail mass ``(1 - lambda_p)^(N-1)`` on the last step, as ``p`` does, or divide by the mass kept,
``1 - (1 - lambda_p)^N``. The first makes the last step the prior's mode whenever
``(1 - lambda_p)^(N-1) > lambda_p`` (``lambda_p = 0.1``, ``N = 20``: 0.135 against 0.1).

The functions here take whole ``(B, N)`` tensors of halting values and are used both by the
models (step by step) and by the book's worked examples (all at once).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ponderlib.core.validation import (
    MAX_LENGTH,
    check_choice,
    check_fraction,
    check_int,
    check_lambda_p,
    check_probability_tensor,
    check_rank,
    ensure_in_range,
    ensure_tensor,
)

ROUNDING = 1e-6
"""How far below 0 (or above 1) a ``p_n`` computed in float32 may fall by rounding alone: ACT's remainder
``R = 1 - sum h_n`` with ``eps = 0`` can come out a hair negative."""

PRIOR_TRUNCATIONS = ("normalised", "last")
"""How :func:`geometric_prior` is cut at ``max_ponder_steps``. ``"normalised"`` (the default, chosen
by measurement in chapter 2): ``p_G(n) / sum_{m<=N} p_G(m)``, the geometric shape on every step.
``"last"``: the tail mass on the last step, like ``p`` itself; the last step can then hold more
prior mass than the first, and the KL rewards halting at the cap."""


@dataclass
class ACTHalting:
    """ACT's halting quantities for a batch, as Graves defines them.

    Attributes:
        halting_probs: ``p_n``, shape ``(B, N)``; rows sum to one.
        ponder_steps: ``N(t)``, shape ``(B,)``, integer dtype, ``1 <= N <= max_ponder_steps``. No gradient.
        remainder: ``R(t)``, shape ``(B,)``, in ``(0, 1]``. Carries the gradient of the ponder cost.
        ponder_cost: ``rho = N(t) + R(t)``, shape ``(B,)``.
    """

    halting_probs: torch.Tensor
    ponder_steps: torch.Tensor
    remainder: torch.Tensor
    ponder_cost: torch.Tensor


def act_halting(halting_units: torch.Tensor, eps: float = 0.01, check: bool = True) -> ACTHalting:
    """ACT's ``N(t)``, ``R(t)``, ``p_n`` and ``rho`` from a full sequence of halting units.

    Args:
        halting_units: ``h_n`` in [0, 1], shape ``(B, max_ponder_steps)``. The last column is the
            ``max_ponder_steps`` cap: a sample that has not crossed ``1 - eps`` by then halts there.
        eps: the slack in ``1 - eps`` (Graves eq. 7), in ``[0, 1)``. With ``eps > 0`` a single
            step can halt if ``h_1 >= 1 - eps``.
        check: check the arguments: a tensor (``TypeError`` otherwise), the rank, ``eps``, and every
            ``h_n`` in [0, 1], NaN refused (``ValueError`` naming ``halting_units``). The models pass
            False: ``eps`` was checked once when the model was built, their ``h_n`` is a sigmoid, and
            the value check would synchronise a GPU at every call.

    Returns:
        An :class:`ACTHalting` with ``halting_probs (B, max_ponder_steps)``, ``ponder_steps (B,)``,
        ``remainder (B,)`` and ``ponder_cost (B,)``.
    """
    if check:
        check_rank("halting_units", halting_units, 2, "(batch, max_ponder_steps)")
        check_probability_tensor("halting_units", halting_units)
        check_fraction("eps", eps, include_one=False)
    max_ponder_steps = halting_units.shape[1]
    # Graves eq. 13 (eq. 7 with the cap M): N(t) = min{M, min{n' : sum_{n=1}^{n'} h^n_t >= 1 - eps}}
    cumulative = halting_units.cumsum(dim=1)  # (B, N): sum_{n'<=n} h_n'
    crossed = cumulative >= 1.0 - eps  # (B, N)
    crossed[:, -1] = True  # the max_ponder_steps cap
    # N(t) is the first step whose running sum crosses 1 - eps (argmax of a bool picks the first True).
    ponder_steps = crossed.int().argmax(dim=1) + 1  # (B,)
    step_index = torch.arange(1, max_ponder_steps + 1, device=halting_units.device)  # (N,)
    before = step_index.unsqueeze(0) < ponder_steps.unsqueeze(1)  # (B, N): n < N(t)
    at = step_index.unsqueeze(0) == ponder_steps.unsqueeze(1)  # (B, N): n = N(t)
    # Graves eq. 8: R(t) = 1 - sum_{n=1}^{N(t)-1} h^n_t
    remainder = 1.0 - (halting_units * before).sum(dim=1)  # (B,)
    # Graves eq. 6: p^n_t = R(t) if n = N(t), h^n_t otherwise (n < N(t)); 0 after N(t)
    halting_probs = torch.where(before, halting_units, torch.zeros_like(halting_units))
    halting_probs = halting_probs + at * remainder.unsqueeze(1)
    return ACTHalting(
        halting_probs=halting_probs,
        ponder_steps=ponder_steps,
        remainder=remainder,
        ponder_cost=ponder_steps.to(halting_units.dtype) + remainder,  # Graves eq. 10: rho_t = N(t) + R(t)
    )


def pondernet_halting(lambdas: torch.Tensor, check: bool = True) -> torch.Tensor:
    """PonderNet's unconditional halting distribution ``p_n`` (Banino et al. 2021, eq. 2).

    ``p_n = lambda_n * prod_{j<n}(1 - lambda_j)`` for ``n < N`` and, for the last step,
    ``p_N = prod_{j<N}(1 - lambda_j)``: the truncation at ``N = max_ponder_steps`` puts all the mass not
    yet spent on the last step, so every row sums to one.

    Args:
        lambdas: ``lambda_n`` in [0, 1], shape ``(B, N)``. The last column is ignored (treated
            as 1) because the last step absorbs the leftover mass.
        check: check that ``lambdas`` is a tensor (``TypeError``) of rank 2 with every ``lambda_n``
            in [0, 1] (``ValueError`` naming ``lambdas`` otherwise, NaN included: a ``lambda_n``
            above 1 would make ``p`` negative). :class:`~ponderlib.mechanisms.pondernet.PonderNet`
            passes False and checks its step function's ``lambda_n`` itself, once per unroll.

    Returns:
        ``p``, shape ``(B, N)``, non-negative, rows summing to one. Differentiable everywhere,
        including at ``lambda`` exactly 0 or 1.
    """
    if check:
        check_rank("lambdas", lambdas, 2, "(batch, max_ponder_steps)")
        check_probability_tensor("lambdas", lambdas)
    # Banino eq. 2: p_n = lambda_n prod_{j=1}^{n-1} (1 - lambda_j), with lambda_N := 1 (sec. 2.3: the mass
    # left goes to the last step). Probability of still running when step n starts: prod_{j<n}(1 - lambda_j).
    ones = torch.ones_like(lambdas[:, :1])  # (B, 1)
    not_halted = torch.cat([ones, torch.cumprod(1.0 - lambdas[:, :-1], dim=1)], dim=1)  # (B, N)
    halt_here = torch.cat([lambdas[:, :-1], ones], dim=1)  # (B, N): lambda_N := 1
    return not_halted * halt_here


def pondernet_log_halting(lambdas: torch.Tensor, check: bool = True) -> torch.Tensor:
    """``log p_n`` of :func:`pondernet_halting` computed in log space (Banino eq. 2, logged).

    ``log p_n = log lambda_n + sum_{j<n} log(1 - lambda_j)`` for ``n < N`` and
    ``log p_N = sum_{j<N} log(1 - lambda_j)``. Where ``p_n`` underflows (``1e-30`` is ``0.01^15``),
    ``log p_n`` stays finite and its gradient ``1 / lambda_n`` and ``-1 / (1 - lambda_j)`` stays
    non-zero, where ``log`` of a clamped ``p_n`` would have a zero gradient. Each ``lambda`` is
    clamped to ``[tiny, 1 - eps]`` of its dtype first, so a ``lambda`` of exactly 0 or 1 gives a
    large finite value (and, there only, a zero gradient).

    Args:
        lambdas: ``lambda_n`` in [0, 1], shape ``(B, N)``; the last column is ignored.
        check: as for :func:`pondernet_halting` (the models pass False).

    Returns:
        ``log p``, shape ``(B, N)``, finite, with ``logsumexp`` over steps 0.
    """
    if check:
        check_rank("lambdas", lambdas, 2, "(batch, max_ponder_steps)")
        check_probability_tensor("lambdas", lambdas)
    # log of Banino eq. 2: log p_n = log lambda_n + sum_{j=1}^{n-1} log(1 - lambda_j), lambda_N := 1
    info = torch.finfo(lambdas.dtype)
    clamped = lambdas.clamp(info.tiny, 1.0 - info.eps)  # (B, N)
    log_continue = torch.log1p(-clamped[:, :-1])  # (B, N-1): log(1 - lambda_j)
    zeros = torch.zeros_like(lambdas[:, :1])  # (B, 1)
    log_not_halted = torch.cat([zeros, log_continue.cumsum(dim=1)], dim=1)  # (B, N): sum_{j<n} log(1 - lambda_j)
    log_halt_here = torch.cat([torch.log(clamped[:, :-1]), zeros], dim=1)  # (B, N): log lambda_n, log 1 at N
    return log_not_halted + log_halt_here


def geometric_prior(
    lambda_p: float,
    max_ponder_steps: int,
    truncation: str = "normalised",
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """The geometric prior ``p_G(n) = lambda_p (1 - lambda_p)^(n-1)`` truncated at ``N = max_ponder_steps``.

    ``truncation="normalised"``: ``p_G(n) / (1 - (1 - lambda_p)^N)`` for ``n = 1..N``, every step
    in the geometric ratio ``1 - lambda_p``; mean ``1/lambda_p - N (1-lambda_p)^N / (1 - (1-lambda_p)^N)``.
    ``truncation="last"``: ``p_G(n)`` for ``n < N`` and the tail ``(1 - lambda_p)^(N-1)`` on step
    ``N``: the halting distribution of a network whose ``lambda_n`` is ``lambda_p`` at every step,
    mean ``(1 - (1 - lambda_p)^N) / lambda_p``. Both means tend to ``1 / lambda_p`` as ``N`` grows.

    Args:
        lambda_p: in (0, 1].
        max_ponder_steps: ``N >= 1``, the cap the network's own ``p`` is truncated at; a training
            unroll that stops earlier does not change it.
        truncation: one of :data:`PRIOR_TRUNCATIONS`.

    Returns:
        shape ``(max_ponder_steps,)``, dtype float32, summing to one.
    """
    check_lambda_p(lambda_p)
    check_int("max_ponder_steps", max_ponder_steps, minimum=1, maximum=MAX_LENGTH)
    check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
    # the geometric prior p_G(lambda_p) of Banino eq. 3, p_G(n) = lambda_p (1 - lambda_p)^(n-1): eq. 2 with
    # every lambda_n = lambda_p, the tail on step N ("last"), or cut to p_G(N) and renormalised
    lambdas = torch.full((1, max_ponder_steps), float(lambda_p), dtype=torch.float64, device=device)
    prior = pondernet_halting(lambdas, check=False)[0]  # (N,): the tail on step N
    if truncation == "normalised":
        prior[-1] = prior[-1] * lambda_p  # p_G(N) itself; the rest of the tail is dropped
        prior = prior / prior.sum()
    return prior.float()


@dataclass
class MassTruncation:
    """PonderNet's halting distribution cut at each sample's own ``N`` (:func:`truncate_at_mass`).

    Attributes:
        halting_probs: ``p_n`` cut at ``N_i``, shape ``(B, n)``, rows summing to one, 0 after ``N_i``.
        log_halting_probs: ``log p_n`` of those, computed in log space, 0 after ``N_i``.
        steps: ``N_i``, shape ``(B,)``, int64, in ``[1, n]``.
    """

    halting_probs: torch.Tensor
    log_halting_probs: torch.Tensor
    steps: torch.Tensor


def truncate_at_mass(lambdas: torch.Tensor, eps: float, truncation: str = "last", check: bool = True) -> MassTruncation:
    """Banino et al.'s training ``N`` (sec. 2.3), per sample, and ``p_n`` cut there.

    ``N_i`` is "the smallest value of n such that sum_{j=1}^{n} p_j > 1 - eps" (the paper's ``eps`` is
    0.05), with ``p_j = lambda_j prod_{k<j}(1 - lambda_k)`` over the ``n`` steps run, or ``n`` where no
    step reaches it. The distribution is then cut at ``N_i`` as the paper offers: ``truncation="last"``
    assigns "any remaining halting probability to the last step" (``p_{N_i} = prod_{j<N_i}(1 - lambda_j)``,
    :func:`pondernet_halting` of the first ``N_i`` steps); ``"normalised"`` divides ``p_1..p_{N_i}`` by their
    sum. With ``eps = 0`` and ``"last"`` it is :func:`pondernet_halting` on every step run.

    Args:
        lambdas: ``lambda_n`` in [0, 1], shape ``(B, n)``, every step run (the last one counts here).
        eps: in [0, 1).
        truncation: one of :data:`PRIOR_TRUNCATIONS`.
        check: check the arguments (``TypeError``/``ValueError`` naming them); a training loss passes False.
    """
    if check:
        check_rank("lambdas", lambdas, 2, "(batch, steps)")
        check_probability_tensor("lambdas", lambdas)
        check_fraction("eps", eps, include_one=False)
        check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
    info = torch.finfo(lambdas.dtype)
    clamped = lambdas.clamp(info.tiny, 1.0 - info.eps)  # (B, n), as pondernet_log_halting
    zeros = torch.zeros_like(lambdas[:, :1])  # (B, 1)
    log_not_halted = torch.cat([zeros, torch.log1p(-clamped[:, :-1]).cumsum(dim=1)], dim=1)  # (B, n)
    log_uncut = log_not_halted + torch.log(clamped)  # (B, n): log of Banino eq. 2, no tail
    # Banino sec. 2.3: N is the smallest n such that sum_{j=1}^{n} p_j > 1 - eps
    reached = log_uncut.exp().cumsum(dim=1) > 1.0 - eps  # (B, n)
    n = lambdas.shape[1]
    steps = torch.where(reached.any(dim=1), reached.int().argmax(dim=1) + 1, n)  # (B,): the first step reached
    position = torch.arange(1, n + 1, device=lambdas.device)  # (n,)
    kept = position <= steps[:, None]  # (B, n)
    if truncation == "last":
        log_p = torch.where(position == steps[:, None], log_not_halted, log_uncut)
    else:
        log_p = log_uncut - torch.logsumexp(log_uncut.masked_fill(~kept, float("-inf")), dim=1, keepdim=True)
    log_p = log_p.masked_fill(~kept, 0.0)
    return MassTruncation(halting_probs=log_p.exp() * kept, log_halting_probs=log_p, steps=steps)


def geometric_prior_cut(
    lambda_p: float, steps: torch.Tensor, n: int, truncation: str = "normalised", check: bool = True
) -> torch.Tensor:
    """The geometric prior "truncated at N" for each sample's own ``N`` (:func:`truncate_at_mass`): row
    ``i`` is :func:`geometric_prior` truncated at ``steps[i]``, zero after it, padded to ``n`` steps.

    Args:
        lambda_p: in (0, 1].
        steps: ``N_i``, shape ``(B,)``, integers in ``[1, n]``.
        n: the steps run, ``>= 1``.
        truncation: one of :data:`PRIOR_TRUNCATIONS`.
        check: check the arguments (``TypeError``/``ValueError`` naming them: a ``steps`` of 0 made a
            row of NaN, one above ``n`` a row that does not sum to one); :class:`~ponderlib.mechanisms.losses.PonderNetLoss`
            passes False and checks ``steps`` with the loss's one synchronisation.

    Returns:
        shape ``(B, n)``, float32 on ``steps``' device, rows summing to one.
    """
    if check:
        check_lambda_p(lambda_p)
        check_int("n", n, minimum=1, maximum=MAX_LENGTH)
        check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
        check_steps(steps, n)
    position = torch.arange(1, n + 1, dtype=torch.float64, device=steps.device)  # (n,)
    # the geometric prior of Banino eq. 3, p_G(n) = lambda_p (1 - lambda_p)^(n-1), truncated at each N_i
    geometric = lambda_p * (1.0 - lambda_p) ** (position - 1)  # (n,): p_G(n), untruncated
    cut = steps[:, None].to(torch.float64)  # (B, 1)
    if truncation == "normalised":
        prior = torch.where(position <= cut, geometric, 0.0) / (1.0 - (1.0 - lambda_p) ** cut)
    else:  # the tail (1 - lambda_p)^(N-1) on step N
        prior = torch.where(position < cut, geometric, 0.0) + torch.where(position == cut, (1.0 - lambda_p) ** (cut - 1), 0.0)
    return prior.float()


def check_steps(steps: torch.Tensor, n: int) -> None:
    """``TypeError`` unless ``steps`` is a tensor; ``ValueError`` unless it holds integers ``N_i`` in
    ``[1, n]``, shape ``(B,)`` (each sample's training ``N``, :func:`truncate_at_mass`)."""
    ensure_tensor("steps", steps, " of shape (batch,)")
    if steps.dim() != 1 or steps.is_floating_point() or steps.is_complex() or steps.dtype == torch.bool:
        raise ValueError(f"steps must be integers of shape (batch,), got {steps.dtype} {tuple(steps.shape)}")
    ensure_in_range("steps", steps, 1, n)


def expected_ponder_steps(halting_probs: torch.Tensor) -> torch.Tensor:
    """``E[n] = sum_n n * p_n`` for ``p`` of shape ``(B, N)``; returns shape ``(B,)``.

    Raises ``TypeError`` unless ``halting_probs`` is a tensor, and ``ValueError`` naming it for a
    ``p_n`` outside [0, 1] or NaN (a NaN would make ``E[n]`` NaN without a word, a negative weight a mean
    below one step). Rows need not sum to one (an unroll cut short), and an ACT remainder rounded a hair
    below zero (``eps = 0``, within :data:`ROUNDING`) is no error.
    """
    check_rank("halting_probs", halting_probs, 2, "(batch, max_ponder_steps)")
    ensure_in_range("halting_probs", halting_probs, -ROUNDING, 1.0 + ROUNDING)
    steps = torch.arange(1, halting_probs.shape[1] + 1, device=halting_probs.device, dtype=halting_probs.dtype)
    return (halting_probs * steps).sum(dim=1)
