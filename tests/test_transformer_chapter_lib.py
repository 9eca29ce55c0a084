"""Tests of what chapter 4 adds to ponderlib: ponderlib.experiments.transformer, ChainsBatch.lengths and
ChainsEvaluation.at_depths (hand-made evaluations and tiny, fast runs)."""

from __future__ import annotations

import math

import pytest
import torch

from ponderlib.core.seeds import stream_generator
from ponderlib.experiments import transformer as experiments
from ponderlib.tasks.chains import (
    ChainsBatch,
    ChainsConfig,
    ChainsEvaluation,
    build_chains_model,
    chains_batch,
    evaluate_chains,
    evaluation_batch,
    score_chains,
    train_chains,
)

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = dict(d_model=8, heads=2, d_transition=8, max_ponder_steps=3, batch_size=8, max_updates=2, eval_every=2,
            eval_size=16, test_size=16, test_max_len=14, test_max_depth=6, device="cpu", progress=False)


@pytest.fixture(scope="module")
def tiny_runs():
    return {method: [train_chains(ChainsConfig(**TINY, method=method, seed=seed, fixed_depth=2)) for seed in (0, 1)]
            for method in ("act", "pondernet")}


def batch_of_lengths(lengths: list[int], width: int = 10) -> ChainsBatch:
    """A batch whose only meaningful field is its padding (programs of the given lengths)."""
    padding_mask = torch.arange(width).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
    zeros = torch.zeros(len(lengths), width, dtype=torch.long)
    return ChainsBatch(zeros, zeros, zeros.bool(), zeros, zeros, padding_mask)


def evaluation(correct, ponder_steps, depth, padding_mask) -> ChainsEvaluation:
    correct, padding_mask = torch.tensor(correct), torch.tensor(padding_mask)
    return ChainsEvaluation(
        accuracy=(correct & ~padding_mask).sum().item() / (~padding_mask).sum().item(), correct=correct & ~padding_mask,
        ponder_steps=torch.tensor(ponder_steps), depth=torch.tensor(depth), depth_correlation=float("nan"),
        attention=torch.zeros(2, 4, 4), padding_mask=padding_mask,
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
    assert table[0] == pytest.approx((1 + 7 / 3) / 2) and table[1] == pytest.approx(3.5) and table[5] == pytest.approx(5.25)
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
    assert build_chains_model(fixed).encoder.max_ponder_steps == 2 and build_chains_model(act).encoder.max_ponder_steps == 3
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
            expected = evaluate_chains(run.model, programs, run.config.halting_rule, run.config.generator("sampling", "cpu"))
            assert result.accuracy == expected.accuracy, method
            assert torch.equal(result.ponder_steps, expected.ponder_steps) and torch.equal(result.depth, programs.depth)
        again = [score_chains(run.model, run.config, 16) for run in runs]  # sampled halting is repeatable: a fresh generator each call
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
    assert evaluate_chains(run.model, programs, run.config.halting_rule, run.config.generator("sampling", "cpu")).accuracy == deep.accuracy


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
