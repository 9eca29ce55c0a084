"""The convex hull task: hull order against a brute-force hull, the teacher, the loss by hand, the
metrics on fixed outputs, a short training run and the ``train convex_hull`` CLI."""

import itertools
import json
import math

import numpy as np
import pytest
import torch
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderlib.mechanisms.decoding import beam_search, greedy_decode
from ponderlib.mechanisms.pointer import DecoderOutput, PointerNetwork
from ponderlib.tasks.convex_hull import HullConfig, evaluate_hull, hull_loss, hull_metrics, same_polygon, train_hull
from ponderlib.tasks.convex_hull_data import hull_batch, hull_batch_from_points, hull_order, next_vertex, polygon_area

SQUARE_WITH_INSIDE = np.array([[0.5, 0.5], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
"""Corners at indices 1..4 (counter-clockwise from index 1: (1,0) -> (1,1) -> (0,1) -> (0,0)),
one point inside at index 0."""


pytestmark = pytest.mark.usefixtures("one_thread")


def brute_force_hull(points: np.ndarray) -> set[int]:
    """Indices ``k`` such that some line through ``P_k`` has every other point strictly on one side:
    for a point set in general position, the hull's corners (checked over all pairs (k, m))."""
    corners = set()
    for k, m in itertools.permutations(range(len(points)), 2):
        edge = points[m] - points[k]
        cross = edge[0] * (points[:, 1] - points[k, 1]) - edge[1] * (points[:, 0] - points[k, 0])
        others = np.delete(cross, [k, m])
        if np.all(others > 0):  # every other point left of k -> m: k -> m is a counter-clockwise edge
            corners |= {k, m}
    return corners


def test_hull_order_by_hand():
    assert hull_order(SQUARE_WITH_INSIDE) == [1, 2, 3, 4]
    triangle = np.array([[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]])  # counter-clockwise: 0 -> 1 -> 2
    assert hull_order(triangle) == [0, 1, 2]
    assert hull_order(triangle[::-1].copy()) == [0, 2, 1]  # reversed input: (1,0) -> (0,1) -> (0,0)
    with pytest.raises(ValueError, match="n >= 3"):
        hull_order(triangle[:2])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 12))
def test_hull_order_against_brute_force(seed, n):
    points = np.random.default_rng(seed).random((n, 2))
    order = hull_order(points)
    assert set(order) == brute_force_hull(points)
    assert order[0] == min(order)
    # Counter-clockwise: every consecutive turn is to the left (positive cross product).
    for a, b, c in zip(order, order[1:] + order[:1], order[2:] + order[:2]):
        ab, bc = points[b] - points[a], points[c] - points[b]
        assert ab[0] * bc[1] - ab[1] * bc[0] > 0


def test_batch_targets_padding_and_areas():
    batch = hull_batch_from_points([SQUARE_WITH_INSIDE, SQUARE_WITH_INSIDE[1:4]], pad_to=6)
    assert batch.targets.tolist() == [[1, 2, 3, 4, 6, -1, -1], [0, 1, 2, 6, -1, -1, -1]]
    assert batch.hull_areas.tolist() == pytest.approx([1.0, 0.5])
    assert batch.mask.tolist() == [[True] * 5 + [False], [True] * 3 + [False] * 3]
    drawn = hull_batch(64, 4, 9, generator=torch.Generator().manual_seed(0))
    assert drawn.points.shape == (64, 9, 2) and drawn.targets.shape == (64, 10)
    assert torch.all(drawn.points[~drawn.mask] == 0) and bool((drawn.lengths >= 4).all())
    again = hull_batch(64, 4, 9, generator=torch.Generator().manual_seed(0))
    assert torch.equal(drawn.targets, again.targets)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"min_points": 2}, "min_points must be an integer in \\[3, 10000\\], got 2"),
     ({"min_points": 6, "max_points": 5}, "max_points must be an integer in \\[6, 10000\\], got 5"),
     ({"batch_size": 0}, "batch_size must be an integer in \\[1, 1000000\\], got 0")],
)
def test_bad_batch_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        hull_batch(**{"batch_size": 4, **kwargs})


