"""Pointer networks (Vinyals, Fortunato and Jaitly 2015) and two seq2seq baselines, on sorting.

An LSTM encoder (optionally bidirectional) reads the array ``x_1 .. x_n`` into states
``e_1 .. e_n``. An LSTM decoder then runs one step per output; its state ``d_i`` scores every input
position with additive attention (:mod:`ponderlib.attention`, eq. 3.1)

    (3.4)  u^i_j = v^T tanh(W_1 e_j + W_2 d_i)
    (3.5)  p(C_i | C_1 .. C_{i-1}, x) = softmax(u^i)

and ``softmax(u^i)`` (eq. 3.5) is the output distribution itself, over the input positions, so the
output "vocabulary" grows with the input. The three decoders of chapter 3 differ only in how a
step's distribution over positions is scored:

- ``"pointer"``: eq. 3.5.
- ``"seq2seq"``: ``softmax(W_o d_i)`` over a fixed vocabulary of ``max_positions`` positions.
- ``"attention"``: ``softmax(W_o [d_i; c_i])`` with the Bahdanau context ``c_i`` (eq. 3.3).

Everything else is shared: the decoder's next input is the embedding of the element just chosen,
gathered with tensor indexing for the whole batch; padded positions and positions already chosen
are masked, so every output is a permutation of the input; training uses teacher forcing with a
ratio; decoding is greedy or beam search. The loss and the metrics accept any copy of a
duplicated value (see :func:`ponderlib.sorting.oracle_choices`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ponderlib.attention import AdditiveAttention, context, masked_log_softmax
from ponderlib.device import get_device
from ponderlib.sorting import ORDERS, VALUE_KINDS, SortBatch, check_lengths, oracle_choices, sort_batch
from ponderlib.training import FitResult, History, check_training_fields, fit, round_or_none, start_training
from ponderlib.validation import check_choice, check_int

DECODERS = ("pointer", "seq2seq", "attention")
"""The three decoders chapter 3 compares: pointer network, seq2seq, seq2seq with attention."""


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


class SortEncoder(nn.Module):
    """Embeds each scalar ``x_j`` and runs an LSTM over the array, ignoring the padding.

    The state ``e_j`` that attention scores is the LSTM output *and* the element's own embedding:
    the LSTM output mixes in the neighbours, and with the embedding beside it the pointer can rank
    close real values precisely (sorting 10 reals: about 0.97 exact match instead of 0.90 for the
    same training). Packing the padded batch makes the backward direction of a bidirectional LSTM start at each
    array's true last element, and the final states come from the true last step.
    """

    def __init__(self, hidden: int, bidirectional: bool = True):
        super().__init__()
        self.embed = nn.Linear(1, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True, bidirectional=bidirectional)
        directions = 2 if bidirectional else 1
        self.state_dim = hidden * directions + hidden
        self.bridge_h = nn.Linear(hidden * directions, hidden)
        self.bridge_c = nn.Linear(hidden * directions, hidden)

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> Encoded:
        """``inputs (B, N)`` values and ``lengths (B,)`` -> :class:`Encoded`."""
        B, N = inputs.shape
        embedded = self.embed(inputs.unsqueeze(-1))  # (B, N, H)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        packed_states, (h_n, c_n) = self.lstm(packed)  # h_n, c_n: (directions, B, H)
        states, _ = pad_packed_sequence(packed_states, batch_first=True, total_length=N)  # (B, N, E - H)
        states = torch.cat([states, embedded], dim=-1)  # (B, N, E)
        h_last = h_n.transpose(0, 1).reshape(B, -1)  # (B, E)
        c_last = c_n.transpose(0, 1).reshape(B, -1)  # (B, E)
        mask = torch.arange(N, device=inputs.device) < lengths.unsqueeze(1)  # (B, N)
        initial = (torch.tanh(self.bridge_h(h_last)), self.bridge_c(c_last))  # (B, H) each
        return Encoded(embedded, states, mask, lengths, initial)


@dataclass
class DecoderOutput:
    """What a decoding pass returns (``T = N`` steps; steps past a sample's length are padding).

    Attributes:
        log_probs: ``(B, T, N)``, ``log p(C_i = j)``; ``-inf`` at masked positions and padded steps.
        pointers: ``(B, T)`` int64, the position chosen at each step (fed to the next step);
            -1 at padded steps.
        attention: ``(B, T, N)``, the attention weights ``a^i`` (for the pointer these are the output
            probabilities, for the seq2seq baseline, which has no attention, the output probabilities).
        available: ``(B, T, N)`` bool, the positions that could be chosen at each step.
    """

    log_probs: torch.Tensor
    pointers: torch.Tensor
    attention: torch.Tensor
    available: torch.Tensor


class SortNetwork(nn.Module):
    """Encoder plus one of the three decoders (:data:`DECODERS`) for sorting.

    Args:
        decoder: ``"pointer"``, ``"seq2seq"`` or ``"attention"``.
        hidden: LSTM size ``H`` of encoder (per direction) and decoder.
        attention_dim: size of ``v`` in eq. 3.4.
        bidirectional: bidirectional encoder.
        max_positions: output vocabulary of the seq2seq baselines (the longest array they can
            sort); the pointer ignores it.
    """

    def __init__(
        self,
        decoder: str = "pointer",
        hidden: int = 64,
        attention_dim: int = 64,
        bidirectional: bool = True,
        max_positions: int = 10,
    ):
        super().__init__()
        check_choice("decoder", decoder, DECODERS)
        check_int("hidden", hidden, minimum=1)
        check_int("attention_dim", attention_dim, minimum=1)
        check_int("max_positions", max_positions, minimum=1)
        self.decoder = decoder
        self.max_positions = max_positions
        self.encoder = SortEncoder(hidden, bidirectional)
        state_dim = self.encoder.state_dim
        self.start = nn.Parameter(torch.randn(hidden) * 0.1)  # the decoder's first input, "go"
        self.cell = nn.LSTMCell(hidden, hidden)
        if decoder in ("pointer", "attention"):
            self.attention = AdditiveAttention(state_dim, hidden, attention_dim)
        if decoder == "seq2seq":
            self.out = nn.Linear(hidden, max_positions)
        elif decoder == "attention":
            self.out = nn.Linear(hidden + state_dim, max_positions)

    def encode(self, inputs: torch.Tensor, lengths: torch.Tensor) -> Encoded:
        """Run the encoder; see :class:`SortEncoder`."""
        if inputs.dim() != 2 or inputs.shape[0] == 0 or inputs.shape[1] == 0:
            raise ValueError(f"inputs must have shape (B, N) with B, N >= 1, got {tuple(inputs.shape)}")
        if self.decoder != "pointer" and inputs.shape[1] > self.max_positions:
            raise ValueError(
                f"the {self.decoder} decoder emits positions from a fixed vocabulary of max_positions="
                f"{self.max_positions}; inputs of width {inputs.shape[1]} are out of range (use the pointer)"
            )
        if bool((lengths < 1).any()) or bool((lengths > inputs.shape[1]).any()):
            raise ValueError(f"lengths must be in [1, {inputs.shape[1]}], got {lengths.tolist()}")
        return self.encoder(inputs, lengths)

    def step(
        self,
        encoded: Encoded,
        projected_keys: torch.Tensor | None,
        decoder_input: torch.Tensor,
        state: tuple[torch.Tensor, torch.Tensor],
        available: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """One decoder step: log-probabilities over positions ``(B, N)``, attention ``(B, N)``, new state.

        ``available (B, N)`` is the mask: real positions not yet chosen.
        """
        h, c = self.cell(decoder_input, state)  # (B, H) each
        N = available.shape[1]
        if self.decoder == "pointer":
            u = self.attention.scores(projected_keys, h)  # (B, N), eq. 3.4
            log_probs = masked_log_softmax(u, available)  # (B, N), eq. 3.5
            return log_probs, log_probs.exp(), (h, c)
        if self.decoder == "attention":
            u = self.attention.scores(projected_keys, h, encoded.mask)  # (B, N), eq. 3.1
            weights = torch.softmax(u, dim=-1)  # (B, N), eq. 3.2
            logits = self.out(torch.cat([h, context(weights, encoded.states)], dim=-1))  # (B, V), eq. 3.3
        else:
            logits = self.out(h)  # (B, V)
            weights = None
        log_probs = masked_log_softmax(logits[:, :N], available)  # (B, N)
        return log_probs, (log_probs.exp() if weights is None else weights), (h, c)

    def forward(
        self,
        inputs: torch.Tensor,
        lengths: torch.Tensor,
        teacher_forcing: float = 0.0,
        order: str = "asc",
        generator: torch.Generator | None = None,
    ) -> DecoderOutput:
        """Decode a whole batch, greedily or with teacher forcing.

        Args:
            inputs: ``(B, N)`` values; lengths: ``(B,)``.
            teacher_forcing: probability, per sample and step, of feeding the right next element
                (the first of :func:`~ponderlib.sorting.oracle_choices`) instead of the model's own
                greedy choice. 0 is greedy decoding.
            order: the sort order that defines the right element (only used when teacher forcing).
            generator: for the teacher-forcing coin flips.
        """
        if not 0.0 <= teacher_forcing <= 1.0:
            raise ValueError(f"teacher_forcing must be in [0, 1], got {teacher_forcing!r}")
        encoded = self.encode(inputs, lengths)
        B, N = inputs.shape
        projected_keys = self.attention.project_keys(encoded.states) if self.decoder != "seq2seq" else None  # (B, N, A)
        decoder_input = self.start.expand(B, -1)  # (B, H)
        state = encoded.initial
        chosen = torch.zeros(B, N, dtype=torch.bool, device=inputs.device)  # (B, N)
        rows = torch.arange(B, device=inputs.device)
        all_log_probs, all_pointers, all_attention, all_available = [], [], [], []
        for i in range(N):
            available = encoded.mask & ~chosen  # (B, N)
            log_probs, attention, state = self.step(encoded, projected_keys, decoder_input, state, available)
            choice = log_probs.argmax(dim=-1)  # (B,)
            if teacher_forcing > 0.0:
                right = oracle_choices(inputs, available, order).float().argmax(dim=-1)  # (B,) first right position
                if teacher_forcing >= 1.0:
                    choice = right
                else:
                    coin = torch.rand(B, generator=generator, device=inputs.device) < teacher_forcing  # (B,)
                    choice = torch.where(coin, right, choice)
            step_valid = i < lengths  # (B,)
            chosen[rows, choice] |= step_valid
            decoder_input = encoded.embedded[rows, choice]  # (B, H): the element just chosen
            all_log_probs.append(log_probs)
            all_pointers.append(torch.where(step_valid, choice, -1))
            all_attention.append(attention)
            all_available.append(available)
        return DecoderOutput(
            log_probs=torch.stack(all_log_probs, dim=1),  # (B, T, N)
            pointers=torch.stack(all_pointers, dim=1),  # (B, T)
            attention=torch.stack(all_attention, dim=1),  # (B, T, N)
            available=torch.stack(all_available, dim=1),  # (B, T, N)
        )


def sort_loss(output: DecoderOutput, inputs: torch.Tensor, lengths: torch.Tensor, order: str = "asc") -> torch.Tensor:
    """Mean over real steps of ``-log sum_{j right} p(C_i = j)``: every available copy of the right
    next value counts (:func:`~ponderlib.sorting.oracle_choices`), so duplicates are not arbitrary.

    Shapes: ``output.log_probs (B, T, N)``, ``inputs (B, N)``, ``lengths (B,)``; returns a scalar.
    """
    B, T, N = output.log_probs.shape
    right = oracle_choices(inputs.unsqueeze(1).expand(B, T, N).reshape(B * T, N),
                           output.available.reshape(B * T, N), order).view(B, T, N)  # (B, T, N)
    log_p_right = output.log_probs.masked_fill(~right, float("-inf")).logsumexp(dim=-1)  # (B, T)
    step_valid = torch.arange(T, device=inputs.device) < lengths.unsqueeze(1)  # (B, T)
    nll = torch.where(step_valid, -log_p_right, torch.zeros_like(log_p_right))  # (B, T)
    return nll.sum() / step_valid.sum()


@torch.no_grad()
def greedy_decode(model: SortNetwork, inputs: torch.Tensor, lengths: torch.Tensor) -> DecoderOutput:
    """Greedy decoding: at each step the most likely available position. Outputs are permutations."""
    return model(inputs, lengths, teacher_forcing=0.0)


@torch.no_grad()
def beam_search(
    model: SortNetwork, inputs: torch.Tensor, lengths: torch.Tensor, beam_width: int = 4
) -> tuple[torch.Tensor, torch.Tensor]:
    """Beam search over whole output permutations, batched over samples and beams.

    Keeps the ``beam_width`` most likely partial outputs ``C_1 .. C_i`` per sample (by
    ``sum log p``), expanding each by every available position. Beam width 1 is greedy decoding.

    Returns:
        ``pointers (B, T)`` (-1 at padded steps) and their total ``log p (B,)``.
    """
    check_int("beam_width", beam_width, minimum=1)
    B, N = inputs.shape
    K = beam_width
    device = inputs.device
    encoded = model.encode(inputs, lengths).repeat_interleave(K)  # tensors (B*K, ...)
    projected_keys = model.attention.project_keys(encoded.states) if model.decoder != "seq2seq" else None
    decoder_input = model.start.expand(B * K, -1)  # (B*K, H)
    state = encoded.initial
    chosen = torch.zeros(B * K, N, dtype=torch.bool, device=device)  # (B*K, N)
    scores = torch.full((B, K), float("-inf"), device=device)  # (B, K)
    scores[:, 0] = 0.0  # one live beam at the start, so the K beams do not begin as copies
    history = torch.zeros(B, K, 0, dtype=torch.long, device=device)  # (B, K, i)
    stay = torch.full((N,), float("-inf"), device=device)
    stay[0] = 0.0  # a finished sample's only continuation: cost 0, so its beams carry on unchanged
    rows = torch.arange(B * K, device=device)
    batch_rows = torch.arange(B, device=device).unsqueeze(1)  # (B, 1)
    for i in range(N):
        available = encoded.mask & ~chosen  # (B*K, N)
        log_probs, _, (h, c) = model.step(encoded, projected_keys, decoder_input, state, available)
        finished = (i >= encoded.lengths).unsqueeze(1)  # (B*K, 1)
        log_probs = torch.where(finished, stay, log_probs)  # (B*K, N)
        candidates = scores.unsqueeze(-1) + log_probs.view(B, K, N)  # (B, K, N)
        scores, flat = candidates.view(B, K * N).topk(K, dim=1)  # (B, K)
        parent, position = flat // N, flat % N  # (B, K) each
        source = (batch_rows * K + parent).view(-1)  # (B*K,) row each new beam extends
        state = (h[source], c[source])
        chosen = chosen[source].clone()
        step_valid = ~finished.view(-1)  # (B*K,), same for all beams of a sample
        position = position.view(-1)  # (B*K,)
        chosen[rows, position] |= step_valid
        decoder_input = encoded.embedded[rows, position]  # (B*K, H)
        step_pointer = torch.where(step_valid, position, -1).view(B, K, 1)
        history = torch.cat([history[batch_rows, parent], step_pointer], dim=-1)  # (B, K, i + 1)
    best = scores.argmax(dim=1)  # (B,)
    return history[torch.arange(B, device=device), best], scores.max(dim=1).values


@dataclass
class SortMetrics:
    """Exact match (every element in the right place) and element accuracy (fraction of output
    places holding the right value), compared by value so duplicates may come in any order."""

    exact_match: float
    element_accuracy: float


def sort_metrics(pointers: torch.Tensor, batch: SortBatch) -> SortMetrics:
    """Metrics of output ``pointers (B, T)`` (-1 at padded steps) against ``batch``'s sorted values."""
    valid = pointers >= 0  # (B, T)
    emitted = batch.inputs.gather(1, pointers.clamp(min=0))  # (B, T) value placed at each step
    right = (emitted == batch.sorted_values) & valid  # (B, T)
    exact = (right | ~valid).all(dim=1).float().mean()
    element = right.sum().float() / valid.sum()
    return SortMetrics(exact_match=exact.item(), element_accuracy=element.item())


@torch.no_grad()
def evaluate_sort(model: SortNetwork, batch: SortBatch, beam_width: int = 1) -> SortMetrics:
    """Greedy (``beam_width=1``) or beam-search metrics of ``model`` on ``batch``."""
    was_training = model.training
    model.eval()
    if beam_width == 1:
        pointers = greedy_decode(model, batch.inputs, batch.lengths).pointers
    else:
        pointers, _ = beam_search(model, batch.inputs, batch.lengths, beam_width)
    model.train(was_training)
    return sort_metrics(pointers, batch)


@torch.no_grad()
def exact_match_by_length(
    model: SortNetwork,
    lengths: range | list[int],
    values: str = "int",
    order: str = "asc",
    samples_per_length: int = 512,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[int, float | None]:
    """Greedy exact match on arrays of each length in ``lengths`` (fresh data from ``seed``).

    A seq2seq baseline cannot emit a position beyond its vocabulary: lengths above
    ``model.max_positions`` get ``None`` for it.
    """
    device = get_device(device)
    generator = torch.Generator(device=device).manual_seed(seed)
    result: dict[int, float | None] = {}
    for length in lengths:
        if model.decoder != "pointer" and length > model.max_positions:
            result[length] = None
            continue
        batch = sort_batch(samples_per_length, length, length, values, order, generator=generator)
        result[length] = evaluate_sort(model, batch).exact_match
    return result


@dataclass
class SortConfig:
    """Everything that defines a sorting run. The defaults reach 0.99 exact match on integer
    sorting (0..9, lengths 5..10) within a minute on a 2-core CPU.

    ``max_positions`` (the seq2seq vocabulary) is ``max_len``. ``threads`` is passed to
    ``torch.set_num_threads`` before training (``None`` leaves torch's choice): these models are so
    small that a second thread gains little, and on a busy 2-core CPU two threads wait on each other
    (measured on a shared machine: about 100 s instead of 3 s to reach 0.99 on integer sorting).
    """

    decoder: str = "pointer"
    values: str = "int"
    order: str = "asc"
    min_len: int = 5
    max_len: int = 10
    hidden: int = 64
    attention_dim: int = 64
    bidirectional: bool = True
    teacher_forcing: float = 1.0
    batch_size: int = 128
    lr: float = 1e-2
    grad_clip: float = 1.0
    target_accuracy: float | None = 0.99
    max_seconds: float | None = 300.0
    max_train_steps: int | None = None
    eval_every: int = 25
    eval_size: int = 1024
    test_size: int = 4096
    length_test_size: int = 512
    seed: int = 0
    device: str | None = None
    threads: int | None = 1
    progress: bool = True

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field outside its allowed range."""
        check_choice("decoder", self.decoder, DECODERS)
        check_choice("values", self.values, VALUE_KINDS)
        check_choice("order", self.order, ORDERS)
        check_lengths(self.min_len, self.max_len)
        check_int("hidden", self.hidden, minimum=1)
        check_int("attention_dim", self.attention_dim, minimum=1)
        if not isinstance(self.teacher_forcing, (int, float)) or not 0.0 <= self.teacher_forcing <= 1.0:
            raise ValueError(f"teacher_forcing must be in [0, 1], got {self.teacher_forcing!r}")
        check_int("test_size", self.test_size, minimum=1)
        check_int("length_test_size", self.length_test_size, minimum=1)
        check_training_fields(self)


@dataclass
class SortResult:
    """A trained sorting model, its training history, and its metrics on a fresh test set."""

    model: SortNetwork
    config: SortConfig
    fit: FitResult
    device: torch.device
    test: SortMetrics
    by_length: dict[int, float | None]

    @property
    def history(self) -> History:
        return self.fit.history

    def summary(self) -> dict:
        """The JSON-ready summary (what ``python -m ponderlib train sort --json`` prints)."""
        return {
            "task": "sort",
            "decoder": self.config.decoder,
            "values": self.config.values,
            "order": self.config.order,
            "min_len": self.config.min_len,
            "max_len": self.config.max_len,
            "device": str(self.device),
            "seed": self.config.seed,
            "reached_target": self.fit.reached_target,
            "seconds_to_target": round_or_none(self.fit.seconds_to_target),
            "seconds": round_or_none(self.fit.seconds),
            "train_steps": self.fit.train_steps,
            "exact_match": round_or_none(self.test.exact_match),
            "element_accuracy": round_or_none(self.test.element_accuracy),
            "exact_match_by_length": {str(k): round_or_none(v) for k, v in self.by_length.items()},
            "interrupted": self.fit.interrupted,
            "config": {k: v for k, v in asdict(self.config).items() if k not in ("progress", "device", "threads")},
            "torch_threads": torch.get_num_threads(),
        }


def build_sort_model(config: SortConfig) -> SortNetwork:
    """The :class:`SortNetwork` that ``config`` describes (not yet on a device)."""
    return SortNetwork(config.decoder, config.hidden, config.attention_dim, config.bidirectional, config.max_len)


def train_sort(config: SortConfig | None = None, **overrides) -> SortResult:
    """Train a pointer network (or a baseline) on sorting as ``config`` (or ``SortConfig(**overrides)``) says.

    Adam with gradient clipping on fresh batches each step, a ``tqdm`` bar, greedy evaluation
    every ``eval_every`` steps, early stop once held-out exact match reaches ``target_accuracy`` or
    after ``max_seconds``; Ctrl-C returns the model trained so far. Seeded: the same config gives
    the same run on the same machine. After training: metrics on a fresh test set of
    ``test_size`` arrays and exact match for each length from ``min_len`` to ``2 * max_len``
    (``length_test_size`` arrays per length).
    """
    if config is None:
        config = SortConfig(**overrides)
    elif overrides:
        raise ValueError("pass either a SortConfig or keyword overrides, not both")
    device = start_training(config)
    model = build_sort_model(config).to(device)
    data_generator = torch.Generator(device=device).manual_seed(config.seed)
    forcing_generator = torch.Generator(device=device).manual_seed(config.seed + 2_000_003)
    held_out = sort_batch(config.eval_size, config.min_len, config.max_len, config.values, config.order,
                          generator=torch.Generator(device=device).manual_seed(config.seed + 1_000_003))

    def loss_on_fresh_batch() -> torch.Tensor:
        batch = sort_batch(config.batch_size, config.min_len, config.max_len, config.values, config.order,
                           generator=data_generator)
        output = model(batch.inputs, batch.lengths, config.teacher_forcing, config.order, forcing_generator)
        return sort_loss(output, batch.inputs, batch.lengths, config.order)

    def evaluate() -> dict[str, float]:
        metrics = evaluate_sort(model, held_out)
        return {"exact_match": metrics.exact_match, "element_accuracy": metrics.element_accuracy}

    result = fit(
        model,
        loss_on_fresh_batch,
        evaluate,
        config,
        target_metric="exact_match",
        desc=f"{config.decoder} sort {config.values} {config.order}",
    )
    test_seed = config.seed + 3_000_017
    test_batch = sort_batch(config.test_size, config.min_len, config.max_len, config.values, config.order,
                            generator=torch.Generator(device=device).manual_seed(test_seed))
    by_length = exact_match_by_length(model, range(config.min_len, 2 * config.max_len + 1), config.values,
                                      config.order, config.length_test_size, test_seed + 1, device)
    return SortResult(model=model, config=config, fit=result, device=device,
                      test=evaluate_sort(model, test_batch), by_length=by_length)
