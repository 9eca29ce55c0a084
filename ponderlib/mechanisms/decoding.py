"""Decoding a trained pointer network (Vinyals et al. 2015, sec. 2.3): greedy, or by beam search, and the
check a task's metrics run on the pointers it gets back.

Greedy decoding takes, at every decoder step, the most likely available position
(:meth:`~ponderlib.mechanisms.pointer.PointerNetwork.forward` without a teacher); beam search keeps the
``beam_width`` most likely partial outputs. No position is emitted twice; without the end pointer the
outputs are permutations.
"""

from __future__ import annotations

import torch

from ponderlib.core.engine import evaluating
from ponderlib.core.validation import (
    check_int,
    ensure_tensor,
    ensure_type,
)
from ponderlib.mechanisms.pointer import MAX_BEAM_WIDTH, DecoderOutput, PointerNetwork


def check_pointers(pointers: torch.Tensor, lengths: torch.Tensor, end: int | None = None) -> None:
    """Raise unless ``pointers (B, T)`` is an integer tensor (``TypeError`` for anything but a tensor)
    whose entries are each -1 (after the output), ``end`` (the end pointer's index, when there is
    one) or a real position ``0 <= j < lengths[b]`` of its row (``ValueError`` naming ``pointers``):
    what a task's metrics read before they index the inputs with it."""
    ensure_tensor("pointers", pointers, " of integer positions, shape (B, T)")
    if pointers.dim() != 2 or pointers.shape[0] != lengths.shape[0] or pointers.is_floating_point():
        raise ValueError(
            f"pointers must be integers of shape ({lengths.shape[0]}, T), got {pointers.dtype} {tuple(pointers.shape)}"
        )
    allowed = (pointers == -1) | ((pointers >= 0) & (pointers < lengths.to(pointers.device).unsqueeze(1)))  # (B, T)
    if end is not None:
        allowed |= pointers == end
    if not bool(allowed.all()):
        row, step = (int(i) for i in (~allowed).nonzero()[0])
        ends = "" if end is None else f", the end ({end})"
        raise ValueError(
            f"pointers must each be -1{ends} or a real position below the sample's length; "
            f"got {int(pointers[row, step])} at [{row}, {step}], length {int(lengths[row])}"
        )



@torch.no_grad()
def greedy_decode(model: PointerNetwork, inputs: torch.Tensor, lengths: torch.Tensor) -> DecoderOutput:
    """Greedy decoding: at each step the most likely available position. No position is emitted
    twice; without the end pointer the outputs are permutations."""
    ensure_type("model", model, PointerNetwork)
    return model(inputs, lengths)



@torch.no_grad()
def beam_search(
    model: PointerNetwork, inputs: torch.Tensor, lengths: torch.Tensor, beam_width: int = 4
) -> tuple[torch.Tensor, torch.Tensor]:
    """Beam search over whole outputs, batched over samples and beams.

    Keeps the ``beam_width`` most likely partial outputs ``C_1 .. C_i`` per sample (by
    ``sum log p``), expanding each by every available position. Without the end pointer the outputs
    are permutations; with it (``model.end_pointer``), ordered subsets of the inputs closed by the end
    (a convex hull), and a beam that has pointed at the end is finished: it carries on unchanged at
    no cost, competing with the longer outputs by its total ``log p`` (no length normalisation).
    Beam width 1 is greedy decoding. Not guaranteed to score above greedy decoding: a beam can drop
    greedy's prefix for others that end lower.

    Returns:
        ``pointers (B, T)`` (-1 at padded steps) and their total ``log p (B,)``.
    """
    ensure_type("model", model, PointerNetwork)
    check_int("beam_width", beam_width, minimum=1, maximum=MAX_BEAM_WIDTH)
    encoded = model.encode(inputs, lengths).repeat_interleave(beam_width)  # tensors (B*K, ...)
    B, width = inputs.shape[0], encoded.mask.shape[1]  # width N' = N (+ 1 with the end pointer)
    K = beam_width
    end = width - 1 if model.end_pointer else -1  # the end's index (none: -1, never chosen)
    device = inputs.device
    projected_keys = model.attention.project_keys(encoded.states) if model.decoder != "seq2seq" else None
    previous = model.start.expand(B * K, -1)  # (B*K, H)
    state = encoded.initial
    chosen = torch.zeros(B * K, width, dtype=torch.bool, device=device)  # (B*K, N')
    finished = torch.zeros(B * K, dtype=torch.bool, device=device)  # (B*K,)
    scores = torch.full((B, K), float("-inf"), device=device)  # (B, K)
    scores[:, 0] = 0.0  # one live beam at the start, so the K beams do not begin as copies
    history = torch.zeros(B, K, 0, dtype=torch.long, device=device)  # (B, K, i)
    stay = torch.full((width,), float("-inf"), device=device)
    stay[0] = 0.0  # a finished beam's only continuation: cost 0, so it carries on unchanged
    rows = torch.arange(B * K, device=device)
    batch_rows = torch.arange(B, device=device).unsqueeze(1)  # (B, 1)
    for i in range(width):
        if not model.end_pointer:
            finished = i >= encoded.lengths  # (B*K,), the same for all beams of a sample
        available = encoded.mask & ~chosen  # (B*K, N')
        log_probs, _, (h, c) = model.step(encoded, projected_keys, previous, state, available)
        log_probs = torch.where(finished.unsqueeze(1), stay, log_probs)  # (B*K, N')
        candidates = scores.unsqueeze(-1) + log_probs.view(B, K, width)  # (B, K, N')
        scores, flat = candidates.view(B, K * width).topk(K, dim=1)  # (B, K)
        parent, position = flat // width, flat % width  # (B, K) each
        source = (batch_rows * K + parent).view(-1)  # (B*K,) row each new beam extends
        state = (h[source], c[source])
        chosen = chosen[source].clone()
        step_valid = ~finished[source]  # (B*K,)
        position = position.view(-1)  # (B*K,)
        chosen[rows, position] |= step_valid
        previous = encoded.embedded[rows, position]  # (B*K, H)
        step_pointer = torch.where(step_valid, position, -1).view(B, K, 1)
        history = torch.cat([history[batch_rows, parent], step_pointer], dim=-1)  # (B, K, i + 1)
        if model.end_pointer:
            finished = ~step_valid | (position == end)  # (B*K,)
            # A beam of score -inf (fewer outputs than beams) is never returned: it need not finish.
            if bool((finished | scores.view(-1).isinf()).all()):  # one sync per decoder step
                break
    best = scores.argmax(dim=1)  # (B,)
    return history[torch.arange(B, device=device), best], scores.max(dim=1).values


def decode(model: PointerNetwork, inputs: torch.Tensor, lengths: torch.Tensor, beam_width: int = 1) -> torch.Tensor:
    """The pointers ``(B, T)`` a trained model outputs, in eval mode without gradients: greedy decoding
    when ``beam_width`` is 1 (:func:`greedy_decode`), else :func:`beam_search` with ``beam_width`` beams."""
    with evaluating(model):
        if beam_width == 1:
            return greedy_decode(model, inputs, lengths).pointers
        return beam_search(model, inputs, lengths, beam_width)[0]
