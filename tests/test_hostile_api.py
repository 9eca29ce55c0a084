"""Hostile inputs to the library's public API (issue 26, item 6): degenerate point sets, wrong
container types, halting probabilities and lambdas out of their range, and garbage at padded
positions. Each error is the documented exception, names the parameter and is one line; each
degenerate-but-valid input gets its documented result."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from ponderlib.mechanisms.act import ACTRNN
from ponderlib.mechanisms.attention import AdditiveAttention, context, masked_log_softmax
from ponderlib.mechanisms.decoding import beam_search, greedy_decode
from ponderlib.mechanisms.halting import (
    act_halting,
    expected_ponder_steps,
    pondernet_halting,
    pondernet_log_halting,
)
from ponderlib.mechanisms.losses import (
    ACTLoss,
    PonderNetLoss,
    binary_step_losses,
    kl_to_geometric,
    reconstruction_loss,
)
from ponderlib.mechanisms.pointer import DECODERS, PointerNetwork
from ponderlib.mechanisms.pondernet import PonderNet
from ponderlib.mechanisms.universal_transformer import UniversalTransformer
from ponderlib.tasks import convex_hull
from ponderlib.tasks.convex_hull import hull_metrics
from ponderlib.tasks.convex_hull_data import hull_batch_from_points, hull_order, polygon_area
from ponderlib.tasks.parity_eval import evaluate_parity, predict_parity
from ponderlib.tasks.parity_models import act_parity_model
from ponderlib.tasks.sequence_parity import act_sequence_model, evaluate_act_sequence, sequence_loss
from ponderlib.tasks.sorting import evaluate_sort, exact_match_by_length, sort_loss, sort_metrics
from ponderlib.tasks.sorting_data import oracle_choices, sort_batch_from_arrays, sort_targets, sort_teacher

pytestmark = pytest.mark.usefixtures("one_thread")

NAN, INF = float("nan"), float("inf")
GARBAGE = [NAN, INF, -INF, 1e30]
"""What a padded position may hold without changing anything at the real ones."""

TRIANGLE = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
"""Counter-clockwise from index 0."""


def raises_one_line(kind: type[Exception], call, *names: str) -> str:
    """Call ``call``, expect ``kind``, and check that the message is one line naming each of ``names``."""
    with pytest.raises(kind) as caught:
        call()
    message = str(caught.value)
    assert type(caught.value) is kind, f"{type(caught.value).__name__}: {message}"
    assert "\n" not in message and len(message) < 300, message
    for name in names:
        assert name in message, f"{name!r} not named in: {message}"
    return message


# --- convex hulls: degenerate point sets ---------------------------------------------------------


@pytest.mark.parametrize(
    "points",
    [[[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 1], [2, 2], [3, 3], [0.5, 0.5]], [[0, 0], [0, 1], [0, 2], [0, 0]]],
    ids=["three", "five", "with-a-duplicate"],
)
def test_collinear_points_are_a_value_error_naming_points(points):
    raises_one_line(ValueError, lambda: hull_order(points), "points", "one line")
    raises_one_line(ValueError, lambda: hull_batch_from_points([TRIANGLE, points]), "point_sets[1]", "one line")


@pytest.mark.parametrize(
    "points, distinct",
    [([[0.5, 0.5]] * 4, 1), ([[0, 0], [1, 1], [0, 0], [1, 1]], 2)],
    ids=["one-point", "two-points"],
)
def test_fewer_than_three_distinct_points_are_a_value_error(points, distinct):
    raises_one_line(ValueError, lambda: hull_order(points), "points", f"at least 3 distinct points, got {distinct}")


@pytest.mark.parametrize("bad", [NAN, INF, -INF])
@pytest.mark.parametrize("function", [hull_order, polygon_area], ids=["hull_order", "polygon_area"])
def test_a_coordinate_that_is_not_finite_is_a_value_error(function, bad):
    points = [[0.0, 0.0], [1.0, 0.0], [bad, 1.0]]
    raises_one_line(ValueError, lambda: function(points), "points must be finite", "row 2")


def test_a_point_set_that_overflows_float32_is_refused_by_the_batch():
    raises_one_line(ValueError, lambda: hull_batch_from_points([[[0, 0], [1e39, 0], [0, 1]]]), "point_sets[0]", "float32")


def test_a_duplicated_corner_is_named_by_its_lowest_index():
    # 0: (1, 0), 1: (0, 0), 2: (1, 0) again, 3: (0, 1), 4: (0, 0) again; counter-clockwise from index 0:
    # (1, 0) -> (0, 1) -> (0, 0).
    points = [[1, 0], [0, 0], [1, 0], [0, 1], [0, 0]]
    assert hull_order(points) == [0, 3, 1]
    batch = hull_batch_from_points([points])
    assert batch.targets[0].tolist() == [0, 3, 1, 5, -1, -1] and batch.hull_areas.item() == 0.5


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 10), copies=st.lists(st.integers(0, 9), max_size=6))
def test_copies_of_points_change_the_hull_only_by_naming_corners_by_their_first_index(seed, n, copies):
    points = np.random.default_rng(seed).random((n, 2))
    copied = [points[k % n] for k in copies]
    order = hull_order(points)
    assert hull_order(np.concatenate([points, copied]) if copied else points) == order  # copies after
    before = np.concatenate([copied, points]) if copied else points  # copies first: they hold the lowest index
    first_index = [next(i for i, p in enumerate(before) if (p == points[k]).all()) for k in order]
    start = first_index.index(min(first_index))
    assert hull_order(before) == first_index[start:] + first_index[:start]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 10), exponent=st.sampled_from([-960, -300, -40, 40, 300, 1020]))
def test_tiny_or_huge_coordinates_give_the_hull_of_the_same_shape(seed, n, exponent):
    points = np.random.default_rng(seed).random((n, 2))
    # Scaling by a power of two is exact while no coordinate becomes subnormal (below 2**-1022).
    assert hull_order(np.ldexp(points, exponent)) == hull_order(points)


def test_hull_functions_accept_array_likes_and_refuse_what_is_not_numbers():
    assert hull_order(TRIANGLE) == hull_order(np.array(TRIANGLE)) == hull_order(torch.tensor(TRIANGLE)) == [0, 1, 2]
    assert polygon_area(TRIANGLE) == 0.5 and polygon_area([[0, 0], [1, 1], [2, 2]]) is None  # no area: not a polygon
    assert hull_batch_from_points(np.array([TRIANGLE])).targets.tolist() == [[0, 1, 2, 3]]
    for bad in ("abc", None, 5, [[0, 0], [1, 0], [0]], [["a", "b"], [0, 1], [1, 0]]):
        raises_one_line(TypeError, lambda bad=bad: hull_order(bad), "points")
    raises_one_line(TypeError, lambda: polygon_area({"a": 1}), "points")
    raises_one_line(TypeError, lambda: hull_batch_from_points(5), "point_sets")
    raises_one_line(ValueError, lambda: hull_order(np.zeros((3, 3))), "points", "(n, 2)")


@pytest.mark.parametrize(
    "pointers, what",
    [([[0, 1, 2, 9]], "got 9"), ([[0, 1, 2, 4]], "got 4"), ([[0, 1, -2, 3]], "got -2")],
    ids=["past-the-end", "at-padding", "negative"],
)
def test_hull_metrics_refuse_a_pointer_that_is_not_a_real_point_or_the_end(pointers, what):
    batch = hull_batch_from_points([TRIANGLE], pad_to=5)  # end at index 5; 3 and 4 are padding
    assert hull_metrics(torch.tensor([[0, 1, 2, 5]]), batch).accuracy == 1.0
    raises_one_line(ValueError, lambda: hull_metrics(torch.tensor(pointers), batch), "pointers", what)


# --- sorting: values and pointers ---------------------------------------------------------------


def test_sorting_refuses_nan_at_real_positions_and_ignores_it_at_padding():
    raises_one_line(ValueError, lambda: sort_batch_from_arrays([[1.0, NAN]]), "arrays[0]", "NaN")
    inputs, mask = torch.tensor([[2.0, 1.0, NAN]]), torch.tensor([[True, True, False]])
    assert sort_targets(inputs, mask)[0].tolist() == [[1, 0, -1]]
    raises_one_line(ValueError, lambda: sort_targets(inputs, torch.ones(1, 3, dtype=torch.bool)), "inputs", "NaN")
    assert sort_batch_from_arrays([[INF, -INF, 0.0]]).targets.tolist() == [[1, 2, 0]]  # infinities sort


def test_an_unknown_order_is_an_error_not_the_other_order():
    for call in (lambda: oracle_choices(torch.zeros(1, 2), torch.ones(1, 2, dtype=torch.bool), "ascending"),
                 lambda: sort_teacher(torch.zeros(1, 2), "ascending")):
        raises_one_line(ValueError, call, "order", "'ascending'")


def test_sort_metrics_refuse_a_pointer_past_the_array():
    batch = sort_batch_from_arrays([[3.0, 1.0, 2.0], [1.0]])
    assert sort_metrics(torch.tensor([[1, 2, 0], [0, -1, -1]]), batch).exact_match == 1.0
    raises_one_line(ValueError, lambda: sort_metrics(torch.tensor([[1, 2, 0], [1, -1, -1]]), batch), "pointers", "got 1")
    raises_one_line(ValueError, lambda: sort_metrics(torch.tensor([[1.0, 2.0, 0.0]] * 2), batch), "pointers", "integers")


def test_tensors_on_two_devices_are_a_value_error_naming_both():
    """On a GPU machine a batch the library builds lives on the GPU and a tensor typed by hand on the
    CPU (the second edition's chapter 3 met this on an H100); "meta" stands in for the other device."""
    hulls = hull_batch_from_points([TRIANGLE], device="cpu")
    elsewhere = torch.tensor([[0, 1, 2, 3]], device="meta")
    raises_one_line(ValueError, lambda: hull_metrics(elsewhere, hulls), "pointers is on meta", "batch on cpu")
    raises_one_line(ValueError, lambda: convex_hull.same_polygon(elsewhere, hulls), "pointers is on meta")
    arrays = sort_batch_from_arrays([[3.0, 1.0, 2.0]], device="cpu")
    raises_one_line(ValueError, lambda: sort_metrics(torch.zeros(1, 3, dtype=torch.long, device="meta"), arrays),
                    "pointers is on meta")
    available = torch.ones(1, 3, dtype=torch.bool, device="meta")
    raises_one_line(ValueError, lambda: oracle_choices(arrays.inputs, available), "available is on meta", "inputs on cpu")


# --- wrong container types -------------------------------------------------------------------------


def _wrong_type_cases():
    """``(id, call, parameter)``: each call passes a list (or a tuple) where the API wants a tensor,
    a batch or a model."""
    probs = [[0.5, 0.5]]
    t = torch.tensor(probs)
    pointer = PointerNetwork(hidden=4, attention_dim=4, max_positions=4)
    attention = AdditiveAttention(2, 2, 3)
    act = act_parity_model(2, 4)
    ponder = PonderNet(LambdaStep(0.5), hidden_size=2, max_ponder_steps=3)
    ut = UniversalTransformer(d_model=4, heads=1, d_transition=4)
    hulls = hull_batch_from_points([TRIANGLE])
    sorts = sort_batch_from_arrays([[2.0, 1.0]])
    cases = [
        ("act_halting", lambda: act_halting(probs), "halting_units"),
        ("pondernet_halting", lambda: pondernet_halting(probs), "lambdas"),
        ("pondernet_log_halting", lambda: pondernet_log_halting(probs), "lambdas"),
        ("expected_ponder_steps", lambda: expected_ponder_steps(probs), "halting_probs"),
        ("kl_to_geometric", lambda: kl_to_geometric(probs, 0.2), "halting_probs"),
        ("reconstruction_loss", lambda: reconstruction_loss(t, probs), "halting_probs"),
        ("PonderNetLoss-steps", lambda: PonderNetLoss(0.2, 0.01, max_ponder_steps=2)(probs, t), "step_losses"),
        ("PonderNetLoss", lambda: PonderNetLoss(0.2, 0.01, max_ponder_steps=2)(t, probs), "halting_probs"),
        ("PonderNetLoss-log", lambda: PonderNetLoss(0.2, 0.01, max_ponder_steps=2)(t, t, probs), "log_halting_probs"),
        ("ACTLoss", lambda: ACTLoss(0.1)(torch.tensor(1.0), [1.0, 2.0]), "ponder_cost"),
        ("binary_step_losses", lambda: binary_step_losses(probs, torch.ones(1)), "step_logits"),
        ("AdditiveAttention", lambda: attention([[[1.0, 2.0]]], torch.ones(1, 2)), "keys"),
        ("AdditiveAttention-mask", lambda: attention(torch.ones(1, 1, 2), torch.ones(1, 2), [[True]]), "mask"),
        ("AdditiveAttention.from_matrices", lambda: AdditiveAttention.from_matrices([[1.0]], t, t[0]), "W1"),
        ("context", lambda: context([[1.0]], torch.ones(1, 1, 2)), "weights"),
        ("masked_log_softmax", lambda: masked_log_softmax(t, [[True, True]]), "mask"),
        ("PointerNetwork", lambda: pointer([[1.0, 2.0]], torch.tensor([2])), "inputs"),
        ("PointerEncoder", lambda: pointer.encoder([[1.0, 2.0]], torch.tensor([2])), "inputs"),
        ("PointerNetwork-lengths", lambda: pointer(torch.ones(1, 2), [2]), "lengths"),
        ("greedy_decode", lambda: greedy_decode(pointer, [[1.0, 2.0]], torch.tensor([2])), "inputs"),
        ("greedy_decode-model", lambda: greedy_decode("pointer", torch.ones(1, 2), torch.tensor([2])), "model"),
        ("beam_search", lambda: beam_search(pointer, [[1.0, 2.0]], torch.tensor([2])), "inputs"),
        ("ACT", lambda: act([[1.0, 0.0]]), "x"),
        ("ACT-state", lambda: act(torch.ones(1, 2), [[0.0] * 4]), "state"),
        ("ACTRNN", lambda: ACTRNN(act)([[[1.0, 0.0]]]), "inputs"),
        ("PonderNet", lambda: ponder([[1.0, 0.0]]), "x"),
        ("PonderNet.infer", lambda: ponder.infer([[1.0, 0.0]]), "x"),
        ("UniversalTransformer", lambda: ut([[[0.0] * 4]]), "x"),
        ("UniversalTransformer-mask", lambda: ut(torch.zeros(1, 1, 4), [[False]]), "padding_mask"),
        ("next_vertex", lambda: convex_hull.next_vertex([[0, 1]], torch.ones(1, 2, dtype=torch.bool)), "targets"),
        ("hull_loss", lambda: convex_hull.hull_loss((torch.zeros(1, 1, 2),), hulls.targets), "output"),
        ("hull_metrics", lambda: hull_metrics([[0, 1, 2, 3]], hulls), "pointers"),
        ("hull_metrics-batch", lambda: hull_metrics(torch.tensor([[0, 1, 2, 3]]), (hulls.points,)), "batch"),
        ("evaluate_hull", lambda: convex_hull.evaluate_hull(pointer, (hulls.points,)), "batch"),
        ("sort_targets", lambda: sort_targets([[1.0, 0.0]], torch.ones(1, 2, dtype=torch.bool)), "inputs"),
        ("sort_targets-mask", lambda: sort_targets(torch.ones(1, 2), [[True, True]]), "mask"),
        ("sort_batch_from_arrays", lambda: sort_batch_from_arrays(3.0), "arrays"),
        ("sort_batch_from_arrays-row", lambda: sort_batch_from_arrays([[1.0], "ab"]), "arrays[1]"),
        ("oracle_choices", lambda: oracle_choices([[1.0, 0.0]], torch.ones(1, 2, dtype=torch.bool)), "inputs"),
        ("sort_loss", lambda: sort_loss([[0.0]], torch.ones(1, 1), torch.ones(1)), "output"),
        ("sort_metrics", lambda: sort_metrics([[1, 0]], sorts), "pointers"),
        ("sort_teacher", lambda: sort_teacher([[1.0, 0.0]]), "inputs"),
        ("evaluate_sort", lambda: evaluate_sort(pointer, sorts.inputs), "batch"),
        ("exact_match_by_length", lambda: exact_match_by_length("pointer", [3], seed=0), "model"),
        ("predict_parity", lambda: predict_parity(act, [[1.0, 0.0]]), "x"),
        ("predict_parity-model", lambda: predict_parity(nn.Linear(2, 1), torch.ones(1, 2)), "model"),
        ("evaluate_parity", lambda: evaluate_parity(act, (torch.ones(1, 2), torch.ones(1))), "batch"),
        ("sequence_loss", lambda: sequence_loss(act_sequence_model(2, 4), (torch.ones(1, 1, 2),), ACTLoss(0.1)), "batch"),
        ("evaluate_act_sequence", lambda: evaluate_act_sequence(act_sequence_model(2, 4), [torch.ones(1, 1, 2)]), "batch"),
    ]
    return [pytest.param(call, name, id=case) for case, call, name in cases]


class LambdaStep(nn.Module):
    """A PonderNet step function whose ``lambda_n`` is a constant the test chooses (in range or not)."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value
        self.cell = nn.Linear(2, 2)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return x.sum(dim=1), self.cell(x) + h, torch.full((x.shape[0],), self.value)


@pytest.mark.parametrize("call, name", _wrong_type_cases())
def test_a_wrong_container_type_is_a_type_error_naming_the_parameter(call, name):
    raises_one_line(TypeError, call, name)


# --- halting probabilities and lambdas out of range ---------------------------------------------


@pytest.mark.parametrize("value", [1.5, -0.5, NAN], ids=["above-one", "negative", "nan"])
def test_a_pondernet_step_whose_lambda_is_out_of_range_is_refused(value):
    model = PonderNet(LambdaStep(value), hidden_size=2, max_ponder_steps=4, unroll_tolerance=0.0)
    x = torch.ones(3, 2)
    raises_one_line(ValueError, lambda: model(x), "lambdas", "[0, 1]")
    raises_one_line(ValueError, lambda: model.infer(x, halting_rule="median"), "lambdas", "[0, 1]")


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_a_lambda_of_exactly_zero_or_one_is_in_range(value):
    out = PonderNet(LambdaStep(value), hidden_size=2, max_ponder_steps=4, unroll_tolerance=0.0)(torch.ones(3, 2))
    assert torch.all(out.halting_probs >= 0) and torch.allclose(out.halting_probs.sum(dim=1), torch.ones(3))


@pytest.mark.parametrize("value", [1.5, -0.5, NAN], ids=["above-one", "negative", "nan"])
@pytest.mark.parametrize(
    "call, name",
    [(pondernet_halting, "lambdas"), (pondernet_log_halting, "lambdas"), (act_halting, "halting_units"),
     (lambda p: kl_to_geometric(p, 0.2), "halting_probs"),
     (lambda p: reconstruction_loss(torch.ones_like(p), p), "halting_probs")],
    ids=["pondernet_halting", "pondernet_log_halting", "act_halting", "kl_to_geometric", "reconstruction_loss"],
)
def test_halting_values_out_of_range_or_nan_are_a_value_error(call, name, value):
    raises_one_line(ValueError, lambda: call(torch.tensor([[0.25, value, 0.5]])), name, "[0, 1]")


@pytest.mark.parametrize("value", [NAN, INF], ids=["nan", "inf"])
def test_expected_ponder_steps_refuses_what_is_not_finite_and_averages_the_rest(value):
    raises_one_line(ValueError, lambda: expected_ponder_steps(torch.tensor([[0.5, value]])), "halting_probs", "must lie in")
    assert expected_ponder_steps(torch.tensor([[0.5, 0.25, 0.0]])).item() == 0.5 + 0.5  # a cut-short unroll


@pytest.mark.parametrize(
    "field, bad",
    [("halting_probs", NAN), ("log_halting_probs", NAN), ("log_halting_probs", -INF), ("step_losses", NAN)],
    ids=["nan-p", "nan-log-p", "minus-inf-log-p", "nan-step-loss"],
)
@pytest.mark.parametrize("direction", ["paper", "reverse"])
def test_the_training_loss_refuses_nan_or_inf_naming_the_argument_that_made_it(field, bad, direction):
    loss = PonderNetLoss(0.2, 0.01, direction, max_ponder_steps=3)
    inputs = {"step_losses": torch.ones(2, 3), "halting_probs": torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])}
    inputs["log_halting_probs"] = torch.log(inputs["halting_probs"].clamp_min(1e-12))
    assert torch.isfinite(loss(**inputs)[0])
    inputs[field] = inputs[field].clone()
    inputs[field][0, 2] = bad  # where p = 0: a -inf log p makes the paper's KL NaN (0 * inf), the reverse inf
    raises_one_line(ValueError, lambda: loss(**inputs), field)


# --- padded positions never influence real ones ------------------------------------------------


def with_garbage(x: torch.Tensor, padding: torch.Tensor, value: float) -> torch.Tensor:
    """``x`` with ``value`` at every padded position (``padding (B, T)`` True there)."""
    return torch.where(padding.reshape(padding.shape + (1,) * (x.dim() - 2)), torch.full_like(x, value), x)


@pytest.mark.parametrize("value", GARBAGE, ids=["nan", "inf", "-inf", "1e30"])
@pytest.mark.parametrize("method, halting_rule", [("act", None), ("pondernet", None), ("pondernet", "median"),
                                                   ("pondernet", "sample"), ("fixed", None)])
def test_universal_transformer_padding_never_reaches_real_positions(method, halting_rule, value):
    torch.manual_seed(0)
    model = UniversalTransformer(8, 2, 16, 5, method).double()
    padding = torch.arange(6).unsqueeze(0) >= torch.tensor([[6], [4], [1]])  # (3, 6)
    x = torch.where(padding.unsqueeze(2), 0.0, torch.randn(3, 6, 8, dtype=torch.float64))
    outputs, grads = [], []
    for inputs in (x, with_garbage(x, padding, value)):
        inputs = inputs.clone().requires_grad_()
        out = model(inputs, padding, halting_rule, torch.Generator().manual_seed(1))
        out.state[~padding].sum().backward()
        outputs.append(out)
        grads.append([p.grad.clone() for p in model.parameters() if p.grad is not None] + [inputs.grad[~padding]])
        model.zero_grad()
    zeros, garbage = outputs
    real = ~padding
    for field in ("state", "step_states", "halting_probs", "ponder_steps", "ponder_cost", "attention"):
        assert torch.equal(getattr(zeros, field)[real], getattr(garbage, field)[real]), field
    assert torch.all(garbage.state[padding] == 0)  # the padding's own state is zero, not the garbage
    assert all(torch.equal(a, b) for a, b in zip(*grads))  # and so are the gradients


@pytest.mark.parametrize("value", GARBAGE, ids=["nan", "inf", "-inf", "1e30"])
@pytest.mark.parametrize("decoder", DECODERS)
def test_pointer_network_padding_never_reaches_real_positions(decoder, value):
    torch.manual_seed(0)
    model = PointerNetwork(decoder, hidden=8, attention_dim=8, max_positions=6).eval()
    lengths = torch.tensor([6, 3, 1])
    padding = torch.arange(6).unsqueeze(0) >= lengths.unsqueeze(1)  # (3, 6)
    x = torch.where(padding, 0.0, torch.rand(3, 6))
    zeros, garbage = (greedy_decode(model, inputs, lengths) for inputs in (x, with_garbage(x, padding, value)))
    for field in ("log_probs", "pointers", "attention", "available"):
        assert torch.equal(getattr(zeros, field), getattr(garbage, field)), field
    beams = [beam_search(model, inputs, lengths, beam_width=2) for inputs in (x, with_garbage(x, padding, value))]
    assert torch.equal(beams[0][0], beams[1][0]) and torch.equal(beams[0][1], beams[1][1])


@pytest.mark.parametrize("value", GARBAGE, ids=["nan", "inf", "-inf", "1e30"])
def test_hull_pointer_network_padding_never_reaches_real_positions(value):
    torch.manual_seed(0)
    model = PointerNetwork("pointer", hidden=8, attention_dim=8, input_size=2, end_pointer=True).eval()
    batch = hull_batch_from_points([TRIANGLE, [[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]]])
    dirty = with_garbage(batch.points, ~batch.mask, value)
    zeros, garbage = (greedy_decode(model, points, batch.lengths) for points in (batch.points, dirty))
    for field in ("log_probs", "pointers", "attention"):
        assert torch.equal(getattr(zeros, field), getattr(garbage, field)), field


@pytest.mark.parametrize("value", GARBAGE, ids=["nan", "inf", "-inf", "1e30"])
def test_additive_attention_masked_keys_never_reach_the_rest(value):
    torch.manual_seed(0)
    attention = AdditiveAttention(3, 2, 4)
    keys, query = torch.randn(2, 4, 3), torch.randn(2, 2)
    mask = torch.tensor([[True, True, False, False], [True, True, True, False]])
    clean = attention(keys, query, mask)
    dirty = attention(with_garbage(keys, ~mask, value), query, mask)
    for a, b in zip(clean, dirty):
        assert torch.equal(a, b)
    assert torch.all(dirty[1][~mask] == 0) and torch.all(torch.isfinite(dirty[2]))