def test_next_vertex_is_the_first_target_still_available():
    targets = torch.tensor([[1, 2, 3, 4, 5, -1]])
    everything = torch.ones(1, 6, dtype=torch.bool)
    assert next_vertex(targets, everything).tolist() == [1]
    skipped = everything.clone()
    skipped[0, [1, 3]] = False  # 1 and 3 emitted (3 out of order): 2 is next
    assert next_vertex(targets, skipped).tolist() == [2]
    done = everything.clone()
    done[0, [1, 2, 3, 4]] = False
    assert next_vertex(targets, done).tolist() == [5]  # the end


def test_hull_loss_on_fixed_numbers():
    # Triangle (3 points, end at index 3): target 0, 1, 2, end; teacher-forced, p given by hand.
    targets = torch.tensor([[0, 1, 2, 3]])
    p = torch.tensor([[[0.5, 0.0, 0.0, 0.5],   # step 1: all available
                       [0.0, 0.8, 0.0, 0.2],   # step 2: 0 emitted
                       [0.0, 0.0, 0.9, 0.1],   # step 3: 0, 1 emitted
                       [0.0, 0.0, 0.0, 1.0]]])  # step 4: only the end is left
    available = torch.tensor([[[True] * 4, [False] + [True] * 3, [False] * 2 + [True] * 2, [False] * 3 + [True]]])
    output = DecoderOutput(p.log(), targets, p, available)
    # -(log 0.5 + log 0.8 + log 0.9 + log 1) / 4 = (0.6931 + 0.2231 + 0.1054 + 0) / 4
    assert hull_loss(output, targets).item() == pytest.approx(-math.log(0.5 * 0.8 * 0.9) / 4, abs=1e-6)
    assert hull_loss(output, targets).item() == pytest.approx(0.2554, abs=1e-4)


def test_metrics_on_fixed_outputs():
    batch = hull_batch_from_points([SQUARE_WITH_INSIDE] * 4)
    end = 5
    outputs = torch.tensor([
        [1, 2, 3, 4, end],  # right
        [2, 3, 4, 1, end],  # the same polygon from another start: wrong sequence, full area
        [1, 2, 0, 4, end],  # corner (0, 1) replaced by the centre: valid, the triangle (1,0), (1,1), (0,0), area 1/2
        [1, 3, 2, 4, end],  # self-intersecting (a bow tie): invalid
    ])
    metrics = hull_metrics(outputs, batch)
    assert metrics.accuracy == 0.25
    assert metrics.polygon_accuracy == 0.5  # the right sequence and its rotation
    assert metrics.invalid == 0.25
    assert metrics.area_coverage == pytest.approx((1.0 + 1.0 + 0.5) / 3)
    assert polygon_area(SQUARE_WITH_INSIDE[[1, 2]]) is None  # two vertices: not a polygon


def test_polygon_equality_by_hand():
    # The square's corners 1 (1,0), 2 (1,1), 3 (0,1), 4 (0,0) counter-clockwise; 0 is inside; the end is 5.
    batch = hull_batch_from_points([SQUARE_WITH_INSIDE] * 8)
    outputs = torch.tensor([
        [1, 2, 3, 4, 5, -1],  # the target itself
        [3, 4, 1, 2, 5, -1],  # the same cycle from (0,1): the same polygon, not the same sequence
        [4, 1, 2, 3, 5, -1],  # and from (0,0)
        [1, 4, 3, 2, 5, -1],  # clockwise: the same vertices, the other orientation
        [2, 1, 4, 3, 5, -1],  # clockwise from another start
        [1, 2, 3, 5, -1, -1],  # a vertex missing: a triangle
        [1, 2, 3, 4, 0, 5],  # an extra point (the inside one)
        [1, 3, 2, 4, 5, -1],  # the four corners out of order (a bow tie)
    ])
    assert same_polygon(outputs, batch).tolist() == [True, True, True, False, False, False, False, False]
    metrics = hull_metrics(outputs, batch)
    assert (metrics.accuracy, metrics.polygon_accuracy) == (1 / 8, 3 / 8)
    # Read as area coverage reads an output: its vertices in order, whatever the end and the -1 padding.
    unended = torch.tensor([[2, 3, 4, 1], [2, 3, 4, -1]])
    assert same_polygon(unended, hull_batch_from_points([SQUARE_WITH_INSIDE] * 2)).tolist() == [True, False]
    triangle = hull_batch_from_points([SQUARE_WITH_INSIDE[1:4]], pad_to=5)  # vertices 0, 1, 2; the end is 5
    assert same_polygon(torch.tensor([[1, 2, 0, 5, -1, -1, -1]]), triangle).tolist() == [True]
    assert same_polygon(torch.tensor([[1, 0, 2, 5]]), triangle).tolist() == [False]


