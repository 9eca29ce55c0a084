"""The Universal Transformer with per-position halting, and the assignment-chains task: values worked
by hand, brute-force references, then properties."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from ponderlib.mechanisms.universal_transformer import UniversalTransformer, coordinate_embedding
from ponderlib.tasks.chains import ChainsConfig, evaluate_chains, train_chains
from ponderlib.tasks.chains_data import chains_batch
from ponderlib.tasks.registry import TASKS


class FixedHalting(nn.Module):
    """A test double for the halting unit: the same logit at every ponder step, one per position."""

    def __init__(self, halting_units: list[float]) -> None:
        super().__init__()
        self.logits = torch.logit(torch.tensor(halting_units, dtype=torch.float64))  # (T,)

    def forward(self, entering: torch.Tensor) -> torch.Tensor:
        return self.logits.to(entering.dtype).expand(entering.shape[0], -1).unsqueeze(2)  # (B, T, 1)


def encoder(method: str = "act", max_ponder_steps: int = 5, seed: int = 0) -> UniversalTransformer:
    torch.manual_seed(seed)
    return UniversalTransformer(8, 2, 16, max_ponder_steps, method).double().eval()


def reference_states(model: UniversalTransformer, x: torch.Tensor, halting_steps: list[int]) -> list[torch.Tensor]:
    """H^n for one unpadded sequence ``x`` (T, D), position by position, position i frozen after step halting_steps[i]."""
    state, states = x.clone(), []
    for n in range(1, max(halting_steps) + 1):
        entering = state + coordinate_embedding(x.shape[0], n, x.shape[1]).double()
        new_state, _ = model.block(entering.unsqueeze(0), torch.zeros(1, x.shape[0], dtype=torch.bool))
        state = torch.stack([new_state[0, i] if n <= halting_steps[i] else state[i] for i in range(x.shape[0])])
        states.append(state)
    return states


class TestCoordinateEmbedding:
    def test_values_by_hand(self):
        # d = 2: P^n_{i,0} = sin(i) + sin(n), P^n_{i,1} = cos(i) + cos(n); positions and steps from 1.
        p = coordinate_embedding(2, 3, 2)
        expected = [[math.sin(1) + math.sin(3), math.cos(1) + math.cos(3)], [math.sin(2) + math.sin(3), math.cos(2) + math.cos(3)]]
        assert torch.allclose(p, torch.tensor(expected), atol=1e-6)

    def test_second_frequency(self):
        # d = 4, j = 1: frequency 10000^(-2/4) = 0.01.
        p = coordinate_embedding(1, 2, 4)
        assert p[0, 2].item() == pytest.approx(math.sin(0.01) + math.sin(0.02), abs=1e-6)
        assert p[0, 3].item() == pytest.approx(math.cos(0.01) + math.cos(0.02), abs=1e-6)

    @pytest.mark.parametrize("d_model", [3, 0, 2.0])
    def test_bad_d_model(self, d_model):
        with pytest.raises(ValueError, match="d_model"):
            coordinate_embedding(4, 1, d_model)


class TestACTByHand:
    def test_two_positions_same_units(self):
        # h = 0.4 at every step: sums 0.4, 0.8, 1.2, so N = 3, R = 1 - 0.8 = 0.2, p = (0.4, 0.4, 0.2), rho = 3.2;
        # both positions have halted after step 3, so the loop stops there though 5 steps are allowed.
        model = encoder()
        model.halting_unit = FixedHalting([0.4, 0.4])
        x = torch.randn(1, 2, 8, dtype=torch.float64)
        out = model(x)
        assert out.ponder_steps.tolist() == [[3, 3]]
        assert torch.allclose(out.halting_probs[0], torch.tensor([[0.4, 0.4, 0.2]] * 2, dtype=torch.float64))
        assert out.ponder_cost[0].tolist() == pytest.approx([3.2, 3.2])
        assert out.step_states.shape == (1, 2, 3, 8)
        h1, h2, h3 = reference_states(model, x[0], [3, 3])
        assert torch.allclose(out.state[0], 0.4 * h1 + 0.4 * h2 + 0.2 * h3)

    def test_halted_position_is_frozen_and_still_attended(self):
        # Position 0: h = 0.995 >= 0.99 halts after one step. Position 1: h = 0.3, sums 0.3, 0.6, 0.9, 1.2:
        # N = 4, R = 0.1. Position 0 keeps H^1 while position 1 goes on attending to it.
        model = encoder()
        model.halting_unit = FixedHalting([0.995, 0.3])
        x = torch.randn(1, 2, 8, dtype=torch.float64)
        out = model(x)
        assert out.ponder_steps.tolist() == [[1, 4]]
        assert out.halting_probs[0, 1].tolist() == pytest.approx([0.3, 0.3, 0.3, 0.1])
        assert out.ponder_cost[0].tolist() == pytest.approx([2.0, 4.1])
        frozen = out.step_states[0, 0]  # (n_run, D)
        assert torch.equal(frozen, frozen[:1].expand_as(frozen))
        assert torch.allclose(out.state[0, 0], frozen[0])
        reference = reference_states(model, x[0], [1, 4])
        for n, expected in enumerate(reference):
            assert torch.allclose(out.step_states[0, :, n], expected)
        assert torch.allclose(out.attention[0, 0].sum(), torch.tensor(1.0, dtype=torch.float64))


class TestMasksAndBatching:
    def test_padding_gets_no_attention_and_changes_nothing(self):
        model = encoder()
        x = torch.randn(3, 6, 8, dtype=torch.float64)
        padding = torch.arange(6).unsqueeze(0) >= torch.tensor([[6], [4], [2]])
        out = model(x, padding)
        assert torch.all(out.attention.masked_select(padding.unsqueeze(1).expand_as(out.attention)) == 0)
        assert torch.all(out.ponder_steps[padding] == 0) and torch.all(out.ponder_cost[padding] == 0)
        other = model(torch.where(padding.unsqueeze(2), torch.randn_like(x), x), padding)
        assert torch.allclose(out.state[~padding], other.state[~padding])

    @pytest.mark.parametrize("method", ["act", "pondernet", "fixed"])
    def test_batched_equals_one_sequence_at_a_time(self, method):
        model = encoder(method, max_ponder_steps=6, seed=1)
        lengths = [5, 2, 7, 3]
        x = torch.randn(len(lengths), 7, 8, dtype=torch.float64)
        padding = torch.arange(7).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
        batched = model(x, padding)
        for b, length in enumerate(lengths):
            alone = model(x[b : b + 1, :length])
            assert torch.allclose(batched.state[b, :length], alone.state[0], atol=1e-9)
            assert torch.equal(batched.ponder_steps[b, :length], alone.ponder_steps[0])
            assert torch.allclose(batched.attention[b, :length, :length], alone.attention[0], atol=1e-9)

    def test_fixed_depth_runs_every_step(self):
        model = encoder("fixed", max_ponder_steps=3)
        out = model(torch.randn(2, 4, 8, dtype=torch.float64))
        assert torch.all(out.ponder_steps == 3)
        assert torch.equal(out.state, out.step_states[:, :, -1])
        assert not hasattr(model, "halting_unit")


class TestPonderNetPerPosition:
    def test_training_pass_by_hand(self):
        # lambda = 0.5 everywhere, N = 3: p = (0.5, 0.25, 0.25).
        model = encoder("pondernet", max_ponder_steps=3)
        model.halting_unit = FixedHalting([0.5, 0.5, 0.5])
        out = model(torch.randn(1, 3, 8, dtype=torch.float64))
        assert torch.allclose(out.halting_probs[0], torch.tensor([[0.5, 0.25, 0.25]] * 3, dtype=torch.float64))

    def test_median_halting_by_hand(self):
        # lambda = 0.3: P(halted by n) = 0.3, 0.51: the median step is 2. lambda = 0.6: step 1.
        model = encoder("pondernet", max_ponder_steps=6)
        model.halting_unit = FixedHalting([0.3, 0.6])
        out = model(torch.randn(1, 2, 8, dtype=torch.float64), halting_rule="median")
        assert out.ponder_steps.tolist() == [[2, 1]]
        assert out.step_states.shape[2] == 2  # stopped once both had halted
        assert torch.equal(out.state[0, 0], out.step_states[0, 0, 1])

    def test_halting_mode_only_for_pondernet(self):
        with pytest.raises(ValueError, match="halting_rule"):
            encoder("act")(torch.randn(1, 2, 8, dtype=torch.float64), halting_rule="sample")


class TestBadInput:
    def test_arguments(self):
        with pytest.raises(ValueError, match="method"):
            UniversalTransformer(8, 2, 16, 4, "gumbel")
        with pytest.raises(ValueError, match="max_ponder_steps"):
            UniversalTransformer(8, 2, 16, 0)
        with pytest.raises(ValueError, match="heads"):
            UniversalTransformer(8, 3, 16, 4)

    def test_inputs(self):
        model = encoder()
        with pytest.raises(ValueError, match="x must have rank 3"):
            model(torch.randn(2, 8, dtype=torch.float64))
        with pytest.raises(ValueError, match="d_model = 8"):
            model(torch.randn(2, 3, 6, dtype=torch.float64))
        with pytest.raises(ValueError, match="whole sequence"):
            model(torch.randn(2, 3, 8, dtype=torch.float64), torch.tensor([[False] * 3, [True] * 3]))


@settings(max_examples=25, deadline=None)
@given(
    method=st.sampled_from(["act", "pondernet"]),
    seed=st.integers(0, 10_000),
    lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    max_ponder_steps=st.integers(1, 6),
)
def test_halting_distribution_sums_to_one_per_position(method, seed, lengths, max_ponder_steps):
    model = encoder(method, max_ponder_steps, seed)
    x = torch.randn(len(lengths), max(lengths), 8, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    padding = torch.arange(max(lengths)).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
    out = model(x, padding)
    real = ~padding
    assert torch.allclose(out.halting_probs[real].sum(dim=1), torch.ones(int(real.sum()), dtype=torch.float64))
    assert torch.all(out.halting_probs >= 0)
    assert torch.all((out.ponder_steps[real] >= 1) & (out.ponder_steps[real] <= max_ponder_steps))


class TestChainsTask:
    def test_targets_and_depths_match_an_interpreter(self):
        n_names = 12
        batch = chains_batch(64, 3, 9, 4, n_names, torch.Generator().manual_seed(3))
        for b in range(64):
            values, depths = {}, {}
            for i in range(int((~batch.padding_mask[b]).sum())):
                source = batch.sources[b, i].item()
                if source >= n_names:
                    value, depth = source - n_names, 0
                else:
                    value, depth = values[source] ^ int(batch.negated[b, i]), depths[source] + 1
                values[batch.names[b, i].item()], depths[batch.names[b, i].item()] = value, depth
                assert (batch.targets[b, i].item(), batch.depth[b, i].item()) == (value, depth)
        assert batch.depth.max().item() == 4

    def test_names_are_distinct_within_a_program(self):
        batch = chains_batch(32, 8, 8, 3, 8, torch.Generator().manual_seed(0))
        assert torch.all(batch.names.sort(dim=1).values == torch.arange(8))

    def test_bad_config(self):
        with pytest.raises(ValueError, match="n_names"):
            ChainsConfig(n_names=4, max_len=10).validate()
        with pytest.raises(ValueError, match="method"):
            ChainsConfig(method="lstm").validate()

    @pytest.mark.parametrize("method", ["act", "pondernet", "fixed"])
    def test_trains_and_evaluates(self, method):
        result = train_chains(method=method, max_updates=3, eval_every=3, eval_size=32, batch_size=8, progress=False)
        summary = result.summary()
        assert summary["task"] == "chains" and summary["updates"] == 3 and summary["method"] == method
        evaluation = evaluate_chains(result.model, result.config.batch(16, torch.Generator().manual_seed(1)))
        assert 0.0 <= evaluation.accuracy <= 1.0
        assert evaluation.attention.shape[1:] == (result.config.max_len, result.config.max_len)

    def test_registered_for_the_cli(self):
        assert TASKS["chains"].config is ChainsConfig
