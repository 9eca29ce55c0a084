"""Tests of what chapter 4 adds to ponderlib: ponderlib.experiments.transformer, ChainsBatch.lengths,
ChainsEvaluation.at_depths, the chapter's tables (ponderlib.presentation.transformer), the lesson's live
budget and its figures' layout (hand-made evaluations and evidence, and tiny, fast runs)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import matplotlib
import pytest
import torch

from ponderlib.core.seeds import stream_generator
from ponderlib.experiments import transformer as experiments
from ponderlib.presentation import transformer as presentation
from ponderlib.sweep import PRESETS
from ponderlib.sweep.evidence import Evidence
from ponderlib.tasks.chains import (
    ChainsConfig,
    ChainsEvaluation,
    build_chains_model,
    evaluate_chains,
    evaluation_batch,
    score_chains,
    train_chains,
)
from ponderlib.tasks.chains_data import ChainsBatch, chains_batch

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = dict(
    d_model=8,
    heads=2,
    d_transition=8,
    max_ponder_steps=3,
    batch_size=8,
    max_updates=2,
    eval_every=2,
    eval_size=16,
    test_size=16,
    test_max_len=14,
    test_max_depth=6,
    device="cpu",
    progress=False,
)


@pytest.fixture(scope="module")
def tiny_runs():
    return {
        method: [train_chains(ChainsConfig(**TINY, method=method, seed=seed)) for seed in (0, 1)]
        for method in ("act", "pondernet")
    }


def batch_of_lengths(lengths: list[int], width: int = 10) -> ChainsBatch:
    """A batch whose only meaningful field is its padding (programs of the given lengths)."""
    padding_mask = torch.arange(width).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
    zeros = torch.zeros(len(lengths), width, dtype=torch.long)
    return ChainsBatch(zeros, zeros, zeros.bool(), zeros, zeros, padding_mask)


def evaluation(correct, ponder_steps, depth, padding_mask) -> ChainsEvaluation:
    correct, padding_mask = torch.tensor(correct), torch.tensor(padding_mask)
    return ChainsEvaluation(
        accuracy=(correct & ~padding_mask).sum().item() / (~padding_mask).sum().item(),
        correct=correct & ~padding_mask,
        ponder_steps=torch.tensor(ponder_steps),
        depth=torch.tensor(depth),
        depth_correlation=float("nan"),
        attention=torch.zeros(2, 4, 4),
        padding_mask=padding_mask,
    )


# Two programs of 4 and 2 positions (the second padded): depths 0, 1, 5, 6 and 5, 2.
HAND = evaluation(
    correct=[[True, True, False, True], [True, False, True, True]],
    ponder_steps=[[1, 2, 4, 6], [5, 3, 0, 0]],
    depth=[[0, 1, 5, 6], [5, 2, 0, 0]],
    padding_mask=[[False, False, False, False], [False, False, True, True]],
)


def test_batch_lengths_count_the_real_positions():
    assert batch_of_lengths([3, 8, 10]).lengths.tolist() == [3, 8, 10]
    drawn = chains_batch(16, 4, 9, 3, n_names=12, generator=stream_generator(0, "data", "cpu"))
    assert torch.equal(drawn.lengths, (~drawn.padding_mask).sum(dim=1))
    assert drawn.lengths.min() >= 4 and drawn.lengths.max() <= 9


def test_at_depths_groups_the_deep_positions_by_hand():
    # depth >= 5: three real positions (5, 6 in program 1; 5 in program 2), right 2 of 3, steps 4, 6, 5
    accuracy, steps, positions = HAND.at_depths(5)
    assert positions == 3 and accuracy == pytest.approx(2 / 3) and steps == pytest.approx(5.0)
    assert HAND.at_depths(1, 2) == (0.5, 2.5, 2)  # depths 1 (right, 2 steps) and 2 (wrong, 3 steps)
    assert HAND.at_depths(0) == (pytest.approx(4 / 6), 3.5, 6)  # every real position: 4 of 6 right, 21 steps
    assert HAND.at_depths(5, 5)[2] == 2
    nothing = HAND.at_depths(7)
    assert math.isnan(nothing[0]) and math.isnan(nothing[1]) and nothing[2] == 0
    with pytest.raises(ValueError, match="maximum"):
        HAND.at_depths(5, 4)
    with pytest.raises(ValueError, match="minimum"):
        HAND.at_depths(-1)


def test_mean_steps_by_depth_weighs_each_evaluation_the_same():
    other = evaluation(
        correct=[[True, True, True, True], [True, True, True, True]],
        ponder_steps=[[3, 4, 6, 6], [2, 2, 0, 0]],
        depth=[[0, 1, 5, 1], [0, 0, 0, 0]],
        padding_mask=[[False, False, False, False], [False, False, True, True]],
    )
    # HAND: depth 0 -> 1, 1 -> 2, 5 -> (4 + 5) / 2; other: 0 -> (3 + 2 + 2) / 3, 1 -> (4 + 6) / 2, 5 -> 6;
    # depths 2 and 6 are in HAND only
    table = experiments.mean_steps_by_depth([HAND, other])
    assert list(table) == [0, 1, 5]
    assert (
        table[0] == pytest.approx((1 + 7 / 3) / 2)
        and table[1] == pytest.approx(3.5)
        and table[5] == pytest.approx(5.25)
    )
    assert experiments.mean_steps_by_depth([HAND]) == {d: steps for d, (_, steps, _) in HAND.by_depth().items()}
    with pytest.raises(ValueError, match="evaluations"):
        experiments.mean_steps_by_depth([])


def test_long_programs_are_the_first_long_enough():
    batch = batch_of_lengths([3, 8, 9, 7, 10, 8])
    assert experiments.long_programs(batch, 8, 2) == [1, 2]
    assert experiments.long_programs(batch, 8, 10) == [1, 2, 4, 5]
    assert experiments.long_programs(batch, 11, 3) == []
    with pytest.raises(ValueError, match="count"):
        experiments.long_programs(batch, 8, 0)


def test_the_fixed_depth_applies_the_block_fixed_depth_times():
    fixed = ChainsConfig(**TINY, method="fixed", fixed_depth=2)
    act = ChainsConfig(**TINY, method="act", fixed_depth=2)
    assert (fixed.depth, act.depth, ChainsConfig(**TINY, method="fixed").depth) == (2, 3, 3)
    assert (
        build_chains_model(fixed).encoder.max_ponder_steps == 2
        and build_chains_model(act).encoder.max_ponder_steps == 3
    )
    with pytest.raises(ValueError, match="fixed_depth"):
        ChainsConfig(fixed_depth=0).validate()
    with pytest.raises(ValueError, match="test_max_len"):
        ChainsConfig(max_len=10, n_names=24, test_max_len=25).validate()
    with pytest.raises(ValueError, match="test_max_depth"):
        ChainsConfig(max_depth=4, test_max_depth=3).validate()


def test_a_run_is_scored_on_its_three_test_sets(tiny_runs):
    run = tiny_runs["act"][0]
    assert set(run.tests) == {"trained", "longer", "deeper"}
    deep = score_chains(run.model, run.config, 16, 14, 6, "cpu")
    assert torch.equal(run.tests["deeper"].ponder_steps, deep.ponder_steps)
    summary = run.summary()
    assert summary["test_accuracy"] == round(run.tests["trained"].accuracy, 4)
    assert summary["deeper_accuracy"] == round(deep.accuracy, 4)
    accuracy, steps, positions = deep.at_depths(TINY.get("max_depth", 4) + 1)
    assert positions > 0 and summary["unseen_depth_accuracy"] == round(accuracy, 4)
    assert set(summary["ponder_steps_by_depth"]) == {str(d) for d in run.tests["trained"].by_depth()}


def test_score_chains_scores_each_run_on_its_seeds_test_programs(tiny_runs):
    for method, runs in tiny_runs.items():
        evaluations = [score_chains(run.model, run.config, 16) for run in runs]
        for run, result in zip(runs, evaluations):
            programs = evaluation_batch(run.config, 16, device="cpu")
            expected = evaluate_chains(
                run.model, programs, run.config.halting_rule, run.config.generator("sampling", "cpu")
            )
            assert result.accuracy == expected.accuracy, method
            assert torch.equal(result.ponder_steps, expected.ponder_steps) and torch.equal(result.depth, programs.depth)
        again = [
            score_chains(run.model, run.config, 16) for run in runs
        ]  # sampled halting is repeatable: a fresh generator each call
        assert all(torch.equal(a.ponder_steps, b.ponder_steps) for a, b in zip(evaluations, again))
    act, pondernet = tiny_runs["act"][0], tiny_runs["pondernet"][0]
    same = [score_chains(run.model, run.config, 16).depth for run in (act, pondernet)]
    assert torch.equal(*same)  # two methods of one seed see the same programs


def test_score_chains_on_longer_and_deeper_programs(tiny_runs):
    run = tiny_runs["act"][0]
    deep = score_chains(run.model, run.config, 16, max_len=14, max_depth=6)
    assert deep.padding_mask.shape == (16, 14) and deep.depth.max() <= 6
    programs = evaluation_batch(tiny_runs["act"][0].config, 16, 14, 6, "cpu")
    assert torch.equal(deep.depth, programs.depth)
    run = tiny_runs["act"][0]
    assert (
        evaluate_chains(run.model, programs, run.config.halting_rule, run.config.generator("sampling", "cpu")).accuracy
        == deep.accuracy
    )


def test_depth_figures_from_evaluations_and_from_summaries_draw_the_same_curves(tiny_runs):
    import matplotlib.pyplot as plt

    from ponderlib.figures.transformer import plot_by_depth, plot_depth_evidence

    evaluations = {method: [run.tests["trained"] for run in runs] for method, runs in tiny_runs.items()}
    summaries = {method: [run.summary() for run in runs] for method, runs in tiny_runs.items()}
    live = plot_by_depth(evaluations, "live")
    evidence = plot_depth_evidence(summaries, "evidence")
    for left, right in zip(live.axes, evidence.axes):
        for a, b in zip(left.lines, right.lines):
            assert list(a.get_xdata()) == list(b.get_xdata())
            assert a.get_ydata() == pytest.approx(b.get_ydata(), abs=1e-4)  # summaries round to 4 decimals
    plt.close("all")


# --- What the chapter shows: ponderlib.presentation.transformer (tables) and the figures' layout.


def scored(accuracy, ponder_steps, depth, correlation, correct=None) -> ChainsEvaluation:
    """An evaluation of one program (no padding) with the given numbers."""
    ponder_steps, depth = torch.tensor([ponder_steps]), torch.tensor([depth])
    correct = torch.tensor([correct]) if correct is not None else torch.ones_like(depth, dtype=torch.bool)
    return ChainsEvaluation(
        accuracy=accuracy,
        correct=correct,
        ponder_steps=ponder_steps,
        depth=depth,
        depth_correlation=correlation,
        attention=torch.zeros(1, depth.shape[1], depth.shape[1]),
        padding_mask=torch.zeros_like(depth, dtype=torch.bool),
    )


def fake_run(seed, trained, longer=None, deeper=None):
    """A run as train_chains returns it, as far as the presentation reads it (the live setting's config)."""
    config = SimpleNamespace(seed=seed, max_len=10, max_depth=4, test_max_len=20, test_max_depth=7, fixed_depth=3)
    return SimpleNamespace(
        config=config, tests={"trained": trained, "longer": longer or trained, "deeper": deeper or trained}
    )


# Seeds 0 and 1 of each method. Programs: depths 0, 1, 2 (one position each); the deeper test set adds 5 and 6.
LIVE_RUNS = {
    "act": [
        fake_run(
            0,
            scored(0.95, [2, 3, 4], [0, 1, 2], 0.81),
            scored(0.90, [2, 3, 4], [0, 1, 2], 0.7),
            scored(0.80, [2, 3, 4, 5, 6], [0, 1, 2, 5, 6], 0.9, [True, True, True, False, True]),
        ),
        fake_run(
            1,
            scored(0.99, [1, 1, 3], [0, 1, 2], 0.55),
            scored(0.93, [1, 1, 3], [0, 1, 2], 0.5),
            scored(0.85, [1, 1, 3, 2, 2], [0, 1, 2, 5, 6], 0.6, [True, True, True, False, False]),
        ),
    ],
    "fixed": [
        fake_run(0, scored(0.97, [3, 3, 3], [0, 1, 2], float("nan")), scored(0.91, [3, 3, 3], [0, 1, 2], float("nan"))),
        fake_run(1, scored(0.98, [3, 3, 3], [0, 1, 2], float("nan")), scored(0.90, [3, 3, 3], [0, 1, 2], float("nan"))),
    ],
    "pondernet": [
        fake_run(0, scored(0.96, [2, 4, 3], [0, 1, 2], 0.45), scored(0.92, [2, 4, 3], [0, 1, 2], 0.4)),
        fake_run(1, scored(0.94, [3, 3, 4], [0, 1, 2], 0.35), scored(0.89, [3, 3, 4], [0, 1, 2], 0.3)),
    ],
}


def test_spread_by_hand():
    assert presentation.spread([0.5, 0.25, 1.0]) == "0.25 to 1.00 (mean 0.58)"
    assert presentation.spread([0.3]) == "0.30 to 0.30 (mean 0.30)"
    with pytest.raises(ValueError, match="values"):
        presentation.spread([])


def table_rows(markdown: str) -> list[list[str]]:
    """The cells of a Markdown table, header first, the rule left out; every line must be a table row."""
    lines = markdown.splitlines()
    assert all(line.startswith("| ") and line.endswith(" |") for line in [lines[0], *lines[2:]]), markdown
    assert set(lines[1]) <= set("|:-") and lines[1].count("|") == lines[0].count("|") - lines[0].count("\\|")
    return [[cell.strip() for cell in line[2:-2].split(" | ")] for line in [lines[0], *lines[2:]]]


def test_live_table_by_hand():
    rows = table_rows(presentation.live_table(LIVE_RUNS))
    assert rows[0] == ["method", "seed", "accuracy", "ponder steps", "r(N, d)", "r(N, d) within position"]
    # ACT seed 0: steps (2 + 3 + 4) / 3 = 3; one program, so each position is alone at its index: no
    # variation within a position, r within it undefined
    assert rows[1] == ["ACT", "0", "0.950", "3.00", "0.81", "–"]
    assert rows[2] == ["ACT", "1", "0.990", "1.67", "0.55", "–"]
    assert rows[3] == ["fixed depth", "0", "0.970", "3.00", "–", "–"]  # constant steps: r undefined
    assert [row[0] for row in rows[5:]] == ["PonderNet", "PonderNet"] and len(rows) == 7


def summary(seed, method, accuracy, correlation, steps_by_depth, longer, unseen_accuracy, unseen_steps, **more):
    return {
        "seed": seed,
        "method": method,
        "test_accuracy": accuracy,
        "test_depth_correlation": correlation,
        "accuracy_by_depth": {str(d): 1.0 if accuracy >= 0.95 else 0.5 for d in range(5)},
        "ponder_steps_by_depth": {str(d): s for d, s in enumerate(steps_by_depth)},
        "test_ponder_steps": sum(steps_by_depth) / len(steps_by_depth),
        "longer_accuracy": longer,
        "unseen_depth_accuracy": unseen_accuracy,
        "unseen_depth_ponder_steps": unseen_steps,
        "updates": 800,
        "seconds": 30.0,
        "device_name": "a CPU",
        "torch_threads": 1,
        "torch_version": "2",
        "ponderlib_version": "0.3.0",
        **more,
    }


def hand_evidence(name: str = "ut-chains-live", summaries=None) -> Evidence:
    """Runs of a chains preset at the points ``(method, halting_bias_init)``, numbers chosen by hand."""
    preset = PRESETS[name]
    config = {"max_len": 10, "max_depth": 4, "test_max_len": 20, "test_max_depth": 7}
    summaries = summaries or [
        summary(0, ("act", 1.0), 0.86, 0.1, [1, 1, 1, 1, 1], 0.80, 0.50, 1.0),
        summary(0, ("act", -3.0), 0.99, 0.9, [2, 2, 3, 4, 5], 0.95, 0.60, 5.0),
        summary(0, ("fixed", 1.0), 0.97, None, [3] * 5, 0.85, 0.49, 3.0),
        summary(1, ("act", 1.0), 0.99, 0.8, [2, 2, 3, 4, 5], 0.92, 0.60, 5.0),
        summary(1, ("act", -3.0), 0.98, 0.85, [2, 2, 3, 4, 4], 0.93, 0.55, 4.5),
        summary(1, ("fixed", 1.0), 0.95, None, [3] * 5, 0.90, 0.51, 3.0),
    ]
    records = [
        {
            "point": {"method": s["method"][0], "halting_bias_init": s["method"][1]},
            "seed": s["seed"],
            "config": config,
            "summary": {**s, "method": s["method"][0]},
        }
        for s in summaries
    ]
    return Evidence(name, preset, records)


def test_distributions_pooled_by_hand():
    d = experiments.StepsDistribution((0, 3, 1))  # steps 2, 2, 2, 3
    assert d.positions == 4 and d.shares == (0.0, 0.75, 0.25)
    assert d.mean == pytest.approx(2.25) and d.sd == pytest.approx(math.sqrt(0.1875))
    runs = [
        {"ponder_steps_histogram_by_depth": {"0": [1, 2], "1": [0, 1, 1]}},
        {"ponder_steps_histogram_by_depth": {"0": [0, 1, 0, 1]}},
    ]
    pooled = experiments.pooled_steps(runs)
    assert pooled == {0: experiments.StepsDistribution((1, 3, 0, 1)), 1: experiments.StepsDistribution((0, 1, 1))}
    with pytest.raises(ValueError, match="summaries"):
        experiments.pooled_steps([])
    rows = table_rows(presentation.distribution_table({"act": pooled, "pondernet": pooled}))
    # depth 0: steps 1, 2, 2, 2, 4 -> mean 2.2, sd sqrt((1.44 + 3 * 0.04 + 3.24) / 5) = 1.0
    assert rows[0] == ["required depth", "ACT", "PonderNet"]
    assert rows[1] == ["0", "2.2 ± 1.0", "2.2 ± 1.0"] and rows[2] == ["1", "2.5 ± 0.5", "2.5 ± 0.5"]


def test_correlation_table_by_hand():
    runs = [
        {"test_depth_correlation": 0.9, "test_depth_correlation_given_position": 0.8,
         "test_expected_depth_correlation": None, "test_depth_position_correlation": 0.5},
        {"test_depth_correlation": 0.7, "test_depth_correlation_given_position": 0.6,
         "test_expected_depth_correlation": None, "test_depth_position_correlation": 0.5},
    ]
    rows = table_rows(presentation.correlation_table({"ACT": runs}))
    assert rows[1] == ["ACT", "0.70 to 0.90 (mean 0.80)", "0.60 to 0.80 (mean 0.70)", "–", "0.50 to 0.50 (mean 0.50)"]


def test_accuracy_against_compute_by_hand():
    rows = experiments.accuracy_against_compute(
        [{"test_ponder_steps": 2.5, "accuracy_by_depth": {"4": 0.9}, "deeper_accuracy": 0.8}], 4
    )
    assert rows == [(2.5, 0.9, 0.8)]


def test_seed_table_by_hand():
    by_seed = {
        seed: {"act": row[("act", 1.0)], "act-deep-start": row[("act", -3.0)], "fixed": row[("fixed", 1.0)]}
        for seed, row in hand_evidence().by_seed().items()
    }
    rows = table_rows(presentation.seed_table(by_seed, 4))
    assert rows[0] == ["seed", "ACT", "ACT, deep start", "fixed depth"]
    # seed 0: ACT 0.86 (0.5 at 4 hops by hand, one step) does not learn; the deep start and the fixed depth do
    assert rows[1] == ["0", "0.860 / 0.500 / 1.00", "**0.990 / 1.000 / 3.20**", "**0.970 / 1.000 / 3.00**"]
    assert rows[2][0] == "1" and len(rows) == 3
    with pytest.raises(ValueError, match="by_seed"):
        presentation.seed_table({}, 4)


def test_setting_table_by_hand():
    runs = [
        summary(0, "act", 0.98, 0.9, [2, 2, 3, 4, 5], 0.95, 0.6, 5.0, deeper_accuracy=0.9),
        summary(1, "act", 0.90, 0.1, [1] * 5, 0.85, 0.5, 1.0, deeper_accuracy=0.7),
    ]
    rows = table_rows(presentation.setting_table({"ACT": runs}, 4))
    assert rows[0] == [
        "setting", "learn the chains", "accuracy", "accuracy at 4 hops", "accuracy, longer and deeper",
        "ponder steps per position",
    ]
    assert rows[1] == [
        "ACT", "1 of 2", "0.90 to 0.98 (mean 0.94)", "0.50 to 1.00 (mean 0.75)", "0.70 to 0.90 (mean 0.80)",
        "1.00 to 3.20 (mean 2.10)",
    ]
    with pytest.raises(ValueError, match="ACT"):
        presentation.setting_table({"ACT": []}, 4)


def test_the_lesson_trains_the_live_budget_on_every_device():
    """Issue 36, item 5: on a GPU the lesson keeps the CPU's budget (it once trained 2,000 updates there,
    and these small models are no faster on a GPU): its live runs are the presets' configs as they are."""
    import json
    import pathlib

    from ponderlib.experiments.settings import CHAPTER_4_LIVE_UPDATES

    lesson = pathlib.Path(__file__).resolve().parents[1] / "book" / "ch4_transformer.ipynb"
    cells = json.loads(lesson.read_text())["cells"]
    source = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    assert "cuda" not in source and "max_updates" not in source and "CONVERGED_UPDATES" not in source
    assert "train_chains(LIVE.config(" in source and "train_chains(TAU_LIVE.config(" in source
    for name in ("ut-chains-live", "ut-chains-tau-live"):
        preset = PRESETS[name]
        point = {field: values[0] for field, values in preset.grid.items()}
        assert preset.max_updates == CHAPTER_4_LIVE_UPDATES == preset.config(0, **point).max_updates == 800


# --- The figures: the book's width, fonts, integer depth axes and seed shades.


def _check_layout(figure, integer_axes=()):
    from ponderlib.figures import style

    figure.canvas.draw()
    assert figure.get_size_inches()[0] <= style.MAX_WIDTH + 1e-9
    assert style.shown_width(figure) <= style.SHOWN_WIDTH
    assert figure.dpi == style.DPI
    texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()]
    assert texts and min(t.get_fontsize() for t in texts) >= style.FONT_SIZE
    assert not any("mean of 1 seeds" in t.get_text() for t in texts)
    for axis in integer_axes:
        low, high = axis.get_view_interval()
        ticks = [t for t in axis.get_ticklocs() if min(low, high) <= t <= max(low, high)]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert len({round(ax.get_position().y0, 3) for ax in figure.axes}) * 2 >= len(
        figure.axes
    )  # two panels a row at most


