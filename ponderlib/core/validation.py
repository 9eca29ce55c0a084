"""Argument checks shared by the whole library.

Every public function validates what a reader is likely to get wrong and raises ``ValueError``
naming the parameter, the value given and the range allowed (``TypeError`` for a value of the wrong
type), in one line.

Two kinds, by how often they run:

- ``check_*``: the settings of a run (sizes, rates, choices), checked once when a config, a model or a
  loss is built, never per training update (``tests/test_hot_path.py`` counts them), and the
  arguments of the functions a reader calls by hand (:func:`check_rank`, :func:`check_probability_tensor`);
- ``ensure_*``: the tensors that flow through every training update (a step function's ``lambda_n``,
  a loss's inputs), cheap enough for the hot path: an ``isinstance``, or one vectorised reduction
  and so at most one synchronisation with a GPU per call, the value that failed looked up only to
  write the error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import torch

MAX_LENGTH = 10_000
"""The largest count along a sequence a run or a data function takes: positions of an array or a
program (``max_len``, ``test_max_len``, ``pad_to``), points of a set, elements of a parity vector,
ponder steps (``max_ponder_steps``, ``fixed_depth``) and chain depths. Each sizes a tensor or a loop,
so a larger one would allocate for minutes or fail with an out-of-memory error deep inside torch; the
book's presets stay below 100."""

MAX_WIDTH = 4_096
"""The largest layer a run builds (``hidden``, ``d_model``, ``d_transition``, ``attention_dim``,
``heads``): a GRU of this size already holds 100 million weights; the book's presets stay at 256."""

MAX_BATCH = 1_000_000
"""The most samples drawn at once: a batch, a held-out or a test set (``batch_size``, ``eval_size``,
``test_size``, ``difficulty_eval_size``, ``samples``); the book's presets stay below 5,000."""

MAX_ELEMENTS = 100_000_000
"""The most entries a product of counts may size, each count within its own bound: one tensor (a batch
of ``batch_size`` vectors of ``n_elems`` entries; the states ``batch_size x max_ponder_steps x hidden``
an unroll keeps; a pointer network's ``(B, T, T)`` scores) or the vectors one evaluation scores in all
(``n_elems`` difficulties of ``difficulty_eval_size`` vectors of ``n_elems`` entries): 400 MB of float32,
where each count at its own maximum would ask for terabytes, or for hours."""

MAX_STEPS = 1_000_000
"""The most iterations of a network's step one loop sized by a product of counts runs: ponder steps over a
sequence (``seq_len x max_ponder_steps``), ponder steps over every difficulty scored, decoder steps over
every length tested (lengths x the longest): a minute or two on a CPU at the book's sizes; the book's
presets stay below 10,000."""

MAX_THREADS = 1_024
"""The most CPU threads a run asks torch for (``threads``): ``torch.set_num_threads(10**9)`` fails
allocating them, with an error that names no setting; the book's runs take one."""

