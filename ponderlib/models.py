"""The parity models: ACT and PonderNet around the same GRU cell, so they compare on equal terms.

Both read the whole parity vector at every ponder step (Graves sec. 3.1; Banino sec. 3.1), update a
``GRUCell`` of ``hidden`` units, predict the parity with a linear layer and the halting signal with
another. The only differences are the ones the methods define: ACT's input carries the first-step
flag and its prediction is the mean field; PonderNet's prediction is the one at the halting step.
"""

from __future__ import annotations

import torch
from torch import nn

from ponderlib.act import ACT, ACTOutput
from ponderlib.pondernet import PonderNet
from ponderlib.validation import check_int


class PonderStep(nn.Module):
    """PonderNet's step function ``(y_n, h_{n+1}, lambda_n) = s(x, h_n)`` with a GRU cell.

    ``y_n`` is a parity logit ``(B,)``; ``lambda_n = sigmoid(w^T h_{n+1} + b)`` ``(B,)``.
    """

    def __init__(self, input_size: int, hidden: int) -> None:
        super().__init__()
        self.cell = nn.GRUCell(input_size, hidden)
        self.output_layer = nn.Linear(hidden, 1)
        self.lambda_layer = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h_next = self.cell(x, h)  # (B, H)
        y = self.output_layer(h_next).squeeze(1)  # (B,): parity logit
        lam = torch.sigmoid(self.lambda_layer(h_next)).squeeze(1)  # (B,): lambda_n
        return y, h_next, lam


def act_parity_model(n_elems: int, hidden: int = 64, max_steps: int = 20, eps: float = 0.01) -> ACT:
    """ACT for parity: ``GRUCell(n_elems + 1, hidden)`` (the +1 is the first-step flag), one logit out."""
    check_int("n_elems", n_elems, minimum=1)
    check_int("hidden", hidden, minimum=1)
    return ACT(
        cell=nn.GRUCell(n_elems + 1, hidden),
        output_layer=nn.Linear(hidden, 1),
        hidden_size=hidden,
        max_steps=max_steps,
        eps=eps,
    )


def pondernet_parity_model(n_elems: int, hidden: int = 64, max_steps: int = 20) -> PonderNet:
    """PonderNet for parity: :class:`PonderStep` with ``GRUCell(n_elems, hidden)``, one logit out."""
    check_int("n_elems", n_elems, minimum=1)
    check_int("hidden", hidden, minimum=1)
    return PonderNet(PonderStep(n_elems, hidden), hidden_size=hidden, max_steps=max_steps)


def act_logits(result: ACTOutput) -> torch.Tensor:
    """The parity logit of an ACT pass: the mean-field output, shape ``(B,)``."""
    return result.output.squeeze(1)
