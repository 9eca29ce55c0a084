r"""Additive attention (Bahdanau, Cho and Bengio 2015), the scorer under the pointer network.

At decoder step ``i`` with query state ``d_i`` and encoder states ``e_1 .. e_n``, in the notation
of Vinyals et al. 2015, eq. 3 (Bahdanau et al. write ``e_ij = a(s_{i-1}, h_j)`` with
``a = v_a^T tanh(W_a s_{i-1} + U_a h_j)``, sec. 3.1 and appendix A.1.2):

.. math::

    u^i_j &= v^\top \tanh(W_1 e_j + W_2 d_i), \quad j = 1, \dots, n
        \qquad \text{(the score; Bahdanau's } e_{ij}\text{)} \\
    a^i &= \operatorname{softmax}(u^i) \qquad \text{(Bahdanau eq. 6)} \\
    c_i &= \textstyle\sum_j a^i_j\, e_j \qquad \text{(Bahdanau eq. 5; Vinyals' } d'_i\text{)}

A padded position ``j`` gets the score ``u = -inf``, so its weight ``a`` is 0, and its key is set to
zero first (:func:`zero_padding`): whatever a padded position holds, NaN or infinity included, the
real positions' scores, weights and context are those of zeros there (``0 * NaN`` would be NaN).

Bahdanau et al. feed the context ``c_i`` to the decoder, which then picks a word from a fixed
vocabulary. A pointer network (Vinyals et al. 2015, sec. 2.3) stops at the softmax: ``a^i`` *is*
the output distribution, over the input positions (see :mod:`ponderlib.mechanisms.pointer`).
"""

from __future__ import annotations

import torch
from torch import nn

from ponderlib.core.validation import check_sizes, ensure_tensor


class AdditiveAttention(nn.Module):
    """``u^i_j = v^T tanh(W_1 e_j + W_2 d_i)`` (Vinyals eq. 3), with masking and the softmax (Bahdanau eq. 6).

    Args:
        key_dim: size of an encoder state ``e_j``.
        query_dim: size of a decoder state ``d_i``.
        attention_dim: rows of ``W_1`` and ``W_2``, length of ``v``.
    """

    def __init__(self, key_dim: int, query_dim: int, attention_dim: int):
        super().__init__()
        check_sizes(key_dim=key_dim, query_dim=query_dim, attention_dim=attention_dim)
        self.W1 = nn.Linear(key_dim, attention_dim, bias=False)
        self.W2 = nn.Linear(query_dim, attention_dim, bias=False)
        self.v = nn.Linear(attention_dim, 1, bias=False)

    @classmethod
    def from_matrices(cls, W1: torch.Tensor, W2: torch.Tensor, v: torch.Tensor) -> AdditiveAttention:
        """An attention with given weights: ``W1 (A, key_dim)``, ``W2 (A, query_dim)``, ``v (A,)``."""
        for name, weight in (("W1", W1), ("W2", W2), ("v", v)):
            ensure_tensor(name, weight)
        attention = cls(W1.shape[1], W2.shape[1], W1.shape[0])
        with torch.no_grad():
            attention.W1.weight.copy_(W1)
            attention.W2.weight.copy_(W2)
            attention.v.weight.copy_(v.reshape(1, -1))
        return attention

    def project_keys(self, keys: torch.Tensor) -> torch.Tensor:
        """``W_1 e_j`` for every ``j``: ``(B, N, key_dim) -> (B, N, A)``. Computed once per input,
        since it does not depend on the decoder step."""
        return self.W1(keys)

    def scores(self, projected_keys: torch.Tensor, query: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The scores ``u^i`` (Vinyals eq. 3), ``-inf`` where ``mask`` is False.

        Args:
            projected_keys: ``(B, N, A)`` from :meth:`project_keys`.
            query: ``(B, query_dim)``, the decoder state ``d_i``.
            mask: ``(B, N)`` bool, True where a position may receive attention.

        Returns:
            ``(B, N)`` scores.
        """
        ensure_tensor("projected_keys", projected_keys)
        ensure_tensor("query", query)
        hidden = torch.tanh(projected_keys + self.W2(query).unsqueeze(1))  # (B, N, A)
        u = self.v(hidden).squeeze(-1)  # (B, N)
        return u if mask is None else u.masked_fill(~mask, float("-inf"))

    def forward(
        self, keys: torch.Tensor, query: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Scores ``u (B, N)``, weights ``a (B, N)`` (Bahdanau eq. 6) and context ``c (B, key_dim)`` (Bahdanau eq. 5).

        ``keys`` is ``(B, N, key_dim)``; every row of ``mask`` needs at least one True. The keys at
        masked positions are replaced by zeros first, so what they hold never reaches the rest.
        """
        ensure_tensor("keys", keys)
        if mask is not None:
            ensure_tensor("mask", mask)
            keys = zero_padding(keys, mask)  # (B, N, key_dim)
        u = self.scores(self.project_keys(keys), query, mask)  # (B, N)
        a = torch.softmax(u, dim=-1)  # (B, N)
        return u, a, context(a, keys)


def context(weights: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """``c_i = sum_j a^i_j e_j`` (Bahdanau eq. 5): ``(B, N)`` weights and ``(B, N, D)`` keys -> ``(B, D)``.

    A key with weight 0 still counts as ``0 * e_j``: keys at padding must be finite (:func:`zero_padding`)."""
    ensure_tensor("weights", weights)
    ensure_tensor("keys", keys)
    return torch.bmm(weights.unsqueeze(1), keys).squeeze(1)


def masked_log_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``log softmax`` over the positions where ``mask`` is True; masked positions get ``-inf``
    (probability exactly 0). A row with nothing allowed (a finished sample in a padded batch) is
    ``-inf`` everywhere, without producing NaN in the forward or the backward pass.

    Shapes: ``scores (B, N)``, ``mask (B, N)`` bool -> ``(B, N)``. Masked scores are replaced, not
    added to, so a NaN there changes nothing.
    """
    ensure_tensor("scores", scores)
    ensure_tensor("mask", mask)
    any_allowed = mask.any(dim=-1, keepdim=True)  # (B, 1)
    # Rows with nothing allowed are softmaxed unmasked (finite) and then overwritten with -inf.
    safe = scores.masked_fill(~mask & any_allowed, float("-inf"))  # (B, N)
    return torch.log_softmax(safe, dim=-1).masked_fill(~mask, float("-inf"))


def zero_padding(values: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
    """``values (B, N, ...)`` with every position where ``real (B, N)`` is False set to zero.

    By ``torch.where``, not by a product with the mask: ``NaN * 0`` and ``inf * 0`` are NaN, so garbage
    at padding would reach every sum over positions (an attention context, a matrix product whose
    weight there is 0). Where the padding holds zeros already, every result stays as it was.
    """
    keep = real.reshape(real.shape + (1,) * (values.dim() - real.dim()))  # (B, N, 1, ...)
    return torch.where(keep, values, values.new_zeros(()))