MAX_WORKERS = 1_024
"""The most worker processes a sweep starts at once (``workers``, ``--workers``): a local pool of that many
processes, or a local Ray cluster of that many CPUs. ``workers=10**12`` went on to start Ray (or a pool) before
anything refused it; the book's sweeps run on one machine's cores."""


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (``...`` marks the cut): an error message never prints an
    unbounded value."""
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def check_rank(name: str, tensor: torch.Tensor, rank: int, shape_doc: str) -> None:
    """Raise unless ``tensor`` is a non-empty tensor of the given rank (``shape_doc`` e.g. ``"(B, N)"``):
    ``TypeError`` for anything but a tensor (a list, an array), ``ValueError`` for the shape."""
    ensure_tensor(name, tensor, f" of shape {shape_doc}")
    if tensor.dim() != rank:
        raise ValueError(f"{name} must have rank {rank}, shape {shape_doc}; got shape {tuple(tensor.shape)}")
    if tensor.shape[0] == 0:
        raise ValueError(f"{name} is an empty batch (shape {tuple(tensor.shape)}); the batch size must be >= 1")
    if tensor.numel() == 0:
        raise ValueError(f"{name} has a zero-sized dimension (shape {tuple(tensor.shape)}); all sizes must be >= 1")


def check_probability_tensor(name: str, tensor: torch.Tensor) -> None:
    """Raise unless ``tensor`` is floating-point (an integer or bool tensor of 0s and 1s is no
    probability a gradient can reach, and its arithmetic differs) and every entry is in [0, 1] (NaN
    included as a failure)."""
    if not tensor.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor of probabilities, got {tensor.dtype}")
    ensure_in_range(name, tensor)


ROW_SUM_TOLERANCE = 1e-3
"""How far a row of halting probabilities may sum from one: float32 rounding over up to
:data:`MAX_LENGTH` steps, far below any row that is not a distribution."""


def check_distribution_rows(name: str, tensor: torch.Tensor) -> None:
    """Raise unless ``tensor`` ``(B, N)`` holds probability distributions: every entry in [0, 1]
    (:func:`check_probability_tensor`) and every row summing to one, within :data:`ROW_SUM_TOLERANCE`
    (a KL of rows that do not is no divergence: it can be negative)."""
    check_probability_tensor(name, tensor)
    sums = tensor.sum(dim=-1)
    off = (sums - 1.0).abs() > ROW_SUM_TOLERANCE
    if bool(off.any()):
        row = int(off.nonzero()[0, 0])
        raise ValueError(f"{name} must have rows summing to 1 (a distribution over steps), row {row} sums to {sums[row].item():.6g}")


def ensure_same_shape(**tensors: torch.Tensor) -> None:
    """``ValueError`` naming the first tensor whose shape differs from the first one named
    (``ensure_same_shape(step_losses=..., halting_probs=...)``): metadata only, no synchronisation."""
    (first, reference), *others = tensors.items()
    for name, tensor in others:
        if tensor.shape != reference.shape:
            raise ValueError(
                f"{name} must have the same shape as {first}, {tuple(reference.shape)}; got {tuple(tensor.shape)}"
            )


def check_lambda_p(lambda_p: float) -> None:
    """Raise unless ``lambda_p`` (the geometric prior's parameter) is in (0, 1]."""
    if isinstance(lambda_p, bool) or not isinstance(lambda_p, (int, float)) or not 0.0 < lambda_p <= 1.0:
        raise ValueError(f"lambda_p must be in (0, 1], got {lambda_p!r}")


def check_int(name: str, value: int, minimum: int, maximum: int | None = None) -> None:
    """Raise unless ``value`` is an integer in ``[minimum, maximum]``."""
    allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer {allowed}, got {value}")


def check_counts(maximum: int, **counts: int) -> None:
    """Raise unless every count is an integer in ``[1, maximum]``, naming the first that is not
    (``check_counts(MAX_LENGTH, n_elems=n_elems, max_ponder_steps=max_ponder_steps)``): the sizes of
    a run's tensors and loops, bounded by :data:`MAX_LENGTH`, :data:`MAX_WIDTH` or :data:`MAX_BATCH`."""
    for name, value in counts.items():
        check_int(name, value, minimum=1, maximum=maximum)


def check_product(maximum: int, what: str, *factors: tuple[str, int]) -> None:
    """Raise unless the product of ``factors`` (``(name, count)`` pairs of integers >= 1, each checked
    against its own bound before) is at most ``maximum`` (:data:`MAX_ELEMENTS`, :data:`MAX_STEPS`,
    :data:`MAX_BATCH`), naming the last factor's parameter, the most it may be given the others, and
    ``what`` the product sizes (``check_product(MAX_ELEMENTS, "a training batch's entries",
    ("n_elems", n_elems), ("batch_size", batch_size))``). A name may come twice (``n_elems`` difficulties
    of ``n_elems`` entries)."""
    *others, (name, value) = factors
    rest = math.prod(count for _, count in others)
    if rest * value > maximum:
        given = ", ".join(dict.fromkeys(f"{other} = {count}" for other, count in others))
        formula = " x ".join(other for other, _ in factors)
        raise ValueError(
            f"{name} must be at most {maximum // rest:,} when {given}: {what} ({formula} = {rest * value:,}) "
            f"must be at most {maximum:,}, got {name} = {value}"
        )


def check_correlated(name: str, value: int, per_item: int, why: str) -> None:
    """Raise unless ``value`` items of ``per_item`` values each (both integers >= 1, checked before)
    give at least the two values a correlation needs, naming ``name`` and ``why`` the others fix
    ``per_item`` (``check_correlated("eval_size", eval_size, min_len, "min_len = 1")``): otherwise a
    run would train, then fail on its first correlation with an error that names nothing."""
    if value * per_item < 2:
        raise ValueError(
            f"{name} must be >= 2 when {why}: a correlation needs at least two values, got {name} = {value}"
        )


MAX_SCALE = 1e6
"""The largest magnitude a float setting takes (a learning rate, ``tau``, ``beta``, an initial bias, a
clipping norm, seconds): a run's float32 arithmetic stays finite below it, where ``--lr 1e300`` or
``--tau 1e300`` overflowed inside Adam or the loss, with an error that named a tensor, not the setting."""


def _is_number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def check_non_negative(name: str, value: float) -> None:
    """Raise unless ``value`` is a finite number in ``[0, MAX_SCALE]`` (``tau``, ``beta``)."""
    if not _is_number(value) or not 0 <= value <= MAX_SCALE:
        raise ValueError(f"{name} must be a finite number >= 0 and at most {MAX_SCALE:g}, got {value!r}")


def check_finite(name: str, value: float) -> None:
    """Raise unless ``value`` is a finite number in ``[-MAX_SCALE, MAX_SCALE]`` (an initial bias, which
    may have either sign)."""
    if not _is_number(value) or abs(value) > MAX_SCALE:
        raise ValueError(f"{name} must be a finite number between {-MAX_SCALE:g} and {MAX_SCALE:g}, got {value!r}")


def check_positive(name: str, value: float) -> None:
    """Raise unless ``value`` is a finite number in ``(0, MAX_SCALE]``."""
    if not _is_number(value) or not 0 < value <= MAX_SCALE:
        raise ValueError(f"{name} must be a finite number > 0 and at most {MAX_SCALE:g}, got {value!r}")


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """Raise unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_fraction(name: str, value: float, include_one: bool = True, include_zero: bool = True) -> None:
    """Raise unless ``value`` is a number in ``[0, 1]`` (``[0, 1)`` when ``include_one`` is False,
    ``(0, 1]`` when ``include_zero`` is False): ``eps`` and ``unroll_tolerance`` in ``[0, 1)``, a
    teacher-forcing ratio in ``[0, 1]``, a learning rate's decay factor in ``(0, 1]``."""
    allowed = ("[" if include_zero else "(") + "0, 1" + ("]" if include_one else ")")
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    if (
        not number or not (0.0 <= value <= 1.0)
        or (not include_one and value == 1.0) or (not include_zero and value == 0.0)
    ):
        raise ValueError(f"{name} must be in {allowed}, got {value!r}")


def check_not_empty(name: str, values: object, what: str = "entry") -> None:
    """``TypeError`` unless ``values`` is a collection (it has a length), ``ValueError`` naming ``name`` if it
    is empty: a figure or a table of nothing would hide a missing run or evidence set."""
    if not hasattr(values, "__len__") or isinstance(values, str):
        raise TypeError(f"{name} must be a collection of {what}s, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} must hold at least one {what}, got none")


def check_groups(name: str, groups: object, what: str = "run") -> None:
    """:func:`check_not_empty` of a mapping ``label -> runs`` and of each label's runs (naming ``name[label]``)."""
    if not isinstance(groups, Mapping):
        raise TypeError(f"{name} must be a mapping of a label to its {what}s, got {type(groups).__name__}")
    check_not_empty(name, groups)
    for label, runs in groups.items():
        check_not_empty(f"{name}[{label!r}]", runs, what)


def check_sizes(**sizes: int) -> None:
    """Raise unless every size is an integer >= 1, naming the first that is not
    (``check_sizes(n_elems=n_elems, hidden=hidden)``)."""
    for name, value in sizes.items():
        check_int(name, value, minimum=1)


def ensure_path(name: str, value: object, what: str = "") -> None:
    """``TypeError`` naming ``name`` unless ``value`` is a path, a str or an ``os.PathLike`` (``what``: more of
    the message, e.g. ``" or None"``): ``pathlib``'s own error for ``None`` or a number names no argument."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a str or a pathlib.Path){what}, got {type(value).__name__}")


def ensure_tensor(name: str, value: object, what: str = "") -> None:
    """``TypeError`` naming ``name`` unless ``value`` is a ``torch.Tensor`` (``what``: more of the
    message, e.g. ``" of shape (B, N)"``). A list or an array is refused rather than converted: a
    tensor's dtype and device are the caller's to choose."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor{what}, got {type(value).__name__}")


