"""Pointer networks (Vinyals, Fortunato and Jaitly 2015) and three seq2seq baselines.

A mechanism, not a task: it knows nothing of what the right output is. A task (sorting in
:mod:`ponderlib.tasks.sorting`, convex hulls in :mod:`ponderlib.tasks.convex_hull`) supplies the
teacher-forcing targets, the loss and the metrics.

An LSTM encoder (optionally bidirectional) reads the inputs ``x_1 .. x_n`` into states
``e_1 .. e_n`` (Bahdanau's ``h_j``). An LSTM decoder then runs one **decoder step** per output.
The four decoders differ in how a decoder step scores the input positions:

- ``"pointer"`` (Vinyals et al. eq. 3 and sec. 2.3): the new state ``d_i = f(d_{i-1}, y_{i-1})``
  scores every position, ``u^i_j = v^T tanh(W_1 e_j + W_2 d_i)``, and
  ``p(C_i | C_1 .. C_{i-1}, P) = softmax(u^i)``: the output distribution *is* the attention, over
  the input positions, so the output "vocabulary" grows with the input.
- ``"seq2seq"``: ``softmax(W_o d_i)`` over a fixed vocabulary of ``max_positions`` positions.
- ``"bahdanau"`` (Bahdanau et al. 2015, eqs. 4-6 and appendix A.1.2), as they wrote it: the
  *previous* state scores, ``e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j)``, ``alpha_i = softmax(e_i)``
  (eq. 6), ``c_i = sum_j alpha_ij h_j`` (eq. 5); the context goes *into* the recurrent update,
  ``s_i = f(s_{i-1}, y_{i-1}, c_i)``; the output is ``p(y_i | ...) = g(y_{i-1}, s_i, c_i)`` (eq. 4),
  here a linear layer on ``[E y_{i-1}; s_i; c_i]`` and a softmax over the fixed vocabulary (their
  appendix A.2.2 puts a maxout layer before it).
- ``"luong"``: the variant this book used first (Luong-style, with an additive score): the *new*
  state ``d_i = f(d_{i-1}, y_{i-1})`` scores, and the output is ``softmax(W_o [d_i; c_i])``; the
  context never enters the recurrence.

Everything else is shared: the decoder's next input ``y_{i-1}`` is the embedding of the element
just chosen, gathered with tensor indexing for the whole batch; padded positions and positions
already chosen are masked, so no position is emitted twice; training uses teacher forcing with a
ratio, the right choice coming from the caller's ``teacher``; decoding is greedy or beam search
(:mod:`ponderlib.mechanisms.decoding`).
The encoder sets padded inputs to zero before it reads them, so whatever the padding holds (NaN
and infinities included) the real positions' outputs are those of a batch padded with zeros.

Outputs of variable length: with ``end_pointer=True`` the encoder appends one learned position,
"end", after the ``N`` input columns (index ``N``). It is always available, a sample stops at the
decoder step that points at it, and the output is then any ordered subset of the inputs (a convex
hull) rather than a permutation. Without it, a sample of length ``n`` stops after ``n`` steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ponderlib.core.validation import (
    MAX_ELEMENTS,
    MAX_LENGTH,
    MAX_STEPS,
    MAX_WIDTH,
    check_choice,
    check_counts,
    check_fraction,
    check_product,
    ensure_finite,
    ensure_generator,
    ensure_model_input,
    ensure_tensor,
)
from ponderlib.mechanisms.attention import AdditiveAttention, context, masked_log_softmax, zero_padding


def check_decoding_sizes(
    sizes: dict[str, int], length: tuple[str, int], widths: dict[str, int], beam_width: int | None = None,
    tested: tuple[str, int, int] | None = None,
) -> None:
    """Raise unless the products of counts that size a pointer network's decoding fit, naming a count (each
    count already within its own bound): for each batch in ``sizes`` (``{"batch_size": 128}``) of arrays of
    up to ``length`` (``("max_len", 10)``), the ``(B, T, T)`` pointer scores and the encoder's ``(B, T, width)``
    outputs (``widths``: hidden and attention sizes), ``B`` times ``beam_width`` when decoding with beams;
    and, for a test at every length ``tested = (name, shortest, longest)``, its decoder steps (lengths x the
    longest) at most :data:`~ponderlib.core.validation.MAX_STEPS`."""
    if tested is not None:
        name, shortest, longest = tested
        check_product(MAX_STEPS, "the test's decoder steps, at every length", ("lengths", longest - shortest + 1), (name, longest))
    width = max(widths.items(), key=lambda item: item[1])
    beams = [] if beam_width is None else [("beam_width", beam_width)]
    for size in sizes.items():
        check_product(MAX_ELEMENTS, "the pointer scores, (B, T, T)", length, length, size, *beams)
        check_product(MAX_ELEMENTS, "the encoder's outputs, (B, T, width)", length, width, size, *beams)


Teacher = Callable[[torch.Tensor], torch.Tensor]
"""``available (B, N) bool -> (B,) int64``: the right next position given the positions still
available (``N + 1`` columns with an end pointer, the last one "end"); the caller's knowledge of
the task, used for teacher forcing."""

DECODERS = ("pointer", "seq2seq", "bahdanau", "luong")
"""The decoders chapter 3 compares: pointer network, seq2seq, seq2seq with Bahdanau's attention,
and with the Luong-style variant."""

ATTENTION_DECODERS = ("bahdanau", "luong")
"""The seq2seq decoders that read a context vector ``c_i``."""

MAX_BEAM_WIDTH = 1_000
"""The most beams :func:`beam_search` keeps per sample: it decodes ``B * beam_width`` outputs at
once, each expanded by every position, so a wider beam would allocate without bound (the book
uses 3)."""


@dataclass
class Encoded:
    """The encoder's output for a batch.

    Attributes:
        embedded: ``(B, N, H)`` input embeddings, also the decoder inputs after a choice.
        states: ``(B, N, E)`` encoder states ``e_j``: the LSTM output at ``j`` concatenated with
            ``x_j``'s own embedding (``E = 3H`` when bidirectional, ``2H`` otherwise).
        mask: ``(B, N)`` bool, True at real positions.
        lengths: ``(B,)`` int64.
        initial: the decoder's initial ``(h, c)``, each ``(B, H)``.
    """

    embedded: torch.Tensor
    states: torch.Tensor
    mask: torch.Tensor
    lengths: torch.Tensor
    initial: tuple[torch.Tensor, torch.Tensor]

    def repeat_interleave(self, k: int) -> Encoded:
        """Each sample repeated ``k`` times along the batch (for beam search)."""
        rep = lambda t: t.repeat_interleave(k, dim=0)  # noqa: E731
        return Encoded(rep(self.embedded), rep(self.states), rep(self.mask), rep(self.lengths),
                       (rep(self.initial[0]), rep(self.initial[1])))

    def with_end(self, end_embedding: torch.Tensor, end_state: torch.Tensor) -> Encoded:
        """The same batch with one more position, "end", after the ``N`` columns (index ``N``).

        ``end_embedding (H,)`` and ``end_state (E,)`` are learned; the end is a real position in
        ``mask`` (always available), while ``lengths`` still counts the inputs alone.
        """
        B = self.mask.shape[0]
        return Encoded(
            torch.cat([self.embedded, end_embedding.expand(B, 1, -1)], dim=1),  # (B, N + 1, H)
            torch.cat([self.states, end_state.expand(B, 1, -1)], dim=1),  # (B, N + 1, E)
            torch.cat([self.mask, self.mask.new_ones(B, 1)], dim=1),  # (B, N + 1)
            self.lengths,
            self.initial,
        )


class PointerEncoder(nn.Module):
    """Embeds each input ``x_j`` (a scalar, or a vector of ``input_size``) and runs an LSTM over the
    sequence, ignoring the padding.

    The state ``e_j`` that attention scores is the LSTM output *and* the element's own embedding:
    the LSTM output mixes in the neighbours, and with the embedding beside it the pointer can rank
    close real values precisely (sorting 10 reals: about 0.97 exact match instead of 0.90 for the
    same training). Packing the padded batch makes the backward direction of a bidirectional LSTM start at each
    array's true last element, and the final states come from the true last step.
    """

    def __init__(self, hidden: int, bidirectional: bool = True, input_size: int = 1):
        super().__init__()
        self.embed = nn.Linear(input_size, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=bidirectional)
        directions = 2 if bidirectional else 1
        self.state_dim = hidden * directions + hidden
        self.bridge_h = nn.Linear(hidden * directions, hidden)
        self.bridge_c = nn.Linear(hidden * directions, hidden)

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> Encoded:
        """``inputs (B, N)`` scalars or ``(B, N, input_size)`` vectors, ``lengths (B,)`` -> :class:`Encoded`.

        Inputs at padded positions (``j >= lengths``) are read as zeros, whatever they hold."""
        ensure_tensor("inputs", inputs)
        ensure_tensor("lengths", lengths)
        B, N = inputs.shape[:2]
        mask = torch.arange(N, device=inputs.device) < lengths.unsqueeze(1)  # (B, N)
        inputs = zero_padding(inputs, mask)  # (B, N[, input_size])
        embedded = self.embed(inputs.unsqueeze(-1) if inputs.dim() == 2 else inputs)  # (B, N, H)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        packed_states, (h_n, c_n) = self.lstm(packed)  # h_n, c_n: (directions, B, H)
        states, _ = pad_packed_sequence(packed_states, batch_first=True, total_length=N)  # (B, N, E - H)
        states = torch.cat([states, embedded], dim=-1)  # (B, N, E)
        h_last = h_n.transpose(0, 1).reshape(B, -1)  # (B, E)
        c_last = c_n.transpose(0, 1).reshape(B, -1)  # (B, E)
        initial = (torch.tanh(self.bridge_h(h_last)), self.bridge_c(c_last))  # (B, H) each
        return Encoded(embedded, states, mask, lengths, initial)


@dataclass
class DecoderOutput:
    """What a decoding pass returns. ``N'`` is the number of positions (``N``, or ``N + 1`` with
    the end pointer); ``T <= N'`` decoder steps, and steps after a sample has finished are padding.

    Attributes:
        log_probs: ``(B, T, N')``, ``log p(C_i = j)``; ``-inf`` at masked positions and padded steps.
        pointers: ``(B, T)`` int64, the position chosen at each step (fed to the next step);
            -1 at padded steps. With the end pointer, a sample's last real step points at ``N``.
        attention: ``(B, T, N')``, the attention weights (for the pointer and the seq2seq baseline,
            which has no attention, the output probabilities).
        available: ``(B, T, N')`` bool, the positions that could be chosen at each step.
    """

    log_probs: torch.Tensor
    pointers: torch.Tensor
    attention: torch.Tensor
    available: torch.Tensor


class PointerNetwork(nn.Module):
    """Encoder plus one of the decoders of :data:`DECODERS`.

    Args:
        decoder: ``"pointer"``, ``"seq2seq"``, ``"bahdanau"`` or ``"luong"``.
        hidden: LSTM size ``H`` of encoder (per direction) and decoder.
        attention_dim: size of ``v`` in the score ``u^i_j``.
        bidirectional: bidirectional encoder.
        max_positions: output vocabulary of the seq2seq baselines (the longest input they can
            handle); the pointer ignores it.
        input_size: features per input element (1: scalars, given as ``(B, N)``; 2: planar points).
        end_pointer: append the learned "end" position, for outputs of variable length.
    """

    def __init__(
        self,
        decoder: str = "pointer",
        hidden: int = 64,
        attention_dim: int = 64,
        bidirectional: bool = True,
        max_positions: int = 10,
        input_size: int = 1,
        end_pointer: bool = False,
    ):
        super().__init__()
        check_choice("decoder", decoder, DECODERS)
        check_counts(MAX_WIDTH, hidden=hidden, attention_dim=attention_dim, input_size=input_size)
        check_counts(MAX_LENGTH, max_positions=max_positions)
        self.decoder = decoder
        self.max_positions = max_positions
        self.input_size = input_size
        self.end_pointer = end_pointer
        self.encoder = PointerEncoder(hidden, bidirectional, input_size)
        state_dim = self.encoder.state_dim
        self.start = nn.Parameter(torch.randn(hidden) * 0.1)  # the decoder's first input y_0, "go"
        if end_pointer:
            self.end_embedding = nn.Parameter(torch.randn(hidden) * 0.1)  # the end position's embedding
            self.end_state = nn.Parameter(torch.randn(state_dim) * 0.1)  # its encoder state, the key it is scored by
        context_size = state_dim if decoder == "bahdanau" else 0  # Bahdanau feeds c_i into the update
        self.cell = nn.LSTMCell(hidden + context_size, hidden)
        if decoder != "seq2seq":
            self.attention = AdditiveAttention(state_dim, hidden, attention_dim)
        readout = {"seq2seq": hidden, "luong": hidden + state_dim, "bahdanau": 2 * hidden + state_dim}
        if decoder in readout:
            self.out = nn.Linear(readout[decoder], max_positions + int(end_pointer))

    def encode(self, inputs: torch.Tensor, lengths: torch.Tensor, check: bool = True) -> Encoded:
        """Run the encoder (see :class:`PointerEncoder`) and append the end position if there is one.

        ``check``: check that ``inputs`` and ``lengths`` are tensors (``TypeError``), the shape of
        ``inputs``, and that ``lengths`` holds integers in ``[1, N]`` (two GPU synchronisations); a
        training loop whose batches the library drew passes False.
        """
        if check:
            self._check_inputs(inputs, lengths)
        encoded = self.encoder(inputs, lengths)
        return encoded.with_end(self.end_embedding, self.end_state) if self.end_pointer else encoded

    def _check_inputs(self, inputs: torch.Tensor, lengths: torch.Tensor) -> None:
        shape = "(B, N)" if self.input_size == 1 else f"(B, N, {self.input_size})"
        ensure_tensor("inputs", inputs, f" of shape {shape}")
        ensure_tensor("lengths", lengths, " of shape (B,)")
        rank_ok = inputs.dim() == 2 and self.input_size == 1 or inputs.dim() == 3 and inputs.shape[2] == self.input_size
        if not rank_ok or inputs.shape[0] == 0 or inputs.shape[1] == 0:
            raise ValueError(f"inputs must have shape {shape} with B, N >= 1, got {tuple(inputs.shape)}")
        check_counts(MAX_LENGTH, **{"inputs' width N": inputs.shape[1]})
        if self.decoder != "pointer" and inputs.shape[1] > self.max_positions:
            raise ValueError(
                f"the {self.decoder} decoder emits positions from a fixed vocabulary of max_positions="
                f"{self.max_positions}; inputs of width {inputs.shape[1]} are out of range (use the pointer)"
            )
        if lengths.shape != inputs.shape[:1] or lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == torch.bool:
            raise ValueError(f"lengths must be integers of shape ({inputs.shape[0]},), got {lengths.dtype} {tuple(lengths.shape)}")
        if bool((lengths < 1).any()) or bool((lengths > inputs.shape[1]).any()):
            raise ValueError(f"lengths must be in [1, {inputs.shape[1]}], got {lengths.tolist()}")
        ensure_model_input("inputs", inputs, self)
        real = torch.arange(inputs.shape[1], device=inputs.device) < lengths.unsqueeze(1)  # (B, N)
        ensure_finite("inputs at real positions (j < lengths)", inputs[real])  # padding is never read

    def vocabulary_log_probs(self, logits: torch.Tensor, available: torch.Tensor) -> torch.Tensor:
        """A seq2seq decoder's ``log softmax`` over its fixed vocabulary, cut to the batch's positions.

        ``logits (B, V)`` (``V = max_positions``, plus the end as the last entry), ``available
        (B, N')`` -> ``(B, N')``: the first ``N`` entries, then the end's, masked.
        """
        width = available.shape[1] - int(self.end_pointer)
        scores = logits[:, :width]  # (B, N)
        if self.end_pointer:
            scores = torch.cat([scores, logits[:, -1:]], dim=-1)  # (B, N + 1)
        return masked_log_softmax(scores, available)

    def step(
        self,
        encoded: Encoded,
        projected_keys: torch.Tensor | None,
        previous: torch.Tensor,
        state: tuple[torch.Tensor, torch.Tensor],
        available: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """One decoder step.

        Args:
            encoded: the batch's :class:`Encoded`.
            projected_keys: ``(B, N', A)``, ``W_1 e_j`` (None for ``"seq2seq"``).
            previous: ``(B, H)``, the embedding of the previous output ``y_{i-1}``.
            state: the previous decoder state ``s_{i-1}`` as ``(h, c)``, each ``(B, H)``.
            available: ``(B, N')`` bool, the positions that may be chosen.

        Returns:
            ``log p(C_i = j)`` ``(B, N')``, the attention weights ``(B, N')``, the new state ``s_i``.
        """
        if self.decoder == "bahdanau":
            e = self.attention.scores(projected_keys, state[0], encoded.mask)  # (B, N'): e_ij = a(s_{i-1}, h_j)
            alpha = torch.softmax(e, dim=-1)  # (B, N'): alpha_ij, Bahdanau eq. 6
            c = context(alpha, encoded.states)  # (B, E): c_i, Bahdanau eq. 5
            h, cell = self.cell(torch.cat([previous, c], dim=-1), state)  # s_i = f(s_{i-1}, y_{i-1}, c_i)
            logits = self.out(torch.cat([previous, h, c], dim=-1))  # (B, V): g(y_{i-1}, s_i, c_i), eq. 4
            return self.vocabulary_log_probs(logits, available), alpha, (h, cell)
        h, cell = self.cell(previous, state)  # (B, H) each: d_i = f(d_{i-1}, y_{i-1})
        if self.decoder == "seq2seq":
            log_probs = self.vocabulary_log_probs(self.out(h), available)  # (B, N')
            return log_probs, log_probs.exp(), (h, cell)
        if self.decoder == "pointer":
            u = self.attention.scores(projected_keys, h)  # (B, N'): u^i, Vinyals eq. 3
            log_probs = masked_log_softmax(u, available)  # (B, N'): log p(C_i = j), Vinyals sec. 2.3
            return log_probs, log_probs.exp(), (h, cell)
        u = self.attention.scores(projected_keys, h, encoded.mask)  # (B, N'): scored by the new state d_i
        weights = torch.softmax(u, dim=-1)  # (B, N')
        logits = self.out(torch.cat([h, context(weights, encoded.states)], dim=-1))  # (B, V): W_o [d_i; c_i]
        return self.vocabulary_log_probs(logits, available), weights, (h, cell)

    def forward(
        self,
        inputs: torch.Tensor,
        lengths: torch.Tensor,
        teacher: Teacher | None = None,
        teacher_forcing: float = 1.0,
        generator: torch.Generator | None = None,
        check: bool = True,
    ) -> DecoderOutput:
        """Decode a whole batch, greedily or with teacher forcing.

        Args:
            inputs: ``(B, N)`` scalars or ``(B, N, input_size)``; lengths: ``(B,)``.
            teacher: the caller's right next position given the positions still available (see
                :data:`Teacher`); None decodes greedily.
            teacher_forcing: with a ``teacher``, the probability, per sample and decoder step, of
                feeding the right next element instead of the model's own greedy choice.
            generator: for the teacher-forcing coin flips.
            check: check the arguments (see :meth:`encode`); a training loop whose config was
                validated once and whose batches the library drew passes False.

        A sample finishes after ``n`` decoder steps, or, with the end pointer, at the step that
        points at the end; with the end pointer the loop stops once every sample has finished.
        """
        if check:
            check_fraction("teacher_forcing", teacher_forcing)
            ensure_generator("generator", generator)
        encoded = self.encode(inputs, lengths, check)
        B, width = encoded.mask.shape  # width N' = N (+ 1 with the end pointer)
        end = width - 1 if self.end_pointer else -1  # the end's index (none: -1, never chosen)
        projected_keys = self.attention.project_keys(encoded.states) if self.decoder != "seq2seq" else None  # (B, N', A)
        previous = self.start.expand(B, -1)  # (B, H): y_0
        state = encoded.initial
        chosen = torch.zeros(B, width, dtype=torch.bool, device=inputs.device)  # (B, N')
        finished = torch.zeros(B, dtype=torch.bool, device=inputs.device)  # (B,)
        rows = torch.arange(B, device=inputs.device)
        all_log_probs, all_pointers, all_attention, all_available = [], [], [], []
        for i in range(width):
            if not self.end_pointer:
                finished = i >= lengths  # (B,)
            available = encoded.mask & ~chosen & ~finished.unsqueeze(1)  # (B, N')
            log_probs, attention, state = self.step(encoded, projected_keys, previous, state, available)
            choice = log_probs.argmax(dim=-1)  # (B,)
            if teacher is not None and teacher_forcing > 0.0:
                right = teacher(available)  # (B,)
                if teacher_forcing >= 1.0:
                    choice = right
                else:
                    coin = torch.rand(B, generator=generator, device=inputs.device) < teacher_forcing  # (B,)
                    choice = torch.where(coin, right, choice)
            step_valid = ~finished  # (B,)
            chosen[rows, choice] |= step_valid
            previous = encoded.embedded[rows, choice]  # (B, H): the element just chosen
            all_log_probs.append(log_probs)
            all_pointers.append(torch.where(step_valid, choice, -1))
            all_attention.append(attention)
            all_available.append(available)
            if self.end_pointer:
                finished = finished | (choice == end)
                if bool(finished.all()):  # one sync per decoder step: the outputs are shorter than N'
                    break
        return DecoderOutput(
            log_probs=torch.stack(all_log_probs, dim=1),  # (B, T, N')
            pointers=torch.stack(all_pointers, dim=1),  # (B, T)
            attention=torch.stack(all_attention, dim=1),  # (B, T, N')
            available=torch.stack(all_available, dim=1),  # (B, T, N')
        )


@dataclass
class PointerStep:
    """One decoder step of the pointer, from its scores.

    Attributes:
        probs: ``(B, N')``, ``p(C_i = j)``; exactly 0 at the positions the mask removes.
        log_probs: ``(B, N')``, ``log p(C_i = j)``; ``-inf`` at the positions the mask removes.
        choice: ``(B,)`` int64, greedy decoding's next position, the most likely available one (the
            first of equals); -1 in a row with nothing available, as :class:`DecoderOutput` writes a
            finished sample's step.
    """

    probs: torch.Tensor
    log_probs: torch.Tensor
    choice: torch.Tensor


def pointer_step(scores: torch.Tensor, available: torch.Tensor) -> PointerStep:
    """The pointer distribution of one decoder step and greedy decoding's choice from it.

    ``p(C_i = j | C_1 .. C_{i-1}, P) = softmax(u^i)_j`` over the available positions (Vinyals et al.
    sec. 2.3), the scores ``u^i`` of the others replaced by ``-inf`` (:func:`masked_log_softmax`), and
    ``argmax_j`` of it, as :meth:`PointerNetwork.forward` decodes greedily.

    Shapes: ``scores (B, N')`` (the ``u^i_j`` of :meth:`AdditiveAttention.scores`), ``available (B, N')``
    bool, True where a position may be chosen (real, and not chosen yet) -> :class:`PointerStep`.
    """
    log_probs = masked_log_softmax(scores, available)  # (B, N')
    choice = torch.where(available.any(dim=-1), log_probs.argmax(dim=-1), -1)  # (B,)
    return PointerStep(probs=log_probs.exp(), log_probs=log_probs, choice=choice)


