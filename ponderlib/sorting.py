"""Sorting data for pointer networks (Vinyals et al. 2015, sec. 4.3), generated in batched calls.

A sample is an array ``x_1 .. x_n`` of length ``n`` drawn uniformly from ``[min_len, max_len]``;
a batch pads every array to ``max_len`` on the right and carries the lengths and a validity mask.
Values are integers ``0 .. 9`` (duplicates allowed) or reals uniform in ``[0, 1)``.

The target of a sample is the permutation ``pi`` of its positions that puts the values in order:
``x_{pi(1)} <= x_{pi(2)} <= ...`` for ``order="asc"``, ``>=`` for ``order="desc"`` (read ``x`` as
job priorities and ``pi`` is the order a priority scheduler runs the jobs in). Ties keep input
order (a stable sort: first come, first served). With duplicates several permutations are
equally right, so the metrics compare the *values* an output puts in each place, not the
positions, and :func:`oracle_choices` gives every position that is a right next choice.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ponderlib.device import get_device
from ponderlib.validation import check_choice, check_int

VALUE_KINDS = ("int", "float")
ORDERS = ("asc", "desc")
INT_VALUES = 10
"""Integer arrays hold values ``0 .. INT_VALUES - 1``."""


@dataclass
class SortBatch:
    """A padded batch of arrays to sort.

    Attributes:
        inputs: ``(B, N)`` float32 values, ``N = max_len``; padded entries are 0.
        lengths: ``(B,)`` int64, the true length of each array.
        mask: ``(B, N)`` bool, True at real (non-padded) positions.
        targets: ``(B, N)`` int64, the stable sorting permutation ``pi``; padded steps hold -1.
        sorted_values: ``(B, N)`` float32, ``x_{pi(i)}``; padded steps are 0.
    """

    inputs: torch.Tensor
    lengths: torch.Tensor
    mask: torch.Tensor
    targets: torch.Tensor
    sorted_values: torch.Tensor

    def to(self, device: torch.device | str) -> SortBatch:
        return SortBatch(*(t.to(device) for t in (self.inputs, self.lengths, self.mask, self.targets, self.sorted_values)))


def check_lengths(min_len: int, max_len: int) -> None:
    """Raise unless ``1 <= min_len <= max_len`` (an array needs at least one element)."""
    check_int("min_len", min_len, minimum=1)
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < min_len:
        raise ValueError(f"max_len must be an integer >= min_len = {min_len}, got {max_len!r}")


def sort_targets(inputs: torch.Tensor, mask: torch.Tensor, order: str = "asc") -> tuple[torch.Tensor, torch.Tensor]:
    """The stable sorting permutation ``pi`` and the sorted values, padded positions last.

    Args:
        inputs: ``(B, N)`` values.
        mask: ``(B, N)`` bool, True at real positions.
        order: ``"asc"`` or ``"desc"``.

    Returns:
        ``targets (B, N)`` int64 with -1 at padded steps, and ``sorted_values (B, N)`` with 0 there.
    """
    check_choice("order", order, ORDERS)
    keys = inputs if order == "asc" else -inputs
    keys = keys.masked_fill(~mask, float("inf"))  # padding sorts after every real value
    targets = keys.sort(dim=1, stable=True).indices  # (B, N)
    step_valid = torch.arange(inputs.shape[1], device=inputs.device) < mask.sum(dim=1, keepdim=True)  # (B, N)
    sorted_values = inputs.gather(1, targets).masked_fill(~step_valid, 0.0)  # (B, N)
    return targets.masked_fill(~step_valid, -1), sorted_values


def sort_batch(
    batch_size: int,
    min_len: int = 5,
    max_len: int = 10,
    values: str = "int",
    order: str = "asc",
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    pad_to: int | None = None,
) -> SortBatch:
    """Draw ``batch_size`` arrays and their sorting targets in one batched call, on ``device``.

    Args:
        batch_size: number of arrays, ``>= 1``.
        min_len, max_len: lengths are uniform in ``[min_len, max_len]``, ``1 <= min_len <= max_len``.
        values: ``"int"`` (``0 .. 9``, duplicates allowed) or ``"float"`` (uniform in ``[0, 1)``).
        order: ``"asc"`` or ``"desc"``.
        generator: a ``torch.Generator`` on the target device, for reproducible data.
        device: where the tensors are created (default: the generator's device, else
            :func:`ponderlib.device.get_device`).
        pad_to: pad to this width instead of ``max_len`` (``>= max_len``).
    """
    check_int("batch_size", batch_size, minimum=1)
    check_lengths(min_len, max_len)
    check_choice("values", values, VALUE_KINDS)
    check_choice("order", order, ORDERS)
    width = max_len if pad_to is None else pad_to
    check_int("pad_to", width, minimum=max_len)
    device = generator.device if generator is not None else get_device(device)
    lengths = torch.randint(min_len, max_len + 1, (batch_size,), generator=generator, device=device)  # (B,)
    mask = torch.arange(width, device=device) < lengths.unsqueeze(1)  # (B, N)
    if values == "int":
        raw = torch.randint(0, INT_VALUES, (batch_size, width), generator=generator, device=device).float()
    else:
        raw = torch.rand(batch_size, width, generator=generator, device=device)
    inputs = raw.masked_fill(~mask, 0.0)  # (B, N)
    targets, sorted_values = sort_targets(inputs, mask, order)
    return SortBatch(inputs=inputs, lengths=lengths, mask=mask, targets=targets, sorted_values=sorted_values)


def sort_batch_from_arrays(
    arrays: list[list[float]], order: str = "asc", device: torch.device | str | None = None
) -> SortBatch:
    """A :class:`SortBatch` from explicit arrays (for worked examples and tests).

    Raises ``ValueError`` for an empty list or an empty array.
    """
    if not arrays:
        raise ValueError("arrays must hold at least one array, got []")
    for index, array in enumerate(arrays):
        if len(array) == 0:
            raise ValueError(f"arrays[{index}] is empty; every array needs length >= 1")
    device = get_device(device)
    width = max(len(a) for a in arrays)
    lengths = torch.tensor([len(a) for a in arrays], device=device)
    inputs = torch.tensor([list(map(float, a)) + [0.0] * (width - len(a)) for a in arrays], device=device)
    mask = torch.arange(width, device=device) < lengths.unsqueeze(1)
    targets, sorted_values = sort_targets(inputs, mask, order)
    return SortBatch(inputs=inputs, lengths=lengths, mask=mask, targets=targets, sorted_values=sorted_values)


def oracle_choices(inputs: torch.Tensor, available: torch.Tensor, order: str = "asc") -> torch.Tensor:
    """Every position that is a right next output, given the positions still ``available``.

    The right next value is the smallest (``asc``) or largest (``desc``) value not yet emitted;
    with duplicates, every available copy of it is right. This is the target at every decoder
    step, with or without teacher forcing, so it stays defined after a wrong choice.

    Args:
        inputs: ``(B, N)`` values. available: ``(B, N)`` bool (real and not yet chosen).

    Returns:
        ``(B, N)`` bool; all False in a row with nothing available.
    """
    fill = float("inf") if order == "asc" else float("-inf")
    remaining = inputs.masked_fill(~available, fill)  # (B, N)
    best = remaining.amin(dim=1, keepdim=True) if order == "asc" else remaining.amax(dim=1, keepdim=True)  # (B, 1)
    return available & (remaining == best)
