"""Every random stream comes from one function of a run's seed and a stream's name."""

import pytest
import torch

from ponderlib.core.config import TrainConfig
from ponderlib.core.seeds import STREAMS, stream_generator, stream_seed


def test_stream_seed_is_the_run_seed_plus_the_streams_offset():
    assert stream_seed(0, "data") == 0
    assert stream_seed(7, "held_out") == 7 + 1_000_003
    assert stream_seed(7, "scoring") == 7 + 4_000_037


def test_the_streams_of_a_run_never_share_a_seed_among_the_books_seeds():
    seeds = {stream_seed(seed, stream) for seed in range(1000) for stream in STREAMS}
    assert len(seeds) == 1000 * len(STREAMS)


def test_same_seed_and_stream_give_the_same_numbers_other_streams_other_numbers():
    a = torch.rand(4, generator=stream_generator(3, "test"))
    assert torch.equal(a, torch.rand(4, generator=stream_generator(3, "test")))
    assert not torch.equal(a, torch.rand(4, generator=stream_generator(3, "scoring")))
    assert not torch.equal(a, torch.rand(4, generator=stream_generator(4, "test")))


def test_a_config_draws_its_streams_through_the_same_function():
    config = TrainConfig(seed=5)
    assert torch.equal(torch.rand(3, generator=config.generator("sampling")), torch.rand(3, generator=stream_generator(5, "sampling")))


@pytest.mark.parametrize(
    "seed, stream, message",
    [(-1, "data", r"seed must be an integer in \[0, 9223372036854775807\]"), (1.5, "data", "seed must be an integer"), (0, "halting", "stream must be one of")],
)
def test_bad_seeds_and_streams_are_refused(seed, stream, message):
    with pytest.raises(ValueError, match=message):
        stream_generator(seed, stream)