def ensure_not_meta(name: str, tensor: torch.Tensor) -> None:
    """``ValueError`` naming ``name`` when ``tensor`` is on the meta device: it has a shape but no values,
    so nothing can be checked or computed from it (torch's own error, "Tensor.item() cannot be called on
    meta tensors", names no argument). Metadata only."""
    if tensor.is_meta:
        raise ValueError(f"{name} is a meta tensor (a shape without values): give one on a real device, as .to('cpu')")


def ensure_same_device(**tensors: torch.Tensor) -> None:
    """``ValueError`` naming the first tensor on another device than the first one named
    (``ensure_same_device(batch=batch.targets, pointers=pointers)``): on a GPU machine a batch the
    library builds lives on the GPU while a tensor typed by hand lives on the CPU, and torch's own error
    names neither argument. ``TypeError`` naming the first that is not a tensor, as :func:`ensure_tensor`."""
    for name, tensor in tensors.items():
        ensure_tensor(name, tensor)
    (first, reference), *others = tensors.items()
    for name, tensor in others:
        if tensor.device != reference.device:
            raise ValueError(f"{name} is on {tensor.device} but {first} on {reference.device}: put them on one device")


def ensure_model_input(
    name: str, tensor: torch.Tensor, model: torch.nn.Module, features: int | None = None, size_name: str = ""
) -> None:
    """``ValueError`` naming ``name`` unless ``tensor`` has ``model``'s parameters' dtype and device (a meta
    tensor, an integer or a double batch into a float32 model) and, when ``features`` is given, that many
    features in its last dimension (``size_name``, e.g. ``"d_model"``, names that size in the message): torch's own errors ("mat1 and mat2 must have the same dtype", "input
    has inconsistent input_size") name neither the argument nor the fix. ``TypeError`` unless it is a tensor.
    No synchronisation: only metadata is read, so a model may check every call."""
    ensure_tensor(name, tensor)
    parameter = next(model.parameters(), None)
    if parameter is not None and tensor.dtype != parameter.dtype:
        raise ValueError(
            f"{name} must have the model's dtype {parameter.dtype}, got {tensor.dtype} (convert one of them with .to())"
        )
    if parameter is not None and tensor.device != parameter.device:
        raise ValueError(f"{name} is on {tensor.device} but the model on {parameter.device}: move one of them with .to()")
    ensure_not_meta(name, tensor)  # a model moved to meta too: nothing to compute with
    if features is not None and tensor.shape[-1] != features:
        size = f"{size_name} = {features}" if size_name else str(features)
        raise ValueError(f"{name} must have {size} features in its last dimension, got shape {tuple(tensor.shape)}")


