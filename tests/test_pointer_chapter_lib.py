"""Tests of what chapter 3 adds to ponderlib: ponderlib.experiments.pointer (tiny, fast runs)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from ponderlib.core.engine import History
from ponderlib.core.seeds import stream_generator
from ponderlib.experiments import pointer as experiments
from ponderlib.mechanisms.pointer import PointerNetwork, greedy_decode
from ponderlib.tasks.convex_hull import HullMetrics, hull_order, train_hull
from ponderlib.tasks.sorting import evaluate_sort, sort_batch, train_sort

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = dict(hidden=8, attention_dim=8, batch_size=16, max_updates=2, eval_every=2, eval_size=16, device="cpu", progress=False)


@pytest.fixture(scope="module")
def sort_run():
    return train_sort(values="float", order="desc", target_accuracy=None, test_size=16, seed=3, **TINY)


@pytest.fixture(scope="module")
def hull_run():
    return train_hull(test_size=8, test_max_points=10, seed=2, **TINY)


def test_mean_and_half_range_by_hand():
    mean, half_range = experiments.mean_and_half_range([0.2, 0.4, 0.9])
    assert mean == pytest.approx(0.5) and half_range == pytest.approx(0.35)
    assert experiments.mean_and_half_range([0.7]) == (0.7, 0.0)
    with pytest.raises(ValueError, match="values"):
        experiments.mean_and_half_range([])


def test_mean_curve_by_hand_and_none_where_a_seed_cannot_run():
    curve = experiments.mean_curve([{5: 1.0, 10: 0.5, 12: 0.2}, {5: 0.5, 10: 0.25, 12: None}])
    assert curve == {5: 0.75, 10: 0.375, 12: None}
    assert list(curve) == [5, 10, 12]
    with pytest.raises(ValueError, match="curves\\[1\\] has lengths"):
        experiments.mean_curve([{5: 1.0}, {6: 1.0}])
    with pytest.raises(ValueError, match="curves"):
        experiments.mean_curve([])


def test_beam_widths_share_the_scoring_arrays():
    torch.manual_seed(0)
    model = PointerNetwork("pointer", hidden=8, attention_dim=8, max_positions=6)
    scores = experiments.exact_match_by_beam_width(model, (1, 2), 6, "int", "asc", 32, seed=5, device="cpu")
    assert list(scores) == [1, 2]
    batch = sort_batch(32, 6, 6, "int", "asc", generator=stream_generator(5, "scoring", "cpu"))
    assert scores[1] == evaluate_sort(model, batch).exact_match  # width 1: greedy, on the run's scoring arrays
    assert scores[2] == evaluate_sort(model, batch, beam_width=2).exact_match
    assert scores == experiments.exact_match_by_beam_width(model, (1, 2), 6, "int", "asc", 32, seed=5, device="cpu")
    with pytest.raises(ValueError, match="beam_width"):
        experiments.exact_match_by_beam_width(model, (0,), 6, seed=5, device="cpu")
    with pytest.raises(ValueError, match="beam_widths"):
        experiments.exact_match_by_beam_width(model, (), 6, seed=5, device="cpu")


def test_sort_examples_are_the_greedy_decoding_of_the_runs_scoring_arrays(sort_run):
    examples = experiments.sort_examples(sort_run, 3, 4, 7)
    batch = sort_batch(3, 4, 7, "float", "desc", generator=stream_generator(3, "scoring", "cpu"))
    decoded = greedy_decode(sort_run.model, batch.inputs, batch.lengths)
    assert len(examples) == 3
    for k, example in enumerate(examples):
        n = example.length
        assert 4 <= n <= 7 and n == batch.lengths[k].item()
        assert torch.equal(example.inputs, batch.inputs[k])
        assert torch.equal(example.pointers, decoded.pointers[k])
        assert sorted(example.pointers[:n].tolist()) == list(range(n))  # a permutation, then -1
        assert (example.pointers[n:] == -1).all()
        assert example.attention.shape == (7, 7)
        assert torch.allclose(example.attention[:n].sum(dim=1), torch.ones(n), atol=1e-5)
    with pytest.raises(ValueError, match="max_len"):
        experiments.sort_examples(sort_run, 1, 5, 4)


def test_hull_examples_read_vertices_off_the_pointers(hull_run):
    examples = experiments.hull_examples(hull_run, 4, 5, 8)
    assert len(examples) == 4
    for example in examples:
        assert 5 <= example.length <= 8 and example.points.shape == (example.length, 2)
        assert example.true == hull_order(example.points.double().numpy())
        real = [j for j in example.pointers.tolist() if j >= 0]
        assert example.predicted == [j for j in real if j != 8]  # the end pointer (index N = 8) left out
        assert all(0 <= j < example.length for j in example.predicted)
        assert example.attention.shape[1] == 9  # N + 1 columns, the last the end
        assert example.exact == (example.predicted == example.true)
    with pytest.raises(ValueError, match="min_points"):
        experiments.hull_examples(hull_run, 1, 2, 8)


def test_hull_example_exact_by_hand():
    square = torch.tensor([[0.5, 0.5], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    right = experiments.HullExample(square, [1, 2, 3, 4], [1, 2, 3, 4], torch.tensor([1, 2, 3, 4, 5]), torch.zeros(5, 6))
    rotated = experiments.HullExample(square, [2, 3, 4, 1], [1, 2, 3, 4], torch.tensor([2, 3, 4, 1, 5]), torch.zeros(5, 6))
    assert right.exact and not rotated.exact and right.length == 5


def test_metric_by_points_one_value_per_run_by_hand(hull_run):
    runs = [
        SimpleNamespace(by_points={5: HullMetrics(0.5, 0.9, 0.1), 10: HullMetrics(0.25, 0.95, 0.0)}),
        SimpleNamespace(by_points={5: HullMetrics(0.75, 0.8, 0.2), 10: HullMetrics(0.5, 1.0, 0.05)}),
    ]
    assert experiments.metric_by_points(runs, "accuracy") == {5: [0.5, 0.75], 10: [0.25, 0.5]}
    assert experiments.metric_by_points(runs, "area_coverage") == {5: [0.9, 0.8], 10: [0.95, 1.0]}
    assert experiments.metric_by_points(runs, "invalid") == {5: [0.1, 0.2], 10: [0.0, 0.05]}
    real = experiments.metric_by_points([hull_run], "accuracy")
    assert list(real) == list(range(5, 11)) and all(0.0 <= v[0] <= 1.0 for v in real.values())
    with pytest.raises(ValueError, match="metric"):
        experiments.metric_by_points(runs, "area")
    with pytest.raises(ValueError, match="results"):
        experiments.metric_by_points([], "accuracy")


def test_still_rising_compares_the_end_with_the_middle():
    history = History()
    for update, accuracy in zip((50, 100, 150, 200), (0.1, 0.3, 0.2, 0.4)):
        history.record(update, 0.0, 1.0, {"accuracy": accuracy, "area_coverage": 0.9 - accuracy / 10})
    assert experiments.still_rising(history, "accuracy")  # 0.4 > 0.2, the value at index 4 // 2
    assert not experiments.still_rising(history, "area_coverage")  # 0.86 < 0.88
    with pytest.raises(ValueError, match="metric"):
        experiments.still_rising(history, "exact_match")


def test_rising_at_end_by_hand():
    assert experiments.rising_at_end([0.1, 0.3, 0.2, 0.4])  # 0.4 > values[2] = 0.2
    assert not experiments.rising_at_end([0.1, 0.5, 0.5])  # 0.5 is not above values[1] = 0.5
    assert not experiments.rising_at_end([0.7])  # one evaluation: its own middle
    assert experiments.rising_at_end((0.1, 0.2, 0.3, 0.35, 0.4, 0.45))  # values[3] = 0.35
    with pytest.raises(ValueError, match="values"):
        experiments.rising_at_end([])


def test_still_rising_reads_a_summarys_curve_as_a_history(hull_run):
    curve = {"update": [50, 100, 150, 200], "loss": [1.0, 0.8, 0.7, 0.6], "accuracy": [0.1, 0.3, 0.2, 0.4]}
    assert experiments.still_rising(curve, "accuracy") and not experiments.still_rising(curve, "loss")
    with pytest.raises(ValueError, match="metric"):
        experiments.still_rising(curve, "area_coverage")
    summary = hull_run.summary()  # what the sweep writes as evidence: the same verdict as the live history
    for metric in ("accuracy", "area_coverage"):
        assert experiments.still_rising(summary["curve"], metric) == experiments.still_rising(hull_run.history, metric)


def test_length_evidence_figure_draws_every_seed_and_their_mean():
    import matplotlib.pyplot as plt

    from ponderlib.figures.pointer import length_evidence_figure

    summaries = [
        {"exact_match_by_length": {"5": 1.0, "10": 0.9, "20": 0.5}},
        {"exact_match_by_length": {"5": 0.8, "10": 0.7, "20": 0.3}},
    ]
    fig = length_evidence_figure(summaries, trained_max=10, title="evidence")
    lines = fig.axes[0].lines
    assert len(lines) == 3  # two seeds, then the mean
    assert list(lines[0].get_xdata()) == [5, 10, 20] and list(lines[1].get_ydata()) == [0.8, 0.7, 0.3]
    assert lines[2].get_ydata() == pytest.approx([0.9, 0.8, 0.4])
    with pytest.raises(ValueError, match="summaries"):
        length_evidence_figure([], 10, "none")
    plt.close("all")


def test_hull_training_figures_from_histories_and_from_summaries_draw_the_same_curves(hull_run):
    import matplotlib.pyplot as plt

    from ponderlib.figures.pointer import hull_training_evidence_figure, hull_training_figure

    live = hull_training_figure({2: hull_run.history}, "live")
    evidence = hull_training_evidence_figure([hull_run.summary(), hull_run.summary()], "evidence")
    for left, right in zip(live.axes, evidence.axes):
        (seed,) = left.lines
        assert list(seed.get_xdata()) == list(right.lines[0].get_xdata())
        assert right.lines[0].get_ydata() == pytest.approx(seed.get_ydata(), abs=1e-4)  # summaries round to 4 decimals
        assert right.lines[2].get_ydata() == pytest.approx(seed.get_ydata(), abs=1e-4)  # the mean of two equal runs
    other = hull_run.summary()
    other["curve"] = {**other["curve"], "update": [u + 1 for u in other["curve"]["update"]]}
    with pytest.raises(ValueError, match="same training updates"):
        hull_training_evidence_figure([hull_run.summary(), other], "mismatch")
    with pytest.raises(ValueError, match="summaries"):
        hull_training_evidence_figure([], "none")
    plt.close("all")


def test_examples_leave_the_model_in_its_mode(sort_run):
    sort_run.model.train()
    experiments.sort_examples(sort_run, 1, 5, 5)
    assert sort_run.model.training
    sort_run.model.eval()
    assert np.isfinite(experiments.sort_examples(sort_run, 1, 5, 5)[0].attention.numpy()).all()
