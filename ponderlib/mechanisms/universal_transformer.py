r"""The Universal Transformer encoder (Dehghani et al. 2019), with per-position halting.

One shared self-attention block is applied again and again to every position of a sequence; a
*ponder step* ``n`` is one application. Before step ``n`` the state gets the coordinate embedding
``P^n``, the sum of a sinusoidal signal of the position ``i`` and one of the ponder step ``n``
(Dehghani sec. 2.1, "position and time-step embedding"):

.. math::

    P^n_{i,2j} &= \sin(i / 10000^{2j/d}) + \sin(n / 10000^{2j/d}) \\
    P^n_{i,2j+1} &= \cos(i / 10000^{2j/d}) + \cos(n / 10000^{2j/d})

and the block is post-norm, as in the paper (sec. 2.1):

.. math::

    A^n &= \operatorname{LayerNorm}\big((H^{n-1} + P^n)
        + \operatorname{MultiHeadSelfAttention}(H^{n-1} + P^n)\big) \\
    H^n &= \operatorname{LayerNorm}\big(A^n + \operatorname{Transition}(A^n)\big)

Halting, per position ``i`` (sec. 2.2 and the ACT code of Appendix C): the halting unit reads the
state that enters step ``n``, ``h^n_i = sigmoid(w^T (H^{n-1}_i + P^n_i) + b)``. With ``method="act"``
these are ACT's halting units, and :func:`ponderlib.mechanisms.halting.act_halting` turns them into ``N_i``,
``R_i`` and ``p^n_i`` (Graves eqs. 6-8, 13); the output state of position ``i`` is the mean field
``sum_n p^n_i H^n_i`` (Graves eq. 9; the ``act_type="accumulated"`` variant of the paper's code, whose
default instead interpolates ``H <- w H^n + (1 - w) H``). With ``method="pondernet"`` they are
PonderNet's ``lambda^n_i`` (Banino eq. 1), and :func:`ponderlib.mechanisms.halting.pondernet_halting` gives
``p^n_i``. ``method="fixed"`` is the baseline: the same block applied ``max_ponder_steps`` times.

A position that has halted is no longer updated: its state is copied to the next step, and the
other positions can still attend to it. Padding is masked out of the attention, and the input is set
to zero there before the first step (by ``torch.where``: a NaN at a padded key would make every
weighted sum NaN, even with weight 0), so whatever a padded position of the input holds, NaN and
infinities included, the real positions' outputs are those of zeros there. The loop runs the whole
batch with masks and stops as soon as every position of every sequence has halted.
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
    check_finite,
    check_fraction,
    check_int,
    check_rank,
    check_sizes,
    ensure_generator,
    ensure_model_input,
    ensure_same_device,
    ensure_tensor,
)
from ponderlib.mechanisms.attention import zero_padding
from ponderlib.mechanisms.halting import act_halting, pondernet_halting
from ponderlib.mechanisms.pondernet import HALTING_RULES

METHODS = ("act", "pondernet", "fixed")
"""How the encoder decides how many ponder steps each position gets."""


def coordinate_embedding(length: int, ponder_step: int, d_model: int) -> torch.Tensor:
    """The position and ponder-step signal ``P^n`` of Dehghani sec. 2.1, shape ``(length, d_model)``.

    Positions ``i = 1..length`` and the ponder step ``n`` are both counted from one, as in the paper.
    """
    check_sizes(length=length, ponder_step=ponder_step)
    if not isinstance(d_model, int) or isinstance(d_model, bool) or d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be an even integer >= 2, got {d_model!r}")
    frequencies = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (D/2,)
    positions = torch.arange(1, length + 1, dtype=torch.float64).unsqueeze(1) * frequencies  # (T, D/2)
    step = ponder_step * frequencies  # (D/2,)
    embedding = torch.empty(length, d_model, dtype=torch.float64)
    embedding[:, 0::2] = torch.sin(positions) + torch.sin(step)
    embedding[:, 1::2] = torch.cos(positions) + torch.cos(step)
    return embedding.float()


class SharedBlock(nn.Module):
    """The block every ponder step applies: post-norm self-attention, then a position-wise transition.

    ``A = LayerNorm(x + MultiHeadSelfAttention(x))``, ``H = LayerNorm(A + Transition(A))`` (Dehghani
    sec. 2.1) with ``Transition = Linear -> ReLU -> Linear``.
    """

    def __init__(self, d_model: int, heads: int, d_transition: int) -> None:
        super().__init__()
        check_counts(MAX_WIDTH, d_model=d_model, heads=heads, d_transition=d_transition)
        if d_model % heads:
            raise ValueError(f"heads must divide d_model = {d_model}, got heads = {heads}")
        self.attention = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.attention_norm = nn.LayerNorm(d_model)
        self.transition = nn.Sequential(nn.Linear(d_model, d_transition), nn.ReLU(), nn.Linear(d_transition, d_model))
        self.transition_norm = nn.LayerNorm(d_model)

    def forward(self, x: torch.Tensor, padding_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x`` ``(B, T, D)``, ``padding_mask`` ``(B, T)`` (True at padding) -> ``H`` ``(B, T, D)`` and
        the attention weights ``(B, T, T)`` (query, key), averaged over heads.

        The padded rows of ``x`` must be finite and moderate: a padded key gets weight 0, but
        ``0 * NaN`` is NaN and a huge key's score plus the mask's ``-inf`` can be NaN too.
        :class:`UniversalTransformer` zeroes them once, before its first step (zeroing them here, at
        every step, would reorder the backward pass's sums and so change trained weights in their
        last bits)."""
        attended, weights = self.attention(x, x, x, key_padding_mask=padding_mask, need_weights=True)
        a = self.attention_norm(x + attended)  # (B, T, D)
        return self.transition_norm(a + self.transition(a)), weights