def ensure_generator(name: str, generator: object) -> None:
    """``TypeError`` naming ``name`` unless ``generator`` is None or a ``torch.Generator`` (a seed given
    where a generator is wanted reached torch's own "invalid combination of arguments")."""
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(
            f"{name} must be a torch.Generator or None, got {type(generator).__name__} "
            "(ponderlib.core.seeds.stream_generator makes one from a seed)"
        )


def ensure_type(name: str, value: object, expected: type | tuple[type, ...]) -> None:
    """``TypeError`` naming ``name`` unless ``value`` is an instance of ``expected`` (a batch class, a model)."""
    if not isinstance(value, expected):
        names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
        raise TypeError(f"{name} must be a {names}, got {type(value).__name__}")


def ensure_in_range(name: str, tensor: torch.Tensor, low: float = 0.0, high: float = 1.0) -> None:
    """``ValueError`` unless every entry of ``tensor`` lies in ``[low, high]``; NaN fails too.

    One vectorised reduction and one synchronisation; the first value out of range is looked up
    only for the message.
    """
    ensure_not_meta(name, tensor)
    bad = ~((tensor >= low) & (tensor <= high))
    if bool(bad.any()):
        value = tensor.detach()[bad].flatten()[0].item()
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}], found {value}")


def ensure_finite(name: str, tensor: torch.Tensor, allow_infinite: bool = False) -> None:
    """``ValueError`` unless every entry of ``tensor`` is finite (with ``allow_infinite``, unless one is
    NaN), counting those that are not: one vectorised reduction and one synchronisation."""
    ensure_not_meta(name, tensor)
    bad = torch.isnan(tensor) if allow_infinite else ~torch.isfinite(tensor)
    if bool(bad.any()):
        what = "free of NaN" if allow_infinite else "finite"
        raise ValueError(f"{name} must be {what}, found {int(bad.sum())} of {tensor.numel()} entries that are not")
