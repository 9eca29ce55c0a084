"""Sorting's data (Vinyals et al. 2015, sec. 4.3): arrays, their targets, and the right next choices.

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

from ponderlib.core.device import get_device
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    check_choice,
    check_counts,
    check_int,
    check_rank,
    ensure_same_device,
    ensure_tensor,
)

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



def check_lengths(min_len: int, max_len: int) -> None:
    """Raise unless ``1 <= min_len <= max_len <= MAX_LENGTH`` (an array needs at least one element;
    :data:`~ponderlib.core.validation.MAX_LENGTH` bounds every length)."""
    check_int("min_len", min_len, minimum=1, maximum=MAX_LENGTH)
    if isinstance(max_len, bool) or not isinstance(max_len, int) or not min_len <= max_len <= MAX_LENGTH:
        raise ValueError(f"max_len must be an integer in [min_len = {min_len}, {MAX_LENGTH}], got {max_len!r}")



def sort_targets(
    inputs: torch.Tensor, mask: torch.Tensor, order: str = "asc", check: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """The stable sorting permutation ``pi`` and the sorted values, padded positions last.

    Args:
        inputs: ``(B, N)`` values; NaN is refused at real positions (it has no place in an order),
            and padded positions may hold anything.
        mask: ``(B, N)`` bool, True at real positions.
        order: ``"asc"`` or ``"desc"``.
        check: check the arguments (``TypeError`` for anything but tensors, ``ValueError`` for the
            shapes, ``order`` and a NaN at a real position); a training loop whose config was
            validated once and whose batches the library drew passes False.

    Returns:
        ``targets (B, N)`` int64 with -1 at padded steps, and ``sorted_values (B, N)`` with 0 there.
    """
    if check:
        _check_values(inputs, mask)
        check_choice("order", order, ORDERS)
    keys = inputs if order == "asc" else -inputs
    keys = keys.masked_fill(~mask, float("inf"))  # padding sorts after every real value
    targets = keys.sort(dim=1, stable=True).indices  # (B, N)
    step_valid = torch.arange(inputs.shape[1], device=inputs.device) < mask.sum(dim=1, keepdim=True)  # (B, N)
    sorted_values = inputs.gather(1, targets).masked_fill(~step_valid, 0.0)  # (B, N)
    return targets.masked_fill(~step_valid, -1), sorted_values



def _check_values(inputs: torch.Tensor, mask: torch.Tensor) -> None:
    """Raise unless ``inputs`` and ``mask`` are ``(B, N)`` tensors, ``mask`` bool, and no real input is NaN."""
    check_rank("inputs", inputs, 2, "(B, N)")
    ensure_tensor("mask", mask, f" of shape {tuple(inputs.shape)}")
    if mask.shape != inputs.shape or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor of shape {tuple(inputs.shape)}, got {mask.dtype} {tuple(mask.shape)}")
    if bool((torch.isnan(inputs) & mask).any()):
        raise ValueError("inputs must not be NaN at a real position (mask True): NaN has no place in a sorted order")



def sort_batch(
    batch_size: int,
    min_len: int = 5,
    max_len: int = 10,
    values: str = "int",
    order: str = "asc",
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    pad_to: int | None = None,
    check: bool = True,
) -> SortBatch:
    """Draw ``batch_size`` arrays and their sorting targets in one batched call, on ``device``.

    Args:
        batch_size: number of arrays, ``>= 1``.
        min_len, max_len: lengths are uniform in ``[min_len, max_len]``, ``1 <= min_len <= max_len``.
        values: ``"int"`` (``0 .. 9``, duplicates allowed) or ``"float"`` (uniform in ``[0, 1)``).
        order: ``"asc"`` or ``"desc"``.
        generator: a ``torch.Generator`` on the target device, for reproducible data.
        device: where the tensors are created (default: the generator's device, else
            :func:`ponderlib.core.device.get_device`).
        pad_to: pad to this width instead of ``max_len`` (``>= max_len``).
        check: False skips the checks, for a training loop whose config was validated once.
    """
    width = max_len if pad_to is None else pad_to
    if check:
        check_counts(MAX_BATCH, batch_size=batch_size)
        check_lengths(min_len, max_len)
        check_choice("values", values, VALUE_KINDS)
        check_choice("order", order, ORDERS)
        check_int("pad_to", width, minimum=max_len, maximum=MAX_LENGTH)
    device = generator.device if generator is not None else get_device(device)
    lengths = torch.randint(min_len, max_len + 1, (batch_size,), generator=generator, device=device)  # (B,)
    mask = torch.arange(width, device=device) < lengths.unsqueeze(1)  # (B, N)
    if values == "int":
        raw = torch.randint(0, INT_VALUES, (batch_size, width), generator=generator, device=device).float()
    else:
        raw = torch.rand(batch_size, width, generator=generator, device=device)
    inputs = raw.masked_fill(~mask, 0.0)  # (B, N)
    targets, sorted_values = sort_targets(inputs, mask, order, check=False)
    return SortBatch(inputs=inputs, lengths=lengths, mask=mask, targets=targets, sorted_values=sorted_values)



def sort_batch_from_arrays(
    arrays: list[list[float]], order: str = "asc", device: torch.device | str | None = None
) -> SortBatch:
    """A :class:`SortBatch` from explicit arrays (for worked examples and tests).

    ``arrays``: a sequence of sequences of numbers (lists, arrays, tensors). Raises ``TypeError``
    naming ``arrays`` (or ``arrays[i]``) for anything else, and ``ValueError`` for no array, an
    empty array or a NaN (infinities sort as the largest or smallest values).
    """
    rows = _as_rows(arrays)
    if not rows:
        raise ValueError("arrays must hold at least one array, got none")
    for index, array in enumerate(rows):
        if len(array) == 0:
            raise ValueError(f"arrays[{index}] is empty; every array needs length >= 1")
        if any(value != value for value in array):
            raise ValueError(f"arrays[{index}] must not hold NaN: NaN has no place in a sorted order")
    device = get_device(device)
    width = max(len(a) for a in rows)
    lengths = torch.tensor([len(a) for a in rows], device=device)
    inputs = torch.tensor([a + [0.0] * (width - len(a)) for a in rows], device=device)
    mask = torch.arange(width, device=device) < lengths.unsqueeze(1)
    targets, sorted_values = sort_targets(inputs, mask, order)
    return SortBatch(inputs=inputs, lengths=lengths, mask=mask, targets=targets, sorted_values=sorted_values)



def _as_rows(arrays: object) -> list[list[float]]:
    """``arrays`` as lists of floats, or ``TypeError`` naming ``arrays`` or the array that is not numbers."""
    if isinstance(arrays, (str, bytes)) or not hasattr(arrays, "__len__"):
        raise TypeError(f"arrays must be a sequence of arrays of numbers, got {type(arrays).__name__}")
    rows = []
    for index, array in enumerate(arrays):
        if isinstance(array, (str, bytes)):
            raise TypeError(f"arrays[{index}] must be a sequence of numbers, got {type(array).__name__}")
        try:
            rows.append([float(value) for value in array])
        except (TypeError, ValueError):
            raise TypeError(f"arrays[{index}] must be a sequence of numbers, got {type(array).__name__}") from None
    return rows



def oracle_choices(inputs: torch.Tensor, available: torch.Tensor, order: str = "asc") -> torch.Tensor:
    """Every position that is a right next output, given the positions still ``available``.

    The right next value is the smallest (``asc``) or largest (``desc``) value not yet emitted;
    with duplicates, every available copy of it is right. This is the target at every decoder
    step, with or without teacher forcing, so it stays defined after a wrong choice.

    Args:
        inputs: ``(B, N)`` values. available: ``(B, N)`` bool (real and not yet chosen).
        order: ``"asc"`` or ``"desc"``; anything else raises ``ValueError`` (rather than sorting
            one way or the other).

    Returns:
        ``(B, N)`` bool; all False in a row with nothing available.
    """
    ensure_same_device(inputs=inputs, available=available)
    ascending = _ascending(order)
    fill = float("inf") if ascending else float("-inf")
    remaining = inputs.masked_fill(~available, fill)  # (B, N)
    best = remaining.amin(dim=1, keepdim=True) if ascending else remaining.amax(dim=1, keepdim=True)  # (B, 1)
    return available & (remaining == best)



def _ascending(order: str) -> bool:
    """True for ``"asc"``, False for ``"desc"``, ``ValueError`` naming ``order`` otherwise: where a
    function runs at every decoder step, the dispatch on ``order`` is its check."""
    if order == "asc":
        return True
    if order == "desc":
        return False
    raise ValueError(f"order must be one of {', '.join(map(repr, ORDERS))}; got {order!r}")


def sort_teacher(inputs: torch.Tensor, order: str = "asc"):
    """The pointer network's teacher for sorting ``inputs (B, N)``: given the positions still
    available, the first right next position (:func:`oracle_choices`), ``(B,)`` int64."""
    ensure_tensor("inputs", inputs)
    _ascending(order)

    def right_next(available: torch.Tensor) -> torch.Tensor:
        return oracle_choices(inputs, available, order).float().argmax(dim=-1)

    return right_next