def test_the_figures_fit_the_column_with_book_fonts_and_integer_axes(tiny_runs):
    import matplotlib.pyplot as plt

    from ponderlib.figures import transformer as figures

    schematic = figures.plot_ponder_schematic([1, 2, 3], ["c = 1", "f = c", "a = not f"], max_ponder_steps=4)
    _check_layout(schematic, [schematic.axes[0].yaxis])
    heatmap = figures.plot_ponder_heatmap(HAND, rows=2)
    _check_layout(heatmap, [heatmap.axes[0].xaxis, heatmap.axes[0].yaxis, heatmap.axes[1].xaxis])
    live = {method: [run.tests["trained"] for run in runs] for method, runs in tiny_runs.items()}
    by_depth = figures.plot_by_depth(live)
    _check_layout(by_depth, [ax.xaxis for ax in by_depth.axes])
    one_seed = figures.plot_by_depth({"act": live["act"][:1]}, title="tau = 0.01")
    _check_layout(one_seed)
    assert [t.get_text() for t in one_seed.legends[0].get_texts()] == ["ACT (one seed)"]
    run = tiny_runs["act"][0]
    programs = evaluation_batch(run.config, 16, device="cpu")
    example = figures.plot_example(run.tests["trained"], programs, 0, n_names=run.config.n_names)
    _check_layout(example, [example.axes[0].yaxis])
    plt.close("all")