def hull_model(seed: int = 0) -> PointerNetwork:
    torch.manual_seed(seed)
    return PointerNetwork("pointer", 16, 8, True, 8, input_size=2, end_pointer=True).eval()


def test_beam_width_one_is_greedy_and_a_beam_of_3_scores_no_lower_here():
    batch = hull_batch(48, 5, 8, generator=torch.Generator().manual_seed(2))
    model = hull_model(1)
    assert evaluate_hull(model, batch, beam_width=1) == evaluate_hull(model, batch)
    beam, log_p = beam_search(model, batch.points, batch.lengths, beam_width=1)
    assert torch.equal(beam, greedy_decode(model, batch.points, batch.lengths).pointers)
    _, beam_log_p = beam_search(model, batch.points, batch.lengths, beam_width=3)
    assert bool((beam_log_p >= log_p - 1e-5).all())  # on this batch; not a theorem (see beam_search)
    beam_metrics = evaluate_hull(model, batch, beam_width=3)
    assert 0.0 <= beam_metrics.polygon_accuracy <= 1.0 and beam_metrics.accuracy <= beam_metrics.polygon_accuracy
    with pytest.raises(ValueError, match=r"beam_width must be an integer in \[1, 1000\], got 0"):
        evaluate_hull(model, batch, beam_width=0)


@pytest.mark.parametrize(
    "overrides, message",
    [({"lr_decay": 0.0}, r"lr_decay must be in \(0, 1\], got 0.0"),
     ({"lr_decay": 1.5}, r"lr_decay must be in \(0, 1\], got 1.5"),
     ({"lr_decay": float("nan")}, r"lr_decay must be in \(0, 1\], got nan"),
     ({"beam_width": 0}, r"beam_width must be an integer in \[1, 1000\], got 0"),
     ({"beam_width": 2.0}, r"beam_width must be an integer in \[1, 1000\], got 2.0")],
)
def test_bad_schedule_and_beam(overrides, message):
    with pytest.raises(ValueError, match=message):
        HullConfig(**overrides).validate()


def test_beam_and_decay_reach_the_run():
    settings = dict(max_updates=2, eval_every=2, eval_size=16, test_size=8, min_points=4, max_points=5,
                    test_max_points=6, hidden=8, attention_dim=8, batch_size=8, progress=False, seed=2)
    greedy, beam = train_hull(**settings), train_hull(**settings, beam_width=3, lr_decay=0.5)
    assert greedy.summary()["config"]["beam_width"] == 1 and beam.summary()["config"]["lr_decay"] == 0.5
    assert set(beam.summary()["polygon_accuracy"]) == {"4", "5", "6"}
    assert beam.history.loss[0] == greedy.history.loss[0]  # the first two updates: lr, then lr * 0.5 ** 0.001
    assert "polygon_accuracy" in greedy.history.metrics


def test_short_training_run_and_config_checks():
    result = train_hull(max_updates=3, eval_every=3, eval_size=32, test_size=16, test_max_points=11,
                        hidden=16, attention_dim=8, batch_size=16, progress=False)
    summary = result.summary()
    assert summary["task"] == "convex_hull" and summary["updates"] == 3
    assert list(summary["exact_match_by_points"]) == [str(n) for n in range(5, 12)]
    assert "accuracy" not in summary and "accuracy" in summary["curve"]  # the curve's keeps its name
    with pytest.raises(ValueError, match=r"test_max_points must be an integer in \[10, 10000\], got 9"):
        HullConfig(test_max_points=9).validate()


def test_cli_json():
    proc = run_cli(
        "train", "convex_hull", "--min-points", "4", "--max-points", "6", "--test-max-points", "7", "--hidden", "8",
        "--max-updates", "2", "--eval-size", "16", "--test-size", "8", "--batch-size", "8", "--seed", "1", "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["task"] == "convex_hull" and summary["seed"] == 1 and summary["updates"] == 2
    assert list(summary["area_coverage"]) == ["4", "5", "6", "7"]
