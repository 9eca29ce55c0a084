"""Parity vectors (Graves 2016, sec. 3.1; Banino et al. 2021, sec. 3.1), generated in batched calls.

Shared by two tasks, :mod:`~ponderlib.tasks.parity` and :mod:`~ponderlib.tasks.sequence_parity` (which draws one
vector per time step): data, not a task, so both may import it (the one module of ``tasks/`` that
another task module imports).

A sample is a vector of ``n_elems`` entries; a random number ``k`` of them (the *difficulty*) is
set to +1 or -1 at random positions, the rest are 0. The target is the parity of the number of +1
entries (``label="ones"``, as Graves and Banino et al. define it), or of all non-zero entries
(``label="nonzero"``, the parity of the difficulty itself, as some reproductions count). ``k`` is
drawn uniformly from ``[min_nonzero, max_nonzero]``, so an *interpolation* split trains and tests on
``1..n_elems``, and an *extrapolation* split trains on ``1..k`` and tests on ``k+1..n_elems``, by
changing one argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ponderlib.core.device import get_device
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_ELEMENTS,
    MAX_LENGTH,
    check_choice,
    check_counts,
    check_int,
    check_product,
    ensure_generator,
)

LABELS = ("ones", "nonzero")
"""What a parity vector's target counts: its +1 entries (the papers'), or all its non-zero entries."""


@dataclass
class ParityBatch:
    """A batch of parity problems.

    Attributes:
        inputs: shape ``(B, n_elems)``, entries in {-1, 0, +1}, float32.
        targets: shape ``(B,)``, parity of the number of +1 entries (or of non-zero entries, see
            :data:`LABELS`), float32 in {0, 1}.
        difficulty: shape ``(B,)``, number of non-zero entries, int64.
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    difficulty: torch.Tensor


@dataclass(frozen=True)
class ParityVectors:
    """The distribution parity problems are drawn from, checked once when it is built.

    A training run builds one from its validated config and calls :meth:`draw` at every training
    update, so nothing is re-checked in the training loop; :func:`parity_batch` is the checked
    one-call form.

    Attributes:
        n_elems: vector length, ``>= 1``.
        min_nonzero, max_nonzero: the range of the number of non-zero entries, inclusive,
            ``1 <= min_nonzero <= max_nonzero <= n_elems`` (``max_nonzero=None`` means ``n_elems``).
        seq_len: time steps per sample (sequence parity: a fresh vector, with its own difficulty, at
            every time step), ``>= 1``, or None for single vectors.
        label: what the target counts, one of :data:`LABELS`.
    """

    n_elems: int
    min_nonzero: int = 1
    max_nonzero: int | None = None
    seq_len: int | None = None
    label: str = "ones"

    def __post_init__(self) -> None:
        check_counts(MAX_LENGTH, n_elems=self.n_elems)
        if self.seq_len is not None:
            check_counts(MAX_LENGTH, seq_len=self.seq_len)
        check_int("min_nonzero", self.min_nonzero, minimum=1, maximum=self.n_elems)
        if self.max_nonzero is None:
            object.__setattr__(self, "max_nonzero", self.n_elems)
        check_int("max_nonzero", self.max_nonzero, minimum=self.min_nonzero, maximum=self.n_elems)
        check_choice("label", self.label, LABELS)

    def draw(
        self,
        batch_size: int,
        generator: torch.Generator | None = None,
        device: torch.device | str | None = None,
        check: bool = True,
    ) -> ParityBatch:
        """``batch_size`` problems in one batched call.

        Without ``seq_len``: ``inputs (B, n_elems)``, ``targets (B,)``, ``difficulty (B,)``; with it,
        each gains a time axis: ``(B, T, n_elems)``, ``(B, T)``, ``(B, T)``. ``generator`` (a
        ``torch.Generator`` on the target device, see :func:`ponderlib.core.seeds.stream_generator`)
        makes it reproducible; the tensors live on its device, else on ``device``. ``check``: check
        ``batch_size`` (an integer in ``[1, MAX_BATCH]``, and ``batch_size x seq_len x n_elems`` entries at
        most :data:`~ponderlib.core.validation.MAX_ELEMENTS`) and ``generator``, naming them; a training loop
        whose config was validated passes False.
        """
        if check:
            check_counts(MAX_BATCH, batch_size=batch_size)
            check_product(MAX_ELEMENTS, "a batch's entries", ("seq_len", self.seq_len or 1), ("n_elems", self.n_elems),
                          ("batch_size", batch_size))
            ensure_generator("generator", generator)
        if self.seq_len is None:
            return self._draw_vectors(batch_size, generator, device)
        flat = self._draw_vectors(batch_size * self.seq_len, generator, device)
        return ParityBatch(
            inputs=flat.inputs.view(batch_size, self.seq_len, self.n_elems),
            targets=flat.targets.view(batch_size, self.seq_len),
            difficulty=flat.difficulty.view(batch_size, self.seq_len),
        )

    def _draw_vectors(self, batch_size: int, generator: torch.Generator | None, device: torch.device | str | None) -> ParityBatch:
        device = generator.device if generator is not None else get_device(device)
        return draw_vectors(batch_size, self.n_elems, self.min_nonzero, self.max_nonzero, self.label, generator, device)


def draw_vectors(
    batch_size: int, n_elems: int, min_nonzero: int, max_nonzero: int, label: str, generator: torch.Generator | None,
    device: torch.device | str,
) -> ParityBatch:
    """:class:`ParityVectors`'s draw of single vectors, without its checks: for arguments a validated run's
    config already checked (its held-out and scoring batches). Every :class:`ParityVectors` draw comes here."""
    difficulty = torch.randint(min_nonzero, max_nonzero + 1, (batch_size,), generator=generator, device=device)
    # A random permutation per row (argsort of uniform noise); the first `difficulty` positions
    # of that permutation are the non-zero ones.
    order = torch.rand(batch_size, n_elems, generator=generator, device=device).argsort(dim=1)  # (B, n)
    rank = order.argsort(dim=1)  # (B, n): where each position falls in the permutation
    nonzero = rank < difficulty.unsqueeze(1)  # (B, n)
    signs = torch.randint(0, 2, (batch_size, n_elems), generator=generator, device=device) * 2 - 1  # (B, n)
    inputs = (nonzero * signs).float()  # (B, n)
    counted = difficulty if label == "nonzero" else (inputs == 1).sum(dim=1)  # (B,)
    targets = (counted % 2).float()  # (B,)
    return ParityBatch(inputs=inputs, targets=targets, difficulty=difficulty)


def parity_batch(
    batch_size: int,
    n_elems: int,
    min_nonzero: int = 1,
    max_nonzero: int | None = None,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    seq_len: int | None = None,
    label: str = "ones",
) -> ParityBatch:
    """Generate ``batch_size`` parity problems in one batched call, on ``device``, checking every argument.

    The arguments after ``batch_size`` are those of :class:`ParityVectors` (whose :meth:`~ParityVectors.draw`
    a training loop calls instead, checked once) and of its ``draw``.
    """
    return ParityVectors(n_elems, min_nonzero, max_nonzero, seq_len, label).draw(batch_size, generator, device)
