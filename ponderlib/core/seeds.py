"""Every random number in the book comes from one function: :func:`stream_generator`, of a run's seed
and a named stream.

A run's seed is one integer (``TrainConfig.seed``); each kind of randomness it needs draws from its
own stream, so training data, the held-out set, the model's sampled decisions, the test set and the
scoring after training never share random numbers, and adding draws to one stream never shifts
another. A chapter or a library function that needs random numbers names the run's seed and a
stream; nothing anywhere seeds a generator with a literal.
"""

from __future__ import annotations

import torch

from ponderlib.core.device import get_device
from ponderlib.core.validation import check_choice, check_int

STREAMS = {"data": 0, "held_out": 1_000_003, "sampling": 2_000_003, "test": 3_000_017, "scoring": 4_000_037}
"""The named streams and their offsets from a run's seed (primes a million apart):

- ``data``: the training batches;
- ``held_out``: the held-out set evaluated during training;
- ``sampling``: the model's own random decisions (PonderNet's sampled halting, teacher forcing);
- ``test``: the test set a run is scored on after training;
- ``scoring``: the sets drawn after training for a breakdown (per difficulty, per length, per point count).
"""

SEED_MAX = 2**63 - 1
"""The largest seed a run takes: a seed plus its streams' offsets (:data:`STREAMS`) must fit
``torch.manual_seed``'s 64-bit range (also ``ponderlib.core.seeds.SEED_MAX``)."""


def stream_seed(seed: int, stream: str) -> int:
    """The integer seed of ``stream`` for a run seeded with ``seed`` (``seed + STREAMS[stream]``), ``seed``
    an integer in ``[0, SEED_MAX]``."""
    check_int("seed", seed, minimum=0, maximum=SEED_MAX)
    check_choice("stream", stream, tuple(STREAMS))
    return seed + STREAMS[stream]


def stream_generator(seed: int, stream: str, device: torch.device | str | None = None) -> torch.Generator:
    """A ``torch.Generator`` on ``device`` for ``stream`` of the run seeded with ``seed``.

    Two calls with the same arguments give generators in the same state, so two models scored on
    ``stream_generator(seed, "scoring")`` see the same inputs.
    """
    generator = torch.Generator(device=get_device(device))
    generator.manual_seed(stream_seed(seed, stream))
    return generator
