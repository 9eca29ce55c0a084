"""Parity data: targets, difficulty ranges, seeding, bad input."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderlib.core.seeds import stream_generator
from ponderlib.tasks.parity_data import parity_batch


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))).flatmap(
    lambda nk: st.tuples(st.just(nk[0]), st.just(nk[1]), st.integers(nk[1], nk[0]))
))
def test_difficulty_range_and_targets(args):
    n_elems, low, high = args
    batch = parity_batch(64, n_elems, low, high, generator=torch.Generator().manual_seed(0))
    assert batch.inputs.shape == (64, n_elems)
    nonzero = (batch.inputs != 0).sum(dim=1)
    assert torch.equal(nonzero, batch.difficulty)
    assert torch.all((batch.difficulty >= low) & (batch.difficulty <= high))
    assert set(batch.inputs.unique().tolist()) <= {-1.0, 0.0, 1.0}
    assert torch.equal(batch.targets, ((batch.inputs == 1).sum(dim=1) % 2).float())


def test_the_label_counts_the_ones_or_every_non_zero_entry():
    ones = parity_batch(2000, 9, generator=stream_generator(0, "data", "cpu"))
    nonzero = parity_batch(2000, 9, generator=stream_generator(0, "data", "cpu"), label="nonzero")
    assert torch.equal(ones.inputs, nonzero.inputs)  # the label changes the target, not the vectors
    assert torch.equal(nonzero.targets, (ones.difficulty % 2).float())
    by_hand = parity_batch(1, 3, 3, 3, generator=stream_generator(2, "data", "cpu"), label="nonzero")
    assert by_hand.targets.tolist() == [1.0]  # three non-zero entries: odd, whatever their signs
    assert not torch.equal(ones.targets, nonzero.targets)  # -1 entries make the two differ


def test_parity_by_hand_and_balance():
    batch = parity_batch(20000, 8, generator=stream_generator(0, "data", "cpu"))
    # Both classes and every difficulty 1..8 occur in roughly equal shares.
    assert 0.45 < batch.targets.mean().item() < 0.55
    counts = torch.bincount(batch.difficulty, minlength=9)[1:].float() / 20000
    assert torch.all((counts > 0.1) & (counts < 0.15))


def test_seeded():
    a = parity_batch(16, 8, generator=stream_generator(3, "data", "cpu"))
    b = parity_batch(16, 8, generator=stream_generator(3, "data", "cpu"))
    assert torch.equal(a.inputs, b.inputs)


def test_extrapolation_split_is_one_argument():
    train = parity_batch(1000, 10, 1, 6, generator=stream_generator(0, "data", "cpu"))
    test = parity_batch(1000, 10, 7, 10, generator=stream_generator(1, "data", "cpu"))
    assert train.difficulty.max() <= 6 < 7 <= test.difficulty.min()


def test_sequence_batch():
    batch = parity_batch(4, 6, generator=stream_generator(0, "data", "cpu"), seq_len=5)
    assert batch.inputs.shape == (4, 5, 6) and batch.targets.shape == batch.difficulty.shape == (4, 5)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(batch_size=0, n_elems=4), "batch_size"),
        (dict(batch_size=4, n_elems=0), "n_elems"),
        (dict(batch_size=4, n_elems=4, min_nonzero=0), "min_nonzero"),
        (dict(batch_size=4, n_elems=4, min_nonzero=3, max_nonzero=2), "max_nonzero"),
        (dict(batch_size=4, n_elems=4, max_nonzero=5), "max_nonzero"),
    ],
)
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        parity_batch(**kwargs)
