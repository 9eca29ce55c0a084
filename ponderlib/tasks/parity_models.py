"""The parity networks (Graves 2016, sec. 3.1; Banino et al. 2021, sec. 3.1): the same cell and size for both methods.

Both methods read the whole parity vector at every ponder step, update a recurrent cell of ``hidden``
units (a GRU, the book's default, or Graves' simple RNN of tanh units: ``cell``), predict the parity
with a linear layer and the halting signal with another, so they compare on equal terms. The only
differences are the ones the methods define: ACT's input carries the first-step flag and its
prediction is the mean field; PonderNet's prediction is the one at the halting step.
"""

from __future__ import annotations

import torch
from torch import nn

from ponderlib.core.validation import (
    MAX_LENGTH,
    MAX_WIDTH,
    check_choice,
    check_counts,
)
from ponderlib.mechanisms.act import ACT
from ponderlib.mechanisms.pondernet import PonderNet

CELLS = ("gru", "tanh")



def check_model_sizes(n_elems: int, hidden: int) -> None:
    """Raise unless ``n_elems`` is in ``[1, MAX_LENGTH]`` and ``hidden`` in ``[1, MAX_WIDTH]``, naming the one that is not."""
    check_counts(MAX_LENGTH, n_elems=n_elems)
    check_counts(MAX_WIDTH, hidden=hidden)



def parity_cell(cell: str, input_size: int, hidden: int) -> nn.GRUCell | nn.RNNCell:
    """The recurrent cell ``cell`` names (one of :data:`CELLS`), from ``input_size`` inputs to ``hidden`` units."""
    check_choice("cell", cell, CELLS)
    check_counts(MAX_LENGTH + 1, input_size=input_size)  # n_elems, and ACT's first-step flag
    check_counts(MAX_WIDTH, hidden=hidden)
    if cell == "gru":
        return nn.GRUCell(input_size, hidden)
    return nn.RNNCell(input_size, hidden, nonlinearity="tanh")



class PonderStep(nn.Module):
    """PonderNet's step function ``(y_n, h_{n+1}, lambda_n) = s(x, h_n)`` (Banino sec. 2, unnumbered)
    with the recurrent cell ``cell`` (one of :data:`CELLS`).

    ``y_n`` is a parity logit ``(B,)``; ``lambda_n = sigmoid(w^T h_{n+1} + b)`` ``(B,)``.
    """

    def __init__(self, input_size: int, hidden: int, cell: str = "gru") -> None:
        super().__init__()
        self.input_size = input_size  # what PonderNet checks its input against
        self.cell = parity_cell(cell, input_size, hidden)
        self.output_layer = nn.Linear(hidden, 1)
        self.lambda_layer = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h_next = self.cell(x, h)  # (B, H)
        y = self.output_layer(h_next).squeeze(1)  # (B,): parity logit
        lam = torch.sigmoid(self.lambda_layer(h_next)).squeeze(1)  # (B,): lambda_n
        return y, h_next, lam



def act_parity_model(
    n_elems: int, hidden: int = 64, max_ponder_steps: int = 20, eps: float = 0.01, halting_bias_init: float = 1.0,
    cell: str = "gru",
) -> ACT:
    """ACT for parity: a recurrent cell (``cell``, one of :data:`CELLS`) from ``n_elems + 1`` inputs
    (the +1 is the first-step flag) to ``hidden`` units, one logit out.

    ``halting_bias_init`` is the initial ``b_h`` of the halting unit (Graves eq. 5; he uses 1).
    """
    check_model_sizes(n_elems, hidden)
    return ACT(
        cell=parity_cell(cell, n_elems + 1, hidden),
        output_layer=nn.Linear(hidden, 1),
        hidden_size=hidden,
        max_ponder_steps=max_ponder_steps,
        eps=eps,
        halting_bias_init=halting_bias_init,
    )



def pondernet_parity_model(
    n_elems: int,
    hidden: int = 64,
    max_ponder_steps: int = 20,
    unroll_tolerance: float = 1e-3,
    cell: str = "gru",
    halting_mass: float | None = None,
    mass_truncation: str = "last",
) -> PonderNet:
    """PonderNet for parity: :class:`PonderStep` with a recurrent cell (``cell``, one of :data:`CELLS`)
    from ``n_elems`` inputs to ``hidden`` units, one logit out.

    ``unroll_tolerance``, ``halting_mass`` and ``mass_truncation``: see
    :class:`~ponderlib.mechanisms.pondernet.PonderNet` (``unroll_tolerance`` 0 for the reverse KL).
    """
    check_model_sizes(n_elems, hidden)
    return PonderNet(
        PonderStep(n_elems, hidden, cell), hidden_size=hidden, max_ponder_steps=max_ponder_steps,
        unroll_tolerance=unroll_tolerance, halting_mass=halting_mass, mass_truncation=mass_truncation,
    )
