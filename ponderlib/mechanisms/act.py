r"""Adaptive Computation Time (Graves 2016, "Adaptive Computation Time for Recurrent Neural Networks")
around any recurrent step function.

At input ``x`` the step function is applied repeatedly, ``s_n = S(s_{n-1}, x_n)`` (Graves eq. 3),
where ``x_n = [x, delta_{n,1}]`` carries the *first-step flag* so the network can tell a new input
from another ponder step on the same one. After every step a halting unit
``h_n = sigmoid(W_h s_n + b_h)`` (eq. 5) says how much to stop; :func:`ponderlib.mechanisms.halting.act_halting`
turns the ``h_n`` into ``N(t)``, ``R(t)`` and ``p_n``. The output and next state are the mean
fields (eq. 9)

.. math::

    y(t) = \sum_n p_n\, y_n, \qquad s(t) = \sum_n p_n\, s_n

and the ponder cost is ``rho = N + R`` (eq. 10). The loop runs for the whole batch with masks and
stops as soon as every sample has crossed ``1 - eps`` (or at ``max_ponder_steps``).

:class:`ACTRNN` wraps :class:`ACT` over a sequence: at every time step the network ponders
afresh, starting from the mean-field state of the previous time step (Graves sec. 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.validation import (
    MAX_LENGTH,
    MAX_STEPS,
    MAX_WIDTH,
    check_counts,
    check_finite,
    check_fraction,
    check_non_negative,
    check_rank,
    ensure_model_input,
    ensure_tensor,
    ensure_type,
)
from ponderlib.mechanisms.halting import act_halting


def check_act_settings(tau: float, eps: float, halting_bias_init: float = 1.0) -> None:
    """Raise ``ValueError`` naming the first of ACT's settings out of its range, as a task's config checks
    them once: the time penalty ``tau >= 0`` (Graves eq. 12), the slack ``eps`` in ``[0, 1)`` (eq. 7)
    and a finite initial halting bias ``b_h`` (eq. 5)."""
    check_non_negative("tau", tau)
    check_fraction("eps", eps, include_one=False)
    check_finite("halting_bias_init", halting_bias_init)


@dataclass
class ACTOutput:
    """What one ACT pondering pass returns, for a batch of ``B`` samples.

    Attributes:
        output: mean-field output ``y(t) = sum_n p_n y_n``, shape ``(B, O)``.
        state: mean-field state ``s(t) = sum_n p_n s_n``, shape ``(B, H)``.
        halting_probs: ``p_n``, shape ``(B, n_run)`` with ``n_run <= max_ponder_steps`` the number of
            steps the batch ran (the loop exits once every sample has halted).
        ponder_steps: ``N(t)``, shape ``(B,)``, int64.
        remainder: ``R(t)``, shape ``(B,)``.
        ponder_cost: ``rho = N + R``, shape ``(B,)``.
    """

    output: torch.Tensor
    state: torch.Tensor
    halting_probs: torch.Tensor
    ponder_steps: torch.Tensor
    remainder: torch.Tensor
    ponder_cost: torch.Tensor


class ACT(nn.Module):
    """ACT around a recurrent cell.

    Args:
        cell: the step function ``S``, called as ``cell(x_n, s_{n-1}) -> s_n`` with
            ``x_n`` of shape ``(B, input_size + 1)`` (the input and the first-step flag) and
            states of shape ``(B, hidden_size)``, e.g. ``nn.GRUCell(input_size + 1, hidden_size)``.
        output_layer: maps a state ``(B, hidden_size)`` to an output ``y_n`` of shape ``(B, O)``.
        hidden_size: size of the state.
        max_ponder_steps: the cap on ``N(t)``, ``>= 1``.
        eps: the slack in ``1 - eps``; with ``eps > 0`` the network can halt after one step.
        halting_bias_init: initial ``b_h``; Graves initialises it to 1 so early training ponders
            for a couple of steps instead of halting at once or never.
    """

    def __init__(
        self,
        cell: nn.Module,
        output_layer: nn.Module,
        hidden_size: int,
        max_ponder_steps: int = 20,
        eps: float = 0.01,
        halting_bias_init: float = 1.0,
    ) -> None:
        super().__init__()
        for name, step in (("cell", cell), ("output_layer", output_layer)):
            if not callable(step):
                raise TypeError(f"{name} must be callable (an nn.Module), got {type(step).__name__}")
        check_counts(MAX_WIDTH, hidden_size=hidden_size)
        check_counts(MAX_LENGTH, max_ponder_steps=max_ponder_steps)
        check_fraction("eps", eps, include_one=False)
        check_finite("halting_bias_init", halting_bias_init)  # NaN would make every h_n NaN
        self.cell = cell
        self.output_layer = output_layer
        self.halting_unit = nn.Linear(hidden_size, 1)  # h_n = sigmoid(W_h s_n + b_h), Graves eq. 5
        nn.init.constant_(self.halting_unit.bias, halting_bias_init)
        self.hidden_size = hidden_size
        self.max_ponder_steps = max_ponder_steps
        self.eps = eps

    def forward(
        self, x: torch.Tensor, state: torch.Tensor | None = None, max_ponder_steps: int | None = None
    ) -> ACTOutput:
        """Ponder on ``x`` of shape ``(B, input_size)``, starting from ``state`` ``(B, H)`` (zeros if None),
        at most ``max_ponder_steps`` steps (None: the model's cap; a larger one at evaluation lets ``N(t)``
        grow beyond what training allowed).

        ``TypeError`` unless ``x`` (and ``state``, when given) is a tensor."""
        if max_ponder_steps is not None:  # the model's own cap was checked when it was built
            check_counts(MAX_LENGTH, max_ponder_steps=max_ponder_steps)
        cap = self.max_ponder_steps if max_ponder_steps is None else max_ponder_steps
        check_rank("x", x, 2, "(batch, input_size)")
        cell_inputs = getattr(self.cell, "input_size", None)  # nn.GRUCell, nn.RNNCell: the input and the flag
        ensure_model_input("x", x, self, None if cell_inputs is None else cell_inputs - 1, "input_size")
        batch = x.shape[0]
        if state is None:
            state = x.new_zeros(batch, self.hidden_size)
        ensure_tensor("state", state, " of shape (batch, hidden_size)")
        ensure_model_input("state", state, self, self.hidden_size, "hidden_size")
        if state.shape != (batch, self.hidden_size):
            raise ValueError(
                f"state must have shape (batch, hidden_size) = {(batch, self.hidden_size)}, got {tuple(state.shape)}"
            )
        first = torch.cat([x, x.new_ones(batch, 1)], dim=1)  # (B, I+1): flag = 1 on step 1
        later = torch.cat([x, x.new_zeros(batch, 1)], dim=1)  # (B, I+1): flag = 0 afterwards
        halting_sum = x.new_zeros(batch)  # (B,): sum_n h_n, only to decide when everyone has halted
        states, outputs, halting_units = [], [], []
        for n in range(1, cap + 1):
            # Graves eq. 3: s^n_t = S(s_{t-1}, x^1_t) if n = 1, S(s^{n-1}_t, x^n_t) otherwise, x^n_t the input
            # with the flag delta_{n,1}
            state = self.cell(first if n == 1 else later, state)  # (B, H)
            # Graves eq. 5: h^n_t = sigmoid(W_h s^n_t + b_h)
            h = torch.sigmoid(self.halting_unit(state)).squeeze(1)  # (B,)
            states.append(state)
            # Graves eq. 4: y^n_t = W_y s^n_t + b_y (any output layer here)
            outputs.append(self.output_layer(state))  # (B, O)
            halting_units.append(h)
            halting_sum = halting_sum + h.detach()
            if n < cap and bool((halting_sum >= 1.0 - self.eps).all()):
                break  # every sample has halted: the remaining steps would all get p_n = 0
        if not bool(torch.isfinite(halting_sum).all()):  # one synchronisation: a NaN in x or the state halts nothing
            raise ValueError("the halting units h_n are not finite: x or state holds a NaN or an infinity")
        # Graves eqs. 6-8, 10 and 13: N(t), R(t), p^n_t and rho_t from the h^n_t
        halted = act_halting(torch.stack(halting_units, dim=1), self.eps, check=False)  # p: (B, n_run)
        p = halted.halting_probs.unsqueeze(2)  # (B, n_run, 1)
        # Graves eq. 9: y_t = sum_n p^n_t y^n_t, s_t = sum_n p^n_t s^n_t (the mean fields)
        return ACTOutput(
            output=(p * torch.stack(outputs, dim=1)).sum(dim=1),  # (B, O)
            state=(p * torch.stack(states, dim=1)).sum(dim=1),  # (B, H)
            halting_probs=halted.halting_probs,
            ponder_steps=halted.ponder_steps,
            remainder=halted.remainder,
            ponder_cost=halted.ponder_cost,
        )


@dataclass
class ACTSequenceOutput:
    """ACT over a sequence of ``T`` inputs.

    Attributes:
        outputs: mean-field outputs, shape ``(B, T, O)``.
        state: the final mean-field state, shape ``(B, H)``.
        ponder_steps: ``N(t)`` per sample and time step, shape ``(B, T)``.
        ponder_cost: ``rho(t) = N(t) + R(t)``, shape ``(B, T)``; Graves sums it over ``t``.
    """

    outputs: torch.Tensor
    state: torch.Tensor
    ponder_steps: torch.Tensor
    ponder_cost: torch.Tensor


class ACTRNN(nn.Module):
    """An RNN that ponders at every time step with :class:`ACT`.

    The state handed from time step ``t`` to ``t + 1`` is the mean-field state ``s(t)``, and the
    first-step flag marks the first ponder step of every time step (Graves sec. 2).
    """

    def __init__(self, act: ACT) -> None:
        super().__init__()
        ensure_type("act", act, ACT)
        self.act = act

    def forward(self, inputs: torch.Tensor, state: torch.Tensor | None = None) -> ACTSequenceOutput:
        """Run over ``inputs`` of shape ``(B, T, input_size)``: ``T`` at most :data:`MAX_LENGTH` time
        steps, and ``T x max_ponder_steps`` at most :data:`MAX_STEPS` ponder steps in all."""
        check_rank("inputs", inputs, 3, "(batch, time, input_size)")
        if inputs.shape[1] > MAX_LENGTH:  # one ponder loop per time step, and their states kept
            raise ValueError(f"inputs' length must be at most {MAX_LENGTH} time steps, got shape {tuple(inputs.shape)}")
        if inputs.shape[1] * self.act.max_ponder_steps > MAX_STEPS:
            raise ValueError(
                f"max_ponder_steps must be at most {MAX_STEPS // inputs.shape[1]:,} for inputs of {inputs.shape[1]} time "
                f"steps (time steps x max_ponder_steps at most {MAX_STEPS:,}), got {self.act.max_ponder_steps}"
            )
        outputs, ponder_steps, costs = [], [], []
        for t in range(inputs.shape[1]):
            result = self.act(inputs[:, t], state)
            state = result.state  # s(t): the mean-field state carries over
            outputs.append(result.output)
            ponder_steps.append(result.ponder_steps)
            costs.append(result.ponder_cost)
        return ACTSequenceOutput(
            outputs=torch.stack(outputs, dim=1),  # (B, T, O)
            state=state,
            ponder_steps=torch.stack(ponder_steps, dim=1),  # (B, T)
            ponder_cost=torch.stack(costs, dim=1),  # (B, T)
        )
