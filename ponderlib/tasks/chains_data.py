"""Assignment chains' data: programs of assignments, each position with a known required depth.

A sequence is a little program of assignments, one per position: ``c = 1; f = c; a = not f; e = 0; ...``.
Position ``i`` assigns to its own variable name either a bit (a *root*) or the name of a variable
assigned earlier, possibly negated. The target at every position is the bit its variable ends up
holding; position ``i``'s **required depth** ``d_i`` is the number of hops back to a root (0 for a
root). :mod:`ponderlib.tasks.chains` tells why the task is built so, and trains models on it.

Written in the order they are drawn (``order="topological"``), every assignment comes after the one it
reads, so a position's required depth is at most its index. ``order="shuffled"`` writes each program's
assignments in a random order instead, so the required depth no longer depends on the position. Names
are drawn afresh for every sequence from ``n_names`` symbols; sequences of different lengths share a
batch with padding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    check_choice,
    check_counts,
    check_int,
)

MAX_NAMES = 10_000
"""The most variable names a program's names may be drawn from (``n_names``): each is a row of the
embedding, and a batch draws a random permutation of all of them for every program."""



ORDERS = ("topological", "shuffled")
"""How a program's assignments are written: each after the one it reads (``"topological"``; a
position's depth is at most its index), or in a random order (``"shuffled"``; depth independent of
position)."""



@dataclass
class ChainsBatch:
    """A batch of assignment programs, padded to the longest.

    Attributes:
        names: the variable each position assigns, ``(B, T)`` int64 in ``[0, n_names)``.
        sources: the right-hand side, ``(B, T)`` int64: a name in ``[0, n_names)``, or the bit ``b``
            as ``n_names + b``.
        negated: ``(B, T)`` bool, True where the right-hand side is ``not name`` (never at a root).
        targets: the bit each variable holds, ``(B, T)`` int64 in {0, 1}.
        depth: required depth (hops to a root), ``(B, T)`` int64; 0 for roots and padding.
        padding_mask: ``(B, T)`` bool, True at padding.
    """

    names: torch.Tensor
    sources: torch.Tensor
    negated: torch.Tensor
    targets: torch.Tensor
    depth: torch.Tensor
    padding_mask: torch.Tensor

    @property
    def lengths(self) -> torch.Tensor:
        """The number of assignments of each program, ``(B,)`` int64."""
        return (~self.padding_mask).sum(dim=1)



def chains_batch(
    batch_size: int,
    min_len: int,
    max_len: int,
    max_depth: int,
    n_names: int,
    generator: torch.Generator | None = None,
    order: str = "topological",
    check: bool = True,
) -> ChainsBatch:
    """Draw ``batch_size`` programs of ``min_len`` to ``max_len`` assignments.

    Every position draws a wanted depth uniformly in ``0..max_depth``: 0 (and the first position)
    makes it a root with a random bit; otherwise it points to a random earlier position of depth
    one less, or of the greatest depth so far if none is that deep, negated with probability one
    half. ``order`` (one of :data:`ORDERS`): ``"topological"`` keeps that order, so position ``i``
    has a depth of at most ``i``; ``"shuffled"`` then permutes each program's assignments uniformly
    at random, so the depth distribution is the same at every position. Loops run over positions,
    never over the batch. ``check``: False skips the checks, for a training loop whose config was
    validated once.
    """
    if check:
        check_counts(MAX_BATCH, batch_size=batch_size)
        check_counts(MAX_LENGTH, min_len=min_len)
        check_int("max_len", max_len, minimum=min_len, maximum=MAX_LENGTH)
        check_int("max_depth", max_depth, minimum=0, maximum=MAX_LENGTH)
        check_int("n_names", n_names, minimum=max_len, maximum=MAX_NAMES)
        check_choice("order", order, ORDERS)
    device = generator.device if generator is not None else torch.device("cpu")
    lengths = torch.randint(min_len, max_len + 1, (batch_size,), generator=generator, device=device)  # (B,)
    names = torch.rand(batch_size, n_names, generator=generator, device=device).argsort(dim=1)[:, :max_len]  # (B, T)
    bits = torch.randint(0, 2, (batch_size, max_len), generator=generator, device=device)  # (B, T)
    wanted = torch.randint(0, max_depth + 1, (batch_size, max_len), generator=generator, device=device)  # (B, T)
    choice = torch.rand(batch_size, max_len, generator=generator, device=device)  # (B, T): which candidate parent
    negated = torch.randint(0, 2, (batch_size, max_len), generator=generator, device=device).bool()  # (B, T)
    depth = torch.zeros(batch_size, max_len, dtype=torch.long, device=device)
    targets = bits.clone()
    sources = n_names + bits
    for i in range(1, max_len):
        # depths 0..max seen so far are all present (a depth-d position needs an earlier depth d - 1)
        parent_depth = torch.minimum(wanted[:, i] - 1, depth[:, :i].max(dim=1).values)  # (B,)
        candidates = depth[:, :i] == parent_depth.unsqueeze(1)  # (B, i)
        count = candidates.sum(dim=1)  # (B,): 0 when wanted = 0
        # the k-th candidate, k = floor(choice * count): cumsum counts candidates up to each position
        k = (choice[:, i] * count).long()  # (B,)
        parent = ((candidates.cumsum(dim=1) > k.unsqueeze(1)) & candidates).int().argmax(dim=1)  # (B,)
        linked = count > 0  # (B,)
        rows = torch.arange(batch_size, device=device)
        depth[:, i] = torch.where(linked, depth[rows, parent] + 1, 0)
        targets[:, i] = torch.where(linked, targets[rows, parent] ^ negated[:, i].long(), bits[:, i])
        sources[:, i] = torch.where(linked, names[rows, parent], n_names + bits[:, i])
    padding_mask = torch.arange(max_len, device=device).unsqueeze(0) >= lengths.unsqueeze(1)  # (B, T)
    fields = (names, sources, negated & (depth > 0), targets, depth)
    if order == "shuffled":
        # a uniform permutation of each program's real positions; padding keys sort last and stay put
        keys = torch.rand(batch_size, max_len, generator=generator, device=device).masked_fill(padding_mask, 2.0)
        permutation = keys.argsort(dim=1)  # (B, T)
        fields = tuple(field.gather(1, permutation) for field in fields)
    names, sources, negated, targets, depth = fields
    return ChainsBatch(
        names=names,
        sources=sources,
        negated=negated,
        targets=targets,
        depth=torch.where(padding_mask, 0, depth),
        padding_mask=padding_mask,
    )
