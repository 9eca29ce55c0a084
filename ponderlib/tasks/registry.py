"""Every trainable task by name, for the CLI (``python -m ponderlib train NAME``) and for sweeps.

A task is its config dataclass and its train function (``config -> result``, the result's
``summary()`` being its JSON record: what it measures after training is set by config fields, such as
sorting's ``test_max_len``, so a sweep records it too). A new task is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ponderlib.core.config import TrainConfig
from ponderlib.core.engine import TrainResult
from ponderlib.tasks.chains import ChainsConfig, train_chains
from ponderlib.tasks.convex_hull import HullConfig, train_hull
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.sequence_parity import SequenceConfig, train_act_sequence
from ponderlib.tasks.sorting import SortConfig, train_sort


@dataclass(frozen=True)
class Task:
    """A trainable task.

    Attributes:
        config: the task's :class:`~ponderlib.core.config.TrainConfig` subclass.
        train: ``config -> TrainResult``.
        help: one line for ``--help``.
    """

    config: type[TrainConfig]
    train: Callable[[TrainConfig], TrainResult]
    help: str


TASKS: dict[str, Task] = {
    "parity": Task(ParityConfig, train_parity, "ACT or PonderNet on parity"),
    "sequence_parity": Task(SequenceConfig, train_act_sequence, "ACT inside an RNN on a sequence of parity problems"),
    "sorting": Task(SortConfig, train_sort, "pointer network (or a seq2seq baseline) on sorting"),
    "convex_hull": Task(HullConfig, train_hull, "pointer network on planar convex hulls (accuracy and area by point count)"),
    "chains": Task(ChainsConfig, train_chains, "Universal Transformer (ACT, PonderNet or fixed depth) on assignment chains"),
}


def get_task(name: str) -> Task:
    """The task called ``name``; ``ValueError`` naming the known ones otherwise."""
    if name not in TASKS:
        raise ValueError(f"task must be one of {', '.join(map(repr, TASKS))}; got {name!r}")
    return TASKS[name]