@dataclass
class UTOutput:
    """What one pass of the encoder returns for ``B`` sequences of ``T`` positions.

    Attributes:
        state: the state each position hands on, ``(B, T, D)``: the ACT mean field
            ``sum_n p^n_i H^n_i``; for PonderNet's training pass the same average under its ``p^n_i``
            (the loss uses ``step_states``), at inference the state at the step it halted; for the
            fixed depth the last step's.
        step_states: ``H^n`` for every ponder step run, ``(B, T, n_run, D)``; constant after a
            position halted; zero at padding.
        halting_probs: ``p^n_i``, ``(B, T, n_run)``; rows sum to one at real positions.
        ponder_steps: ponder steps each position ran, ``(B, T)``, int64; 0 at padding.
        ponder_cost: ACT's ``rho_i = N_i + R_i`` (Graves eq. 10), ``(B, T)``; 0 at padding; for the
            other halting modes ``ponder_steps`` as floats.
        attention: each position's attention weights at its last ponder step, ``(B, T, T)``.
    """

    state: torch.Tensor
    step_states: torch.Tensor
    halting_probs: torch.Tensor
    ponder_steps: torch.Tensor
    ponder_cost: torch.Tensor
    attention: torch.Tensor


class UniversalTransformer(nn.Module):
    """A Universal Transformer encoder with per-position halting.

    Args:
        d_model: state size ``D`` (even).
        heads: attention heads; must divide ``d_model``.
        d_transition: hidden size of the transition function.
        max_ponder_steps: the cap on ponder steps per position (ACT's ``M``, PonderNet's ``N``); for
            ``method="fixed"`` the number of applications of the block.
        method: one of :data:`METHODS`.
        eps: ACT's slack in ``1 - eps``, in ``[0, 1)``.
        halting_bias_init: initial bias of the halting unit; 1 (as Graves) makes ACT ponder two
            steps or so at first.
    """

    def __init__(
        self,
        d_model: int = 32,
        heads: int = 2,
        d_transition: int = 64,
        max_ponder_steps: int = 8,
        method: str = "act",
        eps: float = 0.01,
        halting_bias_init: float = 1.0,
    ) -> None:
        super().__init__()
        check_int("max_ponder_steps", max_ponder_steps, minimum=1, maximum=MAX_LENGTH)
        check_choice("method", method, METHODS)
        check_fraction("eps", eps, include_one=False)
        check_finite("halting_bias_init", halting_bias_init)
        coordinate_embedding(1, 1, d_model)  # checks d_model
        self.block = SharedBlock(d_model, heads, d_transition)
        if method != "fixed":
            self.halting_unit = nn.Linear(d_model, 1)  # h^n_i (ACT) or lambda^n_i (PonderNet)
            nn.init.constant_(self.halting_unit.bias, halting_bias_init)
        self.d_model = d_model
        self.max_ponder_steps = max_ponder_steps
        self.method = method
        self.eps = eps

    def forward(
        self,
        x: torch.Tensor,
        padding_mask: torch.Tensor | None = None,
        halting_rule: str | None = None,
        generator: torch.Generator | None = None,
    ) -> UTOutput:
        """Ponder on embedded inputs ``x`` ``(B, T, D)``.

        Args:
            padding_mask: ``(B, T)`` bool, True at padding (None: no padding). Every sequence must
                have at least one real position. What ``x`` holds at padding is never read: the
                state there is zero.
            halting_rule: PonderNet only. None: the training pass, every position runs
                ``max_ponder_steps`` steps and ``p^n_i`` weights them all. ``"sample"`` (the
                paper) or ``"median"``: halt for real at inference, see
                :data:`ponderlib.mechanisms.pondernet.HALTING_RULES`.
            generator: for ``"sample"``.
        """
        check_rank("x", x, 3, "(batch, length, d_model)")
        if x.shape[1] > MAX_LENGTH:  # the attention weights are (B, T, T) at every ponder step
            raise ValueError(f"x's length must be at most {MAX_LENGTH} positions, got shape {tuple(x.shape)}")
        ensure_model_input("x", x, self, self.d_model, "d_model")
        ensure_generator("generator", generator)
        if padding_mask is None:
            padding_mask = torch.zeros(x.shape[:2], dtype=torch.bool, device=x.device)
        ensure_tensor("padding_mask", padding_mask, f" of shape {tuple(x.shape[:2])}")
        ensure_same_device(x=x, padding_mask=padding_mask)
        if padding_mask.shape != x.shape[:2] or padding_mask.dtype != torch.bool:
            raise ValueError(f"padding_mask must be a bool tensor of shape {tuple(x.shape[:2])}, got {padding_mask.dtype} {tuple(padding_mask.shape)}")
        if bool(padding_mask.all(dim=1).any()):
            raise ValueError("padding_mask pads a whole sequence; every sequence needs at least one real position")
        if not bool(torch.isfinite(x[~padding_mask]).all()):  # padding is never read; a real NaN would spread
            raise ValueError("x holds a NaN or an infinity at a real (unpadded) position")
        if halting_rule is not None:
            if self.method != "pondernet":
                raise ValueError(f"halting_rule is for method='pondernet', this encoder has method={self.method!r}")
            check_choice("halting_rule", halting_rule, HALTING_RULES)
        return self._ponder(x, padding_mask, halting_rule, generator)

    def _ponder(
        self, x: torch.Tensor, padding_mask: torch.Tensor, halting_rule: str | None, generator: torch.Generator | None
    ) -> UTOutput:
        batch, length, _ = x.shape
        state = zero_padding(x, ~padding_mask)  # H^0: (B, T, D), zero at padding
        halted = padding_mask.clone()  # (B, T): padding never runs
        halted_at = torch.zeros(batch, length, dtype=torch.long, device=x.device)  # (B, T): halting step, 0 = not yet
        halting_sum = x.new_zeros(batch, length)  # ACT: sum_n h^n; PonderNet median: sum_n p^n
        not_halted_prob = x.new_ones(batch, length)  # PonderNet median: prod_{j<n}(1 - lambda_j)
        attention = x.new_zeros(batch, length, length)  # (B, T, T)
        states, signals = [], []
        for n in range(1, self.max_ponder_steps + 1):
            entering = state + coordinate_embedding(length, n, self.d_model).to(x.device, x.dtype)  # H^{n-1} + P^n
            new_state, weights = self.block(entering, padding_mask)  # (B, T, D), (B, T, T)
            running = ~halted  # (B, T)
            state = torch.where(running.unsqueeze(2), new_state, state)  # halted positions keep their state
            attention = torch.where(running.unsqueeze(2), weights, attention)
            states.append(state)
            last = n == self.max_ponder_steps
            if self.method == "fixed":
                halt_now = running & last
            else:
                signal = torch.sigmoid(self.halting_unit(entering)).squeeze(2)  # (B, T): h^n or lambda^n
                signals.append(signal)
                if self.method == "act":
                    halting_sum = halting_sum + signal.detach()
                    halt_now = running & ((halting_sum >= 1.0 - self.eps) | last)
                elif halting_rule == "sample":
                    draw = torch.rand(signal.shape, generator=generator, device=x.device, dtype=x.dtype)
                    halt_now = running & ((draw < signal) | last)
                elif halting_rule == "median":
                    halting_sum = halting_sum + not_halted_prob * signal
                    not_halted_prob = not_halted_prob * (1.0 - signal)
                    halt_now = running & ((halting_sum >= 0.5) | last)
                else:  # PonderNet's training pass runs every step
                    halt_now = running & last
            halted_at = torch.where(halt_now, n, halted_at)
            halted = halted | halt_now
            if bool(halted.all()):
                break  # every position has halted: later steps would change nothing
        return self._collect(torch.stack(states, dim=2), signals, halted_at, padding_mask, attention, halting_rule)

    def _collect(
        self,
        step_states: torch.Tensor,
        signals: list[torch.Tensor],
        halted_at: torch.Tensor,
        padding_mask: torch.Tensor,
        attention: torch.Tensor,
        halting_rule: str | None,
    ) -> UTOutput:
        """Halting distribution, ponder steps and output state from the loop's record."""
        batch, length, n_run, _ = step_states.shape
        real = ~padding_mask  # (B, T)
        if signals and not bool(torch.isfinite(torch.stack(signals, dim=2)[real]).all()):  # one synchronisation
            raise ValueError("the halting signals h^n are not finite: x holds a NaN or an infinity at a real position")
        if self.method == "act":
            act = act_halting(torch.stack(signals, dim=2).reshape(batch * length, n_run), self.eps, check=False)
            halting_probs = act.halting_probs.reshape(batch, length, n_run)
            ponder_steps = torch.where(real, act.ponder_steps.reshape(batch, length), 0)
            ponder_cost = torch.where(real, act.ponder_cost.reshape(batch, length), 0.0)
        else:
            steps = torch.arange(1, n_run + 1, device=step_states.device)  # (n_run,)
            if self.method == "pondernet" and halting_rule is None:
                lambdas = torch.stack(signals, dim=2).reshape(batch * length, n_run)
                halting_probs = pondernet_halting(lambdas, check=False).reshape(batch, length, n_run)
            else:  # all the weight on the step each position halted at
                halting_probs = (steps == halted_at.unsqueeze(2)).to(step_states.dtype)
            ponder_steps = torch.where(real, halted_at, 0)
            ponder_cost = ponder_steps.to(step_states.dtype)
        state = (halting_probs.unsqueeze(3) * step_states).sum(dim=2)  # (B, T, D): sum_n p^n H^n
        return UTOutput(
            state=state,
            step_states=step_states,
            halting_probs=halting_probs,
            ponder_steps=ponder_steps,
            ponder_cost=ponder_cost,
            attention=attention,
        )

