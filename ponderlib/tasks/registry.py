"""Every trainable task by name, for the CLI (``python -m ponderlib train NAME``) and for sweeps.

A task is its config dataclass and its train function (``config -> result``, the result's
``summary()`` being its JSON record), plus, optionally, benchmark-only measurements the CLI can add
after training. A new task is one module and one entry here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ponderlib.core.engine import TrainConfig, TrainResult
from ponderlib.core.stats import round_or_none
from ponderlib.tasks.chains import ChainsConfig, train_chains
from ponderlib.tasks.convex_hull import HullConfig, train_hull
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.sequence_parity import SequenceConfig, train_act_sequence
from ponderlib.tasks.sorting import SortConfig, exact_match_by_length, train_sort


@dataclass(frozen=True)
class Task:
    """A trainable task.

    Attributes:
        config: the task's :class:`~ponderlib.core.engine.TrainConfig` subclass.
        train: ``config -> TrainResult``.
        help: one line for ``--help``.
        add_report_arguments: adds the options of :attr:`report` to a parser (None: none).
        report: ``(result, args) -> dict`` of extra measurements merged into the CLI's summary.
    """

    config: type[TrainConfig]
    train: Callable[[TrainConfig], TrainResult]
    help: str
    add_report_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    report: Callable[[TrainResult, argparse.Namespace], dict] | None = None


def _add_length_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by-length", action="store_true",
                        help="after training, exact match at every length from min-len to twice max-len")
    parser.add_argument("--length-test-size", type=_positive_int, default=512, help="arrays per length for --by-length")


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"--length-test-size must be an integer >= 1, got {text!r}")
    return int(text)


def _report_by_length(result, args: argparse.Namespace) -> dict:
    if not args.by_length:
        return {}
    config = result.config
    by_length = exact_match_by_length(
        result.model, range(config.min_len, 2 * config.max_len + 1), config.values, config.order,
        args.length_test_size, seed=config.seed, device=result.device,
    )
    return {"exact_match_by_length": {str(k): round_or_none(v) for k, v in by_length.items()}}


TASKS: dict[str, Task] = {
    "parity": Task(ParityConfig, train_parity, "ACT or PonderNet on parity"),
    "sequence_parity": Task(SequenceConfig, train_act_sequence, "ACT inside an RNN on a sequence of parity problems"),
    "sorting": Task(SortConfig, train_sort, "pointer network (or a seq2seq baseline) on sorting",
                 _add_length_arguments, _report_by_length),
    "convex_hull": Task(HullConfig, train_hull, "pointer network on planar convex hulls (accuracy and area by point count)"),
    "chains": Task(ChainsConfig, train_chains, "Universal Transformer (ACT, PonderNet or fixed depth) on assignment chains"),
}


def get_task(name: str) -> Task:
    """The task called ``name``; ``ValueError`` naming the known ones otherwise."""
    if name not in TASKS:
        raise ValueError(f"task must be one of {', '.join(map(repr, TASKS))}; got {name!r}")
    return TASKS[name]
