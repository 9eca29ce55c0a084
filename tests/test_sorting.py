"""Sorting data: lengths, padding, stable targets in both orders, seeding, the oracle, bad input."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderlib.tasks.sorting_data import oracle_choices, sort_batch, sort_batch_from_arrays, sort_targets


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 12).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 14))),
    st.sampled_from(["int", "float"]),
    st.sampled_from(["asc", "desc"]),
    st.integers(0, 1000),
)
def test_batch_shapes_padding_and_targets(lengths, values, order, seed):
    min_len, max_len = lengths
    batch = sort_batch(32, min_len, max_len, values, order, generator=torch.Generator().manual_seed(seed))
    assert batch.inputs.shape == batch.mask.shape == batch.targets.shape == (32, max_len)
    assert torch.all((batch.lengths >= min_len) & (batch.lengths <= max_len))
    assert torch.equal(batch.mask.sum(dim=1), batch.lengths)
    assert torch.all(batch.inputs[~batch.mask] == 0)
    for row in range(32):
        n = batch.lengths[row].item()
        target = batch.targets[row]
        assert sorted(target[:n].tolist()) == list(range(n))  # a permutation of the real positions
        assert torch.all(target[n:] == -1)
        emitted = batch.inputs[row, target[:n]]
        assert torch.equal(emitted, batch.sorted_values[row, :n])
        steps = emitted[1:] - emitted[:-1]
        assert torch.all(steps >= 0) if order == "asc" else torch.all(steps <= 0)
    if values == "int":
        assert set(batch.inputs[batch.mask].unique().tolist()) <= set(range(10))
    else:
        assert torch.all((batch.inputs[batch.mask] >= 0) & (batch.inputs[batch.mask] < 1))


def test_stable_targets_by_hand():
    batch = sort_batch_from_arrays([[3, 1, 3, 0], [5, 7]], order="asc")
    assert batch.targets.tolist() == [[3, 1, 0, 2], [0, 1, -1, -1]]
    assert batch.sorted_values.tolist() == [[0, 1, 3, 3], [5, 7, 0, 0]]
    # Descending keeps ties in input order too: a priority scheduler that is first come, first served.
    batch = sort_batch_from_arrays([[3, 1, 3, 0]], order="desc")
    assert batch.targets.tolist() == [[0, 2, 1, 3]]


def test_seeded_and_device():
    a = sort_batch(16, generator=torch.Generator().manual_seed(7))
    b = sort_batch(16, generator=torch.Generator().manual_seed(7))
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.lengths, b.lengths)
    assert sort_batch(4, device="cpu").inputs.device.type == "cpu"
    assert sort_batch(4, 3, 5, pad_to=8).inputs.shape == (4, 8)


def test_oracle_accepts_every_copy_of_the_right_value():
    inputs = torch.tensor([[3.0, 1.0, 1.0, 0.0]])
    available = torch.tensor([[True, True, True, False]])  # 0 already emitted
    assert oracle_choices(inputs, available, "asc").tolist() == [[False, True, True, False]]
    assert oracle_choices(inputs, available, "desc").tolist() == [[True, False, False, False]]
    nothing = torch.zeros(1, 4, dtype=torch.bool)
    assert not oracle_choices(inputs, nothing).any()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"min_len": 0}, "min_len must be an integer in [1, 10000], got 0"),
        ({"min_len": 8, "max_len": 5}, "max_len must be an integer in [min_len = 8, 10000], got 5"),
        ({"values": "complex"}, "values must be one of 'int', 'float'; got 'complex'"),
        ({"order": "up"}, "order must be one of 'asc', 'desc'; got 'up'"),
        ({"batch_size": 0}, "batch_size must be an integer in [1, 1000000], got 0"),
        ({"pad_to": 3}, "pad_to must be an integer in [10, 10000], got 3"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError) as info:
        sort_batch(**{"batch_size": 4, **kwargs})
    assert message in str(info.value)


def test_empty_arrays_rejected():
    with pytest.raises(ValueError, match=r"arrays\[1\] is empty"):
        sort_batch_from_arrays([[1, 2], []])
    with pytest.raises(ValueError, match="at least one array"):
        sort_batch_from_arrays([])
    with pytest.raises(ValueError, match="order must be one of"):
        sort_targets(torch.zeros(1, 2), torch.ones(1, 2, dtype=torch.bool), "sideways")


@pytest.mark.parametrize("lr_decay", [0, 0.0, -0.5, 1.01, float("nan"), float("inf")])
def test_lr_decay_must_be_in_0_1(lr_decay):
    from ponderlib.tasks.sorting import SortConfig

    with pytest.raises(ValueError, match=r"lr_decay must be in \(0, 1\], got"):
        SortConfig(lr_decay=lr_decay).validate()
    SortConfig(lr_decay=1).validate()  # an integer 1 is a constant rate, as 1.0 is
    assert SortConfig(lr_decay=0.96).lr_scheduler(torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))])) is not None