def test_each_seed_is_a_shade_of_its_methods_hue(tiny_runs):
    import matplotlib.colors
    import matplotlib.pyplot as plt

    from ponderlib.figures import style
    from ponderlib.figures.transformer import plot_by_depth, seeds_label

    assert seeds_label("act", 1) == "ACT (one seed)" and seeds_label("pondernet", 3) == "PonderNet (mean of 3 seeds)"
    live = {method: [run.tests["trained"] for run in runs] for method, runs in tiny_runs.items()}
    figure = plot_by_depth(live)
    colors = [matplotlib.colors.to_hex(line.get_color()) for line in figure.axes[0].lines]
    # per method: one line per seed in its shades, then the mean in the method's colour
    assert colors == [
        *style.seed_colors("act", 2),
        style.color("act"),
        *style.seed_colors("pondernet", 2),
        style.color("pondernet"),
    ]
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        "ACT (mean of 2 seeds)",
        "PonderNet (mean of 2 seeds)",
    ]
    plt.close("all")


def test_the_evidence_figures_fit_the_column_with_book_fonts():
    import matplotlib.pyplot as plt

    from ponderlib.figures import transformer as figures

    confound = figures.plot_depth_by_position({"topological": [0.0, 0.8, 1.3], "shuffled": [1.0, 1.0, 1.1]})
    _check_layout(confound, [confound.axes[0].xaxis])
    table = {0: experiments.StepsDistribution((0, 4)), 1: experiments.StepsDistribution((0, 3, 1))}
    distribution = figures.plot_steps_distribution({"act-deep-start": table, "pondernet": table})
    _check_layout(distribution, [ax.xaxis for ax in distribution.axes] + [distribution.axes[0].yaxis])
    rows = [(2.0, 0.6, 0.5), (2.1, 0.7, 0.6)]
    compute = figures.plot_compute_accuracy({1: rows, 2: rows}, {"act": rows}, ["at 4 hops", "longer"])
    _check_layout(compute)
    curve = {"update": [100, 200], "accuracy": [0.7, 0.9], "ponder_steps": [2.0, 1.5]}
    curves = figures.plot_curves({"act": [{"curve": curve}, {"curve": curve}], "fixed": [{"curve": curve}]})
    _check_layout(curves)
    assert [t.get_text() for t in curves.legends[0].get_texts()] == ["ACT (mean of 2 seeds)", "fixed depth (one seed)"]
    plt.close("all")
