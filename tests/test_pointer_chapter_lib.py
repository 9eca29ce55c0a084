"""Tests of what chapter 3 adds to ponderlib: ponderlib.experiments.pointer (tiny, fast runs)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from ponderlib.core.engine import History
from ponderlib.core.records import Curve
from ponderlib.core.seeds import stream_generator
from ponderlib.experiments import pointer as experiments
from ponderlib.mechanisms.decoding import beam_search, greedy_decode
from ponderlib.mechanisms.pointer import PointerNetwork
from ponderlib.tasks.convex_hull import HullMetrics, train_hull
from ponderlib.tasks.convex_hull_data import hull_order
from ponderlib.tasks.sorting import evaluate_sort, train_sort
from ponderlib.tasks.sorting_data import sort_batch

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = dict(
    hidden=8, attention_dim=8, batch_size=16, max_updates=2, eval_every=2, eval_size=16, device="cpu", progress=False
)


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


def test_beam_widths_share_the_scoring_arrays_and_count_where_the_beam_is_greedy():
    torch.manual_seed(0)
    model = PointerNetwork("pointer", hidden=8, attention_dim=8, max_positions=6)  # untrained: unsure at every step
    scores = experiments.score_beam_widths(model, (1, 3), 6, "int", "asc", 64, seed=5, device="cpu")
    assert list(scores) == [1, 3]
    batch = sort_batch(64, 6, 6, "int", "asc", generator=stream_generator(5, "scoring", "cpu"))
    assert scores[1].exact_match == evaluate_sort(model, batch).exact_match  # width 1: greedy, on the run's arrays
    assert scores[3].exact_match == evaluate_sort(model, batch, beam_width=3).exact_match
    greedy = greedy_decode(model, batch.inputs, batch.lengths).pointers
    beam, _ = beam_search(model, batch.inputs, batch.lengths, 3)
    same = sum(beam[row].tolist() == greedy[row].tolist() for row in range(64))  # row by row, by hand
    assert scores[1].greedy_agreement == 1.0 and scores[3].greedy_agreement == same / 64
    assert same < 64  # an unsure network: the beam finds other, likelier orders on some arrays
    assert scores == experiments.score_beam_widths(model, (1, 3), 6, "int", "asc", 64, seed=5, device="cpu")
    with pytest.raises(ValueError, match="beam_width"):
        experiments.score_beam_widths(model, (0,), 6, seed=5, device="cpu")
    with pytest.raises(ValueError, match="beam_widths"):
        experiments.score_beam_widths(model, (), 6, seed=5, device="cpu")


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
    right = experiments.HullExample(
        square, [1, 2, 3, 4], [1, 2, 3, 4], torch.tensor([1, 2, 3, 4, 5]), torch.zeros(5, 6)
    )
    rotated = experiments.HullExample(
        square, [2, 3, 4, 1], [1, 2, 3, 4], torch.tensor([2, 3, 4, 1, 5]), torch.zeros(5, 6)
    )
    assert right.exact and not rotated.exact and right.length == 5


def test_metric_by_points_one_value_per_run_by_hand(hull_run):
    runs = [
        SimpleNamespace(by_points={5: HullMetrics(0.5, 0.9, 0.1, 0.6), 10: HullMetrics(0.25, 0.95, 0.0, 0.25)}),
        SimpleNamespace(by_points={5: HullMetrics(0.75, 0.8, 0.2, 0.75), 10: HullMetrics(0.5, 1.0, 0.05, 0.55)}),
    ]
    assert experiments.metric_by_points(runs, "accuracy") == {5: [0.5, 0.75], 10: [0.25, 0.5]}
    assert experiments.metric_by_points(runs, "polygon_accuracy") == {5: [0.6, 0.75], 10: [0.25, 0.55]}
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
    assert Curve.of(history).rising_at_end("accuracy")  # 0.4 > 0.2, the value at index 4 // 2
    assert not Curve.of(history).rising_at_end("area_coverage")  # 0.86 < 0.88
    with pytest.raises(ValueError, match="metric"):
        Curve.of(history).rising_at_end("exact_match")


def test_updates_to_reach_is_the_first_evaluation_at_the_threshold_live_or_from_evidence():
    history = History()
    for update, exact in zip((500, 1000, 1500, 2000), (0.5, 0.95, 0.90, 0.99)):
        history.record(update, 0.0, 1.0, {"exact_match": exact})
    assert Curve.of(history).reach("exact_match", 0.95) == 1000  # reached at 0.95 exactly, not only above
    assert Curve.of(history).reach("exact_match", 0.96) == 2000  # the dip at 1,500 does not count
    assert Curve.of(history).reach("exact_match", 0.999) is None  # never
    summary_curve = {"update": [500, 1000, 1500, 2000], "exact_match": [0.5, 0.95, 0.90, 0.99], "loss": [1, 1, 1, 1]}
    assert Curve.of(summary_curve).reach("exact_match", 0.96) == 2000
    with pytest.raises(ValueError, match="metric must be one the curve recorded .'exact_match', 'loss'.; got 'accuracy'"):
        Curve.of(summary_curve).reach("accuracy", 0.9)
    with pytest.raises(ValueError, match="metric"):
        Curve.of(summary_curve).reach("update", 0.9)
    with pytest.raises(ValueError, match="4 updates but 3 values"):
        Curve.of({**summary_curve, "exact_match": [0.1, 0.2, 0.3]}).reach("exact_match", 0.9)


def test_gain_since_is_the_last_value_minus_the_one_at_that_update_live_or_from_evidence():
    history = History()
    for update, accuracy in zip((1000, 2000, 3000, 4000), (0.5, 0.8, 0.85, 0.84)):
        history.record(update, 0.0, 1.0, {"accuracy": accuracy})
    assert Curve.of(history).gain_since("accuracy", 2000) == pytest.approx(0.04)
    assert Curve.of(history).gain_since("accuracy", 3000) == pytest.approx(-0.01)  # a dip at the end: negative
    assert Curve.of(history).gain_since("accuracy", 4000) == 0.0  # the last evaluation against itself
    curve = {"update": [1000, 2000, 3000, 4000], "accuracy": [0.5, 0.8, 0.85, 0.84]}
    assert Curve.of(curve).gain_since("accuracy", 1000) == pytest.approx(0.34)
    with pytest.raises(ValueError, match="update must be one the curve evaluated .1000 to 4000.; got 2500"):
        Curve.of(curve).gain_since("accuracy", 2500)
    with pytest.raises(ValueError, match="metric must be one the curve recorded"):
        Curve.of(curve).gain_since("exact_match", 2000)


def rising(values):
    return Curve.of({"update": list(range(len(values))), "accuracy": list(values)}).rising_at_end("accuracy")


def test_rising_at_end_by_hand():
    assert rising([0.1, 0.3, 0.2, 0.4])  # 0.4 > values[2] = 0.2
    assert not rising([0.1, 0.5, 0.5])  # 0.5 is not above values[1] = 0.5
    assert not rising([0.7])  # one evaluation: its own middle
    assert rising((0.1, 0.2, 0.3, 0.35, 0.4, 0.45))  # values[3] = 0.35
    with pytest.raises(ValueError, match="metric must be one the curve recorded"):
        rising([])


def test_still_rising_reads_a_summarys_curve_as_a_history(hull_run):
    curve = {"update": [50, 100, 150, 200], "loss": [1.0, 0.8, 0.7, 0.6], "accuracy": [0.1, 0.3, 0.2, 0.4]}
    assert Curve.of(curve).rising_at_end("accuracy") and not Curve.of(curve).rising_at_end("loss")
    with pytest.raises(ValueError, match="metric"):
        Curve.of(curve).rising_at_end("area_coverage")
    summary = hull_run.summary()  # what the sweep writes as evidence: the same verdict as the live history
    for metric in ("accuracy", "area_coverage"):
        assert summary.curve.rising_at_end(metric) == Curve.of(hull_run.history).rising_at_end(metric)


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


def test_hull_training_evidence_figure_spans_the_seeds_values():
    import matplotlib.pyplot as plt

    from ponderlib.figures.pointer import hull_training_evidence_figure

    def summary(seed, accuracy, area):
        return {"seed": seed, "curve": {"update": [1000, 2000], "accuracy": accuracy, "area_coverage": area}}

    fig = hull_training_evidence_figure([summary(0, [0.7, 0.9], [0.99, 0.999]), summary(1, [0.8, 0.9], [0.995, 1.0])], "e")
    ax_acc, ax_area = fig.axes
    assert ax_acc.get_ylim() == pytest.approx((0.7 - 0.03 - 0.002, 1.0 + 0.015 + 0.002))  # a tenth of 0.3 below
    assert ax_area.get_ylim() == pytest.approx((0.99 - 0.001 - 0.002, 1.0 + 0.0005 + 0.002))
    fig.canvas.draw()
    assert "1,500" in [t.get_text() for t in ax_acc.get_xticklabels()]  # thousands set apart
    plt.close("all")


def test_decoder_curves_from_summaries_draw_each_seed_and_their_mean():
    import matplotlib.pyplot as plt

    from ponderlib.figures.pointer import decoder_curves_evidence_figure

    def summary(exact, loss):
        return {"curve": {"update": [50, 100], "exact_match": exact, "loss": loss}}

    runs = {"seq2seq": [summary([0.1, 0.3], [1.0, 0.5]), summary([0.3, 0.5], [0.8, 0.3])],
            "pointer": [summary([0.9, 1.0], [0.1, 0.01])]}
    fig = decoder_curves_evidence_figure(runs, "two decoders")
    ax_acc, ax_loss = fig.axes
    assert len(ax_acc.lines) == 2 + 1 + 1 + 1  # seq2seq: two seeds and their mean; the pointer: one and its mean
    assert ax_acc.lines[2].get_ydata() == pytest.approx([0.2, 0.4]) and ax_loss.lines[2].get_ydata() == pytest.approx([0.9, 0.4])
    assert ax_acc.lines[2].get_label() == "seq2seq: mean of 2 seeds" and fig.legends
    assert ax_acc.get_ylim() == pytest.approx((0.05, 1.02))  # from just below the lowest seed (0.1), not from 0
    assert ax_acc.get_xscale() == "linear"
    logged = decoder_curves_evidence_figure(runs, "log", log_updates=True)
    assert [ax.get_xscale() for ax in logged.axes] == ["log", "log"]
    assert [tick.get_text() for tick in logged.axes[0].get_xticklabels()] == ["100"]  # the ticks in 50..100
    late = summary([0.1, 0.2], [1.0, 0.5])
    late["curve"]["update"] = [60, 110]
    with pytest.raises(ValueError, match="every seq2seq curve must be evaluated at the same training updates"):
        decoder_curves_evidence_figure({"seq2seq": [runs["seq2seq"][0], late]}, "mismatch")
    with pytest.raises(ValueError, match="runs must map each decoder"):
        decoder_curves_evidence_figure({"pointer": []}, "none")
    plt.close("all")


def test_examples_leave_the_model_in_its_mode(sort_run):
    sort_run.model.train()
    experiments.sort_examples(sort_run, 1, 5, 5)
    assert sort_run.model.training
    sort_run.model.eval()
    assert np.isfinite(experiments.sort_examples(sort_run, 1, 5, 5)[0].attention.numpy()).all()


def _texts_and_size(fig):
    from matplotlib.text import Text

    from ponderlib.figures import style

    width = style.shown_width(fig)
    small = [t.get_text() for t in fig.findobj(Text) if t.get_text() and t.get_fontsize() < style.FONT_SIZE]
    return width, small


def test_every_figure_is_at_most_the_column_wide_with_legible_text_and_legends_off_the_data(sort_run, hull_run):
    import matplotlib.pyplot as plt

    from ponderlib.figures import pointer as figures
    from ponderlib.figures import style
    from ponderlib.presentation.pointer import PAPER_HULLS

    example = experiments.sort_examples(sort_run, 1, 12, 12)[0]
    hull = experiments.hull_examples(hull_run, 1, 8, 8)[0]
    summary = {"seed": 0, "exact_match_by_length": {"5": 1.0, "10": 0.9, "20": 0.5}}
    drawn = {
        "diagram": figures.pointer_diagram_figure([4, 1, 3, 1], [1, 3, 2, 0], "diagram"),
        "attention": figures.attention_map_figure(example.attention, example.inputs, example.pointers, "map"),
        "curves": figures.training_curves_figure({"seq2seq": sort_run.history, "pointer": sort_run.history}, "c"),
        "length": figures.length_evidence_figure([summary, {**summary, "seed": 1}], 10, "length"),
        "hull": figures.hull_figure(hull.points, hull.predicted, hull.true, "hull"),
        "hull attention": figures.hull_attention_figure(hull.attention, hull.pointers, hull.length, "p"),
        "hull training": figures.hull_training_figure({2: hull_run.history}, "training"),
        "hull evidence": figures.hull_training_evidence_figure([hull_run.summary()], "evidence"),
        "hull by points": figures.hull_by_points_figure(
            [hull_run.summary(), {**hull_run.summary(), "seed": 3}], 8, "by points", PAPER_HULLS
        ),
        "decoder evidence": figures.decoder_curves_evidence_figure(
            {d: [sort_run.summary()] for d in ("seq2seq", "bahdanau", "luong", "pointer")}, "decoders"
        ),
    }
    for name, fig in drawn.items():
        width, small = _texts_and_size(fig)
        assert width <= style.SHOWN_WIDTH, (name, width)
        assert not small, (name, small)
        assert fig.dpi == style.DPI, name
        assert all(ax.get_legend() is None for ax in fig.axes), f"{name}: a legend inside the axes"
    for name in ("curves", "length", "hull", "hull training", "hull evidence", "hull by points", "decoder evidence"):
        assert drawn[name].legends, f"{name}: no legend below the panels"
    plt.close("all")


def test_seeds_are_shades_of_the_pointers_hue_and_one_seed_has_no_mean():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from ponderlib.figures import style
    from ponderlib.figures.pointer import length_evidence_figure

    summaries = [{"seed": s, "exact_match_by_length": {"5": 1.0, "6": 0.9}} for s in (3, 4, 5)]
    lines = length_evidence_figure(summaries, 5, "three").axes[0].lines
    assert [to_hex(line.get_color()) for line in lines[:3]] == style.seed_colors("pointer", 3)
    assert to_hex(lines[3].get_color()) == style.color("pointer")
    assert [line.get_label() for line in lines] == ["seed 3", "seed 4", "seed 5", "mean of 3 seeds"]
    (only,) = length_evidence_figure(summaries[:1], 5, "one").axes[0].lines  # no "mean of 1 seeds"
    assert only.get_label() == "seed 3"
    many = [{"seed": s, "exact_match_by_length": {"5": 1.0, "6": 0.9}} for s in range(20)]
    labels = [line.get_label() for line in length_evidence_figure(many, 5, "twenty").axes[0].lines]
    assert labels[0] == "20 seeds, one shade each" and labels[-1] == "mean of 20 seeds"
    assert all(label.startswith("_") for label in labels[1:-1])  # one legend entry for the twenty
    plt.close("all")


def test_example_figures_for_the_pickers(sort_run, hull_run):
    import matplotlib.pyplot as plt

    from ponderlib.figures.pointer import hull_example_figures, sort_example_figures

    sort_figures = sort_example_figures(experiments.sort_examples(sort_run, 2, 5, 5), "seed 3")
    assert list(sort_figures) == ["example 1 (n = 5)", "example 2 (n = 5)"]
    assert sort_figures["example 2 (n = 5)"].axes[0].get_title() == "seed 3, example 2 (n = 5)"
    hull = experiments.hull_examples(hull_run, 1, 7, 7)
    hull_figures = hull_example_figures(hull, 2)
    assert list(hull_figures) == ["set 1 (n = 7), hull", "set 1 (n = 7), pointer distributions"]
    outcome = "exact" if hull[0].exact else "not exact"
    assert hull_figures["set 1 (n = 7), hull"].axes[0].get_title() == f"set 1, 7 points: {outcome} (seed 2)"
    plt.close("all")


# ponderlib.presentation.pointer: the chapter's tables and sentences, worked by hand.


def _is_table(markdown: str, columns: int, rows: int) -> bool:
    lines = markdown.split("\n")
    rule = lines[1].strip("|").split("|")
    return (
        len(lines) == rows + 2
        and len(rule) == columns
        and all(set(cell) <= set(":-") and "---" in cell for cell in rule)
        and all(line.count("|") == columns + 1 for line in lines)
    )


def test_per_seed_table_by_hand():
    from ponderlib.presentation.pointer import per_seed_table

    table = per_seed_table([3, 7], {"length 10": [0.99, 0.97], "length 20": [0.95, 0.9]})
    assert table.split("\n") == [
        "| seed | length 10 | length 20 |",
        "|---:|---:|---:|",
        "| 3 | 0.990 | 0.950 |",
        "| 7 | 0.970 | 0.900 |",
        "| mean | 0.980 | 0.925 |",
    ]
    assert per_seed_table([0], {"a": [0.12345]}, digits=4).endswith("| mean | 0.1235 |")
    with pytest.raises(ValueError, match="column 'a' has 1 values, one per seed \\(2\\) expected"):
        per_seed_table([0, 1], {"a": [0.5]})
    with pytest.raises(ValueError, match="at least one entry"):
        per_seed_table([], {})


def test_sort_length_table_by_hand():
    from ponderlib.presentation.pointer import sort_length_table

    by_length = {0: {5: 1.0, 10: 0.99, 20: 0.95}, 1: {5: 0.8, 10: 0.97, 20: 0.93}}
    table = sort_length_table(by_length, lengths=(5, 20))
    assert table == (
        "| length | seed 0 | seed 1 | mean |\n|---:|---:|---:|---:|\n| 5 | 1.000 | 0.800 | 0.900 |\n"
        "| 20 | 0.950 | 0.930 | 0.940 |"
    )
    assert _is_table(table, 4, 2)
    with pytest.raises(ValueError, match="by_length"):
        sort_length_table({})


def test_decoder_table_by_hand():
    from ponderlib.presentation.pointer import decoder_table

    def run(exact, elements):
        return SimpleNamespace(test=SimpleNamespace(exact_match=exact, element_accuracy=elements))

    comparison = {"seq2seq": {0: run(0.3, 0.7), 1: run(0.5, 0.8)}, "pointer": {0: run(1.0, 1.0), 1: run(0.9, 0.98)}}
    table = decoder_table(comparison)
    assert table.split("\n") == [
        "| decoder | exact match, seed 0, seed 1 | mean ± half-range | element accuracy, mean |",
        "|:---|---:|---:|---:|",
        "| seq2seq | 0.300, 0.500 | 0.400 ± 0.100 | 0.750 |",
        "| pointer network | 1.000, 0.900 | 0.950 ± 0.050 | 0.990 |",
    ]
    with pytest.raises(ValueError, match="comparison"):
        decoder_table({})


def test_converged_decoder_table_by_hand():
    from ponderlib.presentation.pointer import converged_decoder_table

    def summary(seed, exact, curve):
        return {"seed": seed, "exact_match": exact, "curve": {"update": [500, 1000, 1500], "exact_match": curve}}

    runs = {
        "seq2seq": [summary(0, 0.99, [0.5, 0.96, 0.99]), summary(1, 0.97, [0.4, 0.8, 0.95])],
        "pointer": [summary(0, 1.0, [0.99, 1.0, 1.0]), summary(1, 1.0, [0.97, 0.99, 1.0])],
    }
    assert converged_decoder_table(runs).split("\n") == [
        "| decoder | exact match at the end, seed 0, seed 1 | mean | first at 95% held out (updates), per seed "
        "| first at 99% held out (updates), per seed |",
        "|:---|---:|---:|---:|---:|",
        "| seq2seq | 0.990, 0.970 | 0.980 | 1,000 / 1,500 | 1,500 / never |",
        "| pointer network | 1.000, 1.000 | 1.000 | 500 / 500 | 500 / 1,000 |",
    ]
    with pytest.raises(ValueError, match="seeds \\[0, 1\\] in that order; pointer holds others"):
        converged_decoder_table({"seq2seq": runs["seq2seq"], "pointer": runs["pointer"][::-1]})
    with pytest.raises(ValueError, match="thresholds must be fractions in \\(0, 1\\]"):
        converged_decoder_table(runs, thresholds=(95,))
    with pytest.raises(ValueError, match="runs must hold at least one entry|must hold at least one run"):
        converged_decoder_table({"pointer": []})


HULLS = {
    "accuracy": {5: [0.7, 0.6], 10: [0.45, 0.4], 20: [0.1, 0.2]},
    "area_coverage": {5: [0.9, 1.0], 10: [0.98, 0.99], 20: [0.95, 0.97]},
    "invalid": {5: [0.0, 0.1], 10: [0.02, 0.02], 20: [0.05, 0.07]},
}


def test_hull_table_by_hand():
    from ponderlib.presentation.pointer import hull_table

    table = hull_table(HULLS, (5, 20))
    assert table.split("\n")[2:] == [
        "| 5 | 0.700, 0.600 | 0.650 | 0.950 | 0.050 |",
        "| 20 (longer than trained) | 0.100, 0.200 | 0.150 | 0.960 | 0.060 |",
    ]
    assert _is_table(table, 5, 2)
    with pytest.raises(ValueError, match="invalid missing"):
        hull_table({"accuracy": {}, "area_coverage": {}}, (5,))


NEAR_PAPER = HULLS | {"polygon_accuracy": {5: [0.95, 0.91], 10: [0.87, 0.84], 20: [0.5, 0.6]}}


def test_hull_polygon_table_by_hand():
    from ponderlib.presentation.pointer import hull_polygon_table

    table = hull_polygon_table(NEAR_PAPER, (5, 20))
    assert _is_table(table, 7, 2)
    assert table.split("\n")[2:] == [
        "| 5 | 0.950, 0.910 | 0.930 | 0.650 | 0.900, 1.000 | 0.950 | 0.050 |",
        "| 20 (longer than trained) | 0.500, 0.600 | 0.550 | 0.150 | 0.950, 0.970 | 0.960 | 0.060 |",
    ]
    with pytest.raises(ValueError, match="must hold polygon_accuracy, accuracy, area_coverage, invalid; polygon_accuracy missing"):
        hull_polygon_table(HULLS, (5,))


def test_hull_by_points_figure_draws_seeds_their_mean_and_the_published_marks():
    import matplotlib.pyplot as plt

    from ponderlib.figures import style
    from ponderlib.figures.pointer import hull_by_points_figure
    from ponderlib.presentation.pointer import PAPER_HULLS

    def summary(seed, polygon, area):
        return {"seed": seed, "polygon_accuracy": dict(zip(("5", "10", "20"), polygon)),
                "area_coverage": dict(zip(("5", "10", "20"), area))}

    summaries = [summary(0, (0.95, 0.85, 0.5), (0.99, 0.995, 0.98)), summary(1, (0.91, 0.87, 0.6), (1.0, 0.99, 0.97))]
    fig = hull_by_points_figure(summaries, 10, "hulls", PAPER_HULLS)
    ax_acc, ax_area = fig.axes
    assert [line.get_label() for line in ax_acc.lines] == ["seed 0", "seed 1", "mean of 2 seeds", *PAPER_HULLS]
    assert list(ax_acc.lines[0].get_xdata()) == [5, 10, 20] and ax_acc.lines[2].get_ydata() == pytest.approx([0.93, 0.86, 0.55])
    assert ax_area.lines[2].get_ydata() == pytest.approx([0.995, 0.9925, 0.975])
    assert list(ax_acc.lines[3].get_ydata()) == [0.92, 0.87]
    legend = [text.get_text() for drawn in fig.legends for text in drawn.get_texts()]
    assert all(source in legend for source in PAPER_HULLS)  # every published mark is named by its source
    assert ax_acc.get_ylim()[0] <= 0.5 and ax_acc.get_ylim()[1] > 0.95  # every value shown
    assert ax_area.get_ylim() == pytest.approx((0.97 - 0.003 - 0.002, 1.0 + 0.0015 + 0.002))  # the areas' span, 0.97 to 1
    assert ax_acc.texts[0].get_text() == "more than trained"
    assert style.shown_width(fig) <= style.SHOWN_WIDTH and fig.legends
    assert len(hull_by_points_figure(summaries, 10, "plain").axes[0].lines) == 3  # nothing published marked
    with pytest.raises(ValueError, match="summaries"):
        hull_by_points_figure([], 10, "none")
    plt.close("all")
