"""The sorting task for pointer networks (Vinyals et al. 2015, sec. 4.3): loss, metrics, config, training.

The data (arrays, their targets, the right next choices and the teacher) is
:mod:`ponderlib.tasks.sorting_data`. With duplicates several permutations are equally right, so the
metrics compare the *values* an output puts in each place, not the positions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from ponderlib.core.config import DecayingLRConfig, default, option
from ponderlib.core.engine import TrainResult, fit, start_run
from ponderlib.core.seeds import stream_generator
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_LENGTH,
    MAX_WIDTH,
    check_choice,
    check_counts,
    check_fraction,
    check_int,
    ensure_same_device,
    ensure_type,
)
from ponderlib.mechanisms.decoding import check_pointers, decode
from ponderlib.mechanisms.pointer import DECODERS, DecoderOutput, PointerNetwork, check_decoding_sizes
from ponderlib.tasks.sorting_data import (
    ORDERS,
    VALUE_KINDS,
    SortBatch,
    check_lengths,
    oracle_choices,
    sort_batch,
    sort_teacher,
)


def sort_loss(output: DecoderOutput, inputs: torch.Tensor, lengths: torch.Tensor, order: str = "asc") -> torch.Tensor:
    """Mean over real steps of ``-log sum_{j right} p(C_i = j)``: every available copy of the right
    next value counts (:func:`~ponderlib.tasks.sorting.oracle_choices`), so duplicates are not arbitrary.

    Shapes: ``output.log_probs (B, T, N)``, ``inputs (B, N)``, ``lengths (B,)``; returns a scalar.
    """
    ensure_type("output", output, DecoderOutput)
    ensure_same_device(output=output.log_probs, inputs=inputs, lengths=lengths)
    B, T, N = output.log_probs.shape
    right = oracle_choices(inputs.unsqueeze(1).expand(B, T, N).reshape(B * T, N),
                           output.available.reshape(B * T, N), order).view(B, T, N)  # (B, T, N)
    log_p_right = output.log_probs.masked_fill(~right, float("-inf")).logsumexp(dim=-1)  # (B, T)
    step_valid = torch.arange(T, device=inputs.device) < lengths.unsqueeze(1)  # (B, T)
    nll = torch.where(step_valid, -log_p_right, torch.zeros_like(log_p_right))  # (B, T)
    return nll.sum() / step_valid.sum()


@dataclass
class SortMetrics:
    """Exact match (every element in the right place) and element accuracy (fraction of output
    places holding the right value), compared by value so duplicates may come in any order."""

    exact_match: float
    element_accuracy: float


def sort_metrics(pointers: torch.Tensor, batch: SortBatch) -> SortMetrics:
    """Metrics of output ``pointers (B, T)`` (-1 at padded steps) against ``batch``'s sorted values.

    ``TypeError`` unless ``pointers`` is an integer tensor and ``batch`` a :class:`SortBatch`;
    ``ValueError`` naming ``pointers`` for another batch size or a pointer that is neither -1 nor a
    real position of its array.
    """
    ensure_type("batch", batch, SortBatch)
    ensure_same_device(batch=batch.inputs, pointers=pointers)
    check_pointers(pointers, batch.lengths)
    valid = pointers >= 0  # (B, T)
    emitted = batch.inputs.gather(1, pointers.clamp(min=0))  # (B, T) value placed at each step
    right = (emitted == batch.sorted_values) & valid  # (B, T)
    exact = (right | ~valid).all(dim=1).float().mean()
    element = right.sum().float() / valid.sum()
    return SortMetrics(exact_match=exact.item(), element_accuracy=element.item())


def evaluate_sort(model: PointerNetwork, batch: SortBatch, beam_width: int = 1) -> SortMetrics:
    """Greedy (``beam_width=1``) or beam-search metrics of ``model`` on ``batch``."""
    ensure_type("model", model, PointerNetwork)
    ensure_type("batch", batch, SortBatch)
    return sort_metrics(decode(model, batch.inputs, batch.lengths, beam_width), batch)


@torch.no_grad()
def exact_match_by_length(
    model: PointerNetwork,
    lengths: range | list[int],
    values: str = "int",
    order: str = "asc",
    samples_per_length: int = 512,
    *,
    seed: int,
    device: torch.device | str | None = None,
) -> dict[int, float | None]:
    """Greedy exact match on arrays of each length in ``lengths``, on fresh arrays from the ``"scoring"``
    stream of the run seeded with ``seed`` (:func:`~ponderlib.core.seeds.stream_generator`).

    A benchmark of length generalisation, separate from training. A seq2seq baseline cannot emit a
    position beyond its vocabulary: lengths above ``model.max_positions`` get ``None`` for it.
    """
    ensure_type("model", model, PointerNetwork)
    check_counts(MAX_BATCH, samples_per_length=samples_per_length)
    generator = stream_generator(seed, "scoring", device)
    result: dict[int, float | None] = {}
    for length in lengths:
        if model.decoder != "pointer" and length > model.max_positions:
            result[length] = None
            continue
        batch = sort_batch(samples_per_length, length, length, values, order, generator=generator)
        result[length] = evaluate_sort(model, batch).exact_match
    return result


@dataclass
class SortConfig(DecayingLRConfig):
    """Everything that defines a sorting run. The defaults reach 0.99 exact match on integer
    sorting (0..9, lengths 5..10) in a few seconds on a 2-core CPU.

    ``max_positions`` (the seq2seq vocabulary) is ``max_len``.
    """

    decoder: str = option("pointer", "pointer network, or a seq2seq baseline: plain, with Bahdanau's attention, or Luong-style", choices=DECODERS)
    values: str = option("int", "int: 0..9 (duplicates allowed); float: U[0, 1)", choices=VALUE_KINDS)
    order: str = option("asc", "asc, or desc (the scheduling order)", choices=ORDERS)
    min_len: int = option(5, "shortest training array")
    max_len: int = option(10, "longest training array")
    hidden: int = option(64, "LSTM size")
    attention_dim: int = option(64, "size of v in the additive score")
    bidirectional: bool = option(True, "bidirectional encoder")
    teacher_forcing: float = option(1.0, "probability of feeding the right element during training, in [0, 1]")
    test_size: int = option(4096, "arrays in the test set scored after training")
    test_max_len: int | None = option(
        None, "after training, exact match on test-size arrays of every length from min-len to this (none: not measured)"
    )
    target_accuracy: float | None = default("target_accuracy", 0.99)
    eval_every: int = default("eval_every", 25)

    def validate(self) -> None:
        check_choice("decoder", self.decoder, DECODERS)
        check_choice("values", self.values, VALUE_KINDS)
        check_choice("order", self.order, ORDERS)
        check_lengths(self.min_len, self.max_len)
        check_counts(MAX_WIDTH, hidden=self.hidden, attention_dim=self.attention_dim)
        check_fraction("teacher_forcing", self.teacher_forcing)
        check_counts(MAX_BATCH, test_size=self.test_size)
        if self.test_max_len is not None:
            check_int("test_max_len", self.test_max_len, minimum=self.max_len, maximum=MAX_LENGTH)
        super().validate()  # batch_size and eval_size, before their products
        widths = {"hidden": self.hidden, "attention_dim": self.attention_dim}
        check_decoding_sizes({"batch_size": self.batch_size, "eval_size": self.eval_size}, ("max_len", self.max_len), widths)
        test = ("max_len", self.max_len) if self.test_max_len is None else ("test_max_len", self.test_max_len)
        tested = None if self.test_max_len is None else ("test_max_len", self.min_len, self.test_max_len)
        check_decoding_sizes({"test_size": self.test_size}, test, widths, tested=tested)

    def default_lr(self) -> float:
        return 1e-2


@dataclass
class SortResult(TrainResult):
    """A trained sorting model, its training history, and its metrics on a fresh test set."""

    task = "sorting"

    test: SortMetrics | None = None
    """Greedy metrics on the test set, measured by :func:`train_sort` after training."""

    by_length: dict[int, float | None] | None = None
    """Greedy exact match at every length from ``min_len`` to ``test_max_len`` (:func:`exact_match_by_length`),
    measured by :func:`train_sort` when the config sets ``test_max_len``."""

    def metrics(self) -> dict:
        metrics = {
            "decoder": self.config.decoder,
            "values": self.config.values,
            "order": self.config.order,
            "exact_match": round_or_none(self.test.exact_match),
            "element_accuracy": round_or_none(self.test.element_accuracy),
        }
        if self.by_length is not None:
            metrics["exact_match_by_length"] = {str(n): round_or_none(value) for n, value in self.by_length.items()}
        return metrics


def build_sort_model(config: SortConfig) -> PointerNetwork:
    """The :class:`~ponderlib.mechanisms.pointer.PointerNetwork` that ``config`` describes (not yet on a device)."""
    return PointerNetwork(config.decoder, config.hidden, config.attention_dim, config.bidirectional, config.max_len)


def train_sort(
    config: SortConfig | None = None, *, on_evaluate: Callable[[int, nn.Module], None] | None = None, **overrides
) -> SortResult:
    """Train a pointer network (or a baseline) on sorting as ``config`` (or ``SortConfig(**overrides)``) says.

    Adam with gradient clipping on fresh batches at every training update (its learning rate decaying
    by ``lr_decay`` every 1,000 updates, when below 1), greedy evaluation every ``eval_every`` updates,
    early stop once held-out exact match reaches ``target_accuracy``; Ctrl-C returns the model trained
    so far. Seeded: the same config gives the same run on the same machine. After training: greedy
    metrics on a fresh test set of ``test_size`` arrays and, when ``test_max_len`` is set, exact match
    at every length up to it (:func:`exact_match_by_length`, ``test_size`` arrays per length). ``on_evaluate(update, model)``:
    called after every held-out evaluation during training (:func:`~ponderlib.core.engine.fit`).
    """
    config = SortConfig.from_overrides(config, overrides)
    device = start_run(config)
    model = build_sort_model(config).to(device)

    def draw(size: int, generator: torch.Generator) -> SortBatch:
        return sort_batch(size, config.min_len, config.max_len, config.values, config.order, generator, check=False)

    data, forcing = config.generator("data", device), config.generator("sampling", device)
    held_out = draw(config.eval_size, config.generator("held_out", device))

    def loss_fn(model: PointerNetwork, batch: SortBatch) -> torch.Tensor:
        teacher = sort_teacher(batch.inputs, config.order)
        output = model(batch.inputs, batch.lengths, teacher, config.teacher_forcing, forcing, check=False)
        return sort_loss(output, batch.inputs, batch.lengths, config.order)

    def evaluate(model: PointerNetwork) -> dict[str, float]:
        metrics = evaluate_sort(model, held_out)
        return {"exact_match": metrics.exact_match, "element_accuracy": metrics.element_accuracy}

    fitted = fit(
        model, lambda: draw(config.batch_size, data), loss_fn, evaluate, config, target_metric="exact_match",
        desc=f"{config.decoder} sort {config.values} {config.order}", on_evaluate=on_evaluate,
    )
    result = SortResult(model=model, config=config, fit=fitted, device=device)
    result.test = evaluate_sort(model, draw(config.test_size, config.generator("test", device)))
    if config.test_max_len is not None:
        result.by_length = exact_match_by_length(
            model, range(config.min_len, config.test_max_len + 1), config.values, config.order, config.test_size,
            seed=config.seed, device=device,
        )
    return result
