"""Assignment chains in shuffled order, and the statistics chapter 4 reads from a run: the correlation of
ponder steps with depth within each position, PonderNet's expected steps, ponder-step histograms.
Values worked by hand, an interpreter as the reference, then properties."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderlib.core.stats import pearson_correlation, within_group_correlation
from ponderlib.tasks.chains import ChainsConfig, ChainsEvaluation, evaluate_chains, train_chains
from ponderlib.tasks.chains_data import ORDERS, chains_batch

N_NAMES = 24


def interpret(batch, b: int) -> list[int]:
    """Run program ``b`` of ``batch`` as a reader would: look each name up wherever it is assigned."""
    length = int(batch.lengths[b])
    names = batch.names[b, :length].tolist()
    sources = batch.sources[b, :length].tolist()
    negated = batch.negated[b, :length].tolist()

    def value(name: int) -> int:
        i = names.index(name)
        if sources[i] >= N_NAMES:
            return sources[i] - N_NAMES
        return value(sources[i]) ^ int(negated[i])

    return [value(name) for name in names]


def hops(batch, b: int) -> list[int]:
    length = int(batch.lengths[b])
    names, sources = batch.names[b, :length].tolist(), batch.sources[b, :length].tolist()

    def depth(i: int) -> int:
        return 0 if sources[i] >= N_NAMES else 1 + depth(names.index(sources[i]))

    return [depth(i) for i in range(length)]


class TestWithinGroupCorrelation:
    def test_by_hand(self):
        # groups {0, 1} and {2, 3}: x - group mean = (-0.5, 0.5, -0.5, 0.5), y - group mean =
        # (0.5, -0.5, 0.5, -0.5): r = -1, though over all four r(x, y) = 0.6
        x, y = torch.tensor([1.0, 2, 3, 4]), torch.tensor([2.0, 1, 4, 3])
        groups = torch.tensor([0, 0, 1, 1])
        assert within_group_correlation(x, y, groups) == pytest.approx(-1.0)
        assert pearson_correlation(x, y) == pytest.approx(0.6)

    def test_a_correlation_that_only_the_group_explains_vanishes(self):
        # y = the group, x = the group plus noise that y does not share: within groups, r is about 0
        g = torch.Generator().manual_seed(0)
        groups = torch.randint(0, 10, (20000,), generator=g)
        x = groups.double() + torch.randn(20000, generator=g, dtype=torch.float64)
        y = groups.double() + torch.randn(20000, generator=g, dtype=torch.float64)
        assert pearson_correlation(x, y) > 0.8
        assert abs(within_group_correlation(x, y, groups)) < 0.03

    def test_one_group_is_pearson(self):
        x, y = torch.tensor([1.0, 3, 2, 5]), torch.tensor([0.0, 2, 1, 1])
        assert within_group_correlation(x, y, torch.zeros(4, dtype=torch.long)) == pytest.approx(pearson_correlation(x, y))

    def test_nothing_varies_within_a_group(self):
        x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
        assert torch.isnan(torch.tensor(within_group_correlation(x, y, torch.tensor([0, 1]))))

    @pytest.mark.parametrize("groups", [torch.tensor([0.0, 1.0, 1.0]), torch.tensor([0, 1]), torch.tensor([0, -1, 1])])
    def test_bad_groups(self, groups):
        with pytest.raises(ValueError, match="groups"):
            within_group_correlation(torch.ones(3), torch.arange(3.0), groups)


class TestShuffledChains:
    @pytest.mark.parametrize("order", ORDERS)
    def test_targets_and_depths_match_an_interpreter(self, order):
        batch = chains_batch(64, 4, 10, 4, N_NAMES, torch.Generator().manual_seed(1), order)
        for b in range(64):
            length = int(batch.lengths[b])
            assert batch.targets[b, :length].tolist() == interpret(batch, b)
            assert batch.depth[b, :length].tolist() == hops(batch, b)

    def test_shuffling_permutes_each_program_of_the_topological_draw(self):
        # shuffled order draws the same programs, then one more set of random keys
        topological = chains_batch(32, 4, 10, 4, N_NAMES, torch.Generator().manual_seed(2), "topological")
        shuffled = chains_batch(32, 4, 10, 4, N_NAMES, torch.Generator().manual_seed(2), "shuffled")
        assert torch.equal(shuffled.padding_mask, topological.padding_mask)
        for b in range(32):
            length = int(topological.lengths[b])
            rows = lambda batch: sorted(  # noqa: E731
                zip(*(getattr(batch, f)[b, :length].tolist() for f in ("names", "sources", "negated", "targets", "depth")))
            )
            assert rows(shuffled) == rows(topological)

    def test_depth_no_longer_depends_on_position(self):
        g = torch.Generator().manual_seed(3)
        at_position = {}
        for order in ORDERS:
            batch = chains_batch(20000, 10, 10, 4, N_NAMES, g, order)  # one length: nothing else to explain depth
            at_position[order] = batch.depth.double().mean(dim=0)  # (T,)
        # topological: position 0 is always a root, and depth can only grow with the index
        assert at_position["topological"][0] == 0 and at_position["topological"][-1] > 1.5
        # shuffled: the same mean depth at every position, to sampling error (sd of a mean ~0.01)
        assert (at_position["shuffled"] - at_position["shuffled"].mean()).abs().max() < 0.06

    def test_unknown_order(self):
        with pytest.raises(ValueError, match="order"):
            chains_batch(2, 4, 10, 4, N_NAMES, order="reversed")
        with pytest.raises(ValueError, match="order"):
            ChainsConfig(order="reversed").validate()

    @pytest.mark.parametrize("d_model, heads, word", [(32, 3, "heads"), (30, 4, "heads"), (33, 3, "d_model")])
    def test_sizes_the_encoder_needs_are_checked_by_the_config(self, d_model, heads, word):
        with pytest.raises(ValueError, match=word):
            ChainsConfig(d_model=d_model, heads=heads).validate()


def evaluation(ponder_steps, depth, padding_mask=None, expected_ponder_steps=None) -> ChainsEvaluation:
    ponder_steps, depth = torch.tensor(ponder_steps), torch.tensor(depth)
    padding_mask = torch.zeros_like(depth, dtype=torch.bool) if padding_mask is None else torch.tensor(padding_mask)
    real = ~padding_mask
    return ChainsEvaluation(
        accuracy=1.0, correct=real, ponder_steps=ponder_steps, depth=depth,
        depth_correlation=pearson_correlation(ponder_steps[real].float(), depth[real].float()),
        attention=torch.zeros(*depth.shape, depth.shape[1]), padding_mask=padding_mask,
        expected_ponder_steps=None if expected_ponder_steps is None else torch.tensor(expected_ponder_steps),
    )


class TestEvaluationStatistics:
    def test_histogram_by_hand(self):
        e = evaluation([[1, 2, 2], [3, 1, 9]], [[0, 1, 1], [2, 0, 0]], [[False, False, False], [False, False, True]])
        # depth 0: steps 1, 1 -> [2, 0, 0]; depth 1: 2, 2 -> [0, 2, 0]; depth 2: 3 -> [0, 0, 1] (padding ignored)
        assert e.steps_histogram() == {0: [2, 0, 0], 1: [0, 2, 0], 2: [0, 0, 1]}

    def test_correlations_by_hand(self):
        # two programs, positions 0 and 1; steps = depth + 1 except one position
        e = evaluation([[1, 3], [2, 2]], [[0, 1], [1, 1]], expected_ponder_steps=[[1.0, 2.5], [2.0, 2.0]])
        c = e.correlations()
        steps, depth, position = torch.tensor([1.0, 3, 2, 2]), torch.tensor([0.0, 1, 1, 1]), torch.tensor([0, 1, 0, 1])
        assert c["depth"] == pytest.approx(pearson_correlation(steps, depth))
        assert c["position"] == pytest.approx(pearson_correlation(steps, position.double()))
        assert c["depth_position"] == pytest.approx(pearson_correlation(depth, position.double()))
        # within position 0: steps (1, 2), depth (0, 1); within position 1: steps (3, 2), depth (1, 1)
        # centred: steps (-0.5, 0.5, 0.5, -0.5), depth (-0.5, 0.5, 0, 0): r = 0.5 / sqrt(1 * 0.5)
        assert c["depth_given_position"] == pytest.approx(0.5 / 0.5**0.5)
        assert c["expected_depth"] == pytest.approx(pearson_correlation(torch.tensor([1.0, 2.5, 2, 2]), depth))

    def test_no_expected_ponder_steps(self):
        assert torch.isnan(torch.tensor(evaluation([[1, 2]], [[0, 1]]).correlations()["expected_depth"]))

    @pytest.mark.parametrize("method", ["act", "pondernet", "fixed"])
    def test_expected_ponder_steps_of_a_model(self, method):
        config = ChainsConfig(method=method, max_updates=2, eval_every=1, test_size=8, eval_size=8, batch_size=8, progress=False)
        run = train_chains(config)
        batch = config.batch(16, torch.Generator().manual_seed(0))
        e = evaluate_chains(run.model, batch, "sample", torch.Generator().manual_seed(0))
        real = ~batch.padding_mask
        assert torch.all(e.expected_ponder_steps[batch.padding_mask] == 0)
        assert torch.all((e.expected_ponder_steps[real] >= 1) & (e.expected_ponder_steps[real] <= config.max_ponder_steps + 1e-6))
        if method == "fixed":
            assert torch.all(e.expected_ponder_steps[real] == config.depth)
        if method == "pondernet":  # the learnt distribution, not the one-hot of the sampled step
            assert not torch.equal(e.expected_ponder_steps[real], e.ponder_steps[real].to(e.expected_ponder_steps.dtype))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), batch_size=st.integers(1, 8), length=st.integers(1, 12))
def test_shuffled_batches_are_valid_programs(seed, batch_size, length):
    batch = chains_batch(batch_size, 1, length, 6, N_NAMES, torch.Generator().manual_seed(seed), "shuffled")
    for b in range(batch_size):
        n = int(batch.lengths[b])
        assert len(set(batch.names[b, :n].tolist())) == n  # one assignment per name
        assert batch.targets[b, :n].tolist() == interpret(batch, b)
        assert not batch.negated[b, :n][batch.depth[b, :n] == 0].any()  # roots are never negated


def test_the_halting_loss_is_built_on_the_device_it_is_given():
    from ponderlib.mechanisms.losses import ACTLoss, PonderNetLoss
    from ponderlib.tasks.chains import halting_loss

    loss = halting_loss(ChainsConfig(method="pondernet"), "meta")
    assert isinstance(loss, PonderNetLoss) and loss.prior.is_meta
    assert halting_loss(ChainsConfig(method="pondernet")).prior.device.type == "cpu"
    assert isinstance(halting_loss(ChainsConfig(method="act"), "meta"), ACTLoss)
    assert halting_loss(ChainsConfig(method="fixed"), "meta") is None
