"""ACT and PonderNet modules: agreement with the halting functions, batching, early exit, inference."""

import pytest
import torch
from torch import nn

from ponderlib.mechanisms.act import ACT, ACTRNN
from ponderlib.mechanisms.halting import act_halting, pondernet_halting, pondernet_log_halting
from ponderlib.mechanisms.pondernet import PonderNet
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.parity_data import parity_batch
from ponderlib.tasks.parity_models import CELLS, act_parity_model, pondernet_parity_model


class ScriptedCell(nn.Module):
    """A 'cell' whose state is the step count, so halting units can be scripted per step."""

    def forward(self, x: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        return state + 1.0


class ScriptedHalting(nn.Module):
    """Maps the step count n (in the state) to a fixed halting unit h_n per sample."""

    def __init__(self, units: torch.Tensor) -> None:
        super().__init__()
        self.units = units  # (B, max_ponder_steps)

    def forward(self, state: torch.Tensor) -> torch.Tensor:
        n = state[:, 0].long() - 1  # (B,)
        h = self.units[torch.arange(len(n)), n.clamp(max=self.units.shape[1] - 1)]
        return torch.logit(h.clamp(1e-6, 1 - 1e-6)).unsqueeze(1)


def scripted_act(units: torch.Tensor) -> ACT:
    act = ACT(ScriptedCell(), output_layer=nn.Identity(), hidden_size=1, max_ponder_steps=units.shape[1], eps=0.01)
    act.halting_unit = ScriptedHalting(units)
    return act


class TestACTModule:
    def test_matches_halting_function_and_exits_early(self):
        units = torch.tensor([[0.1, 0.3, 0.7, 0.5, 0.5, 0.5], [0.995, 0.1, 0.1, 0.1, 0.1, 0.1]])
        result = scripted_act(units)(torch.zeros(2, 3), state=torch.zeros(2, 1))
        reference = act_halting(units)
        assert result.ponder_steps.tolist() == reference.ponder_steps.tolist() == [3, 1]
        assert result.halting_probs.shape == (2, 3)  # stopped after step 3: everyone had halted
        assert torch.allclose(result.halting_probs, reference.halting_probs[:, :3], atol=1e-5)
        assert torch.allclose(result.remainder, reference.remainder, atol=1e-5)
        # The state is the step count n, so the mean-field state is E[n] = sum_n n p_n.
        assert result.state[:, 0].tolist() == pytest.approx([0.1 + 0.6 + 3 * 0.6, 1.0], abs=1e-4)

    def test_batched_equals_one_at_a_time(self):
        torch.manual_seed(0)
        model = act_parity_model(n_elems=6, hidden=16, max_ponder_steps=8)
        batch = parity_batch(5, 6, generator=torch.Generator().manual_seed(1))
        together = model(batch.inputs)
        for i in range(5):
            alone = model(batch.inputs[i : i + 1])
            assert torch.allclose(together.output[i], alone.output[0], atol=1e-5)
            assert together.ponder_steps[i] == alone.ponder_steps[0]
            assert torch.allclose(together.ponder_cost[i], alone.ponder_cost[0], atol=1e-5)

    def test_rnn_carries_mean_field_state(self):
        torch.manual_seed(0)
        act = act_parity_model(n_elems=4, hidden=8, max_ponder_steps=5)
        inputs = torch.randn(3, 4, 4)
        sequence = ACTRNN(act)(inputs)
        assert sequence.outputs.shape == (3, 4, 1)
        assert sequence.ponder_steps.shape == sequence.ponder_cost.shape == (3, 4)
        state = None
        for t in range(4):
            step = act(inputs[:, t], state)
            state = step.state
            assert torch.allclose(sequence.outputs[:, t], step.output, atol=1e-6)
        assert torch.allclose(sequence.state, state, atol=1e-6)

    def test_bad_input(self):
        model = act_parity_model(n_elems=4, hidden=8)
        with pytest.raises(ValueError, match="x must have rank 2"):
            model(torch.zeros(4))
        with pytest.raises(ValueError, match="empty batch"):
            model(torch.zeros(0, 4))
        with pytest.raises(ValueError, match="max_ponder_steps"):
            act_parity_model(n_elems=4, max_ponder_steps=0)
        with pytest.raises(ValueError, match="n_elems"):
            act_parity_model(n_elems=0)


class ScriptedStep(nn.Module):
    """PonderNet step whose lambda_n and y_n = n are scripted per sample; h counts steps."""

    def __init__(self, lambdas: torch.Tensor) -> None:
        super().__init__()
        self.lambdas = lambdas  # (B, max_ponder_steps)
        self.calls: list[int] = []  # batch size at every call, to observe the real early exit

    def forward(self, x: torch.Tensor, h: torch.Tensor):
        self.calls.append(x.shape[0])
        h = h + 1.0
        row = x[:, 0].long()  # x carries each sample's original row index
        lam = self.lambdas[row, h[:, 0].long() - 1]
        return h[:, 0], h, lam


class TestPonderNetModule:
    def test_training_unroll_matches_halting_function(self):
        lambdas = torch.tensor([[0.2, 0.5, 0.9, 0.3], [0.5, 0.5, 0.5, 0.5]])
        model = PonderNet(ScriptedStep(lambdas), hidden_size=1, max_ponder_steps=4, unroll_tolerance=0.0)
        out = model(torch.arange(2.0).unsqueeze(1))
        assert torch.allclose(out.halting_probs, pondernet_halting(lambdas))
        assert torch.allclose(out.log_halting_probs, pondernet_log_halting(lambdas))
        assert out.step_outputs.tolist() == [[1, 2, 3, 4], [1, 2, 3, 4]]

    def test_unroll_stops_when_no_mass_is_left(self):
        lambdas = torch.tensor([[0.5, 1.0, 0.5, 0.5], [1.0, 0.5, 0.5, 0.5]])
        model = PonderNet(ScriptedStep(lambdas), hidden_size=1, max_ponder_steps=4, unroll_tolerance=1e-3)
        out = model(torch.arange(2.0).unsqueeze(1))
        assert out.halting_probs.shape == (2, 2)
        assert out.halting_probs.tolist() == [[0.5, 0.5], [1.0, 0.0]]
        full = model(torch.arange(2.0).unsqueeze(1), unroll_tolerance=0.0)  # every step, this call only
        assert full.halting_probs.shape == (2, 4) and model.unroll_tolerance == 1e-3
        with pytest.raises(ValueError, match="unroll_tolerance must be in"):
            model(torch.arange(2.0).unsqueeze(1), unroll_tolerance=1.0)

    def test_median_inference_stops_computing_halted_samples(self):
        # Sample 0 reaches half its mass at step 1, sample 1 at step 3, sample 2 never (cap at 4).
        lambdas = torch.tensor([[0.6, 0.5, 0.5, 0.5], [0.1, 0.2, 0.5, 0.5], [0.0, 0.0, 0.0, 0.0]])
        step = ScriptedStep(lambdas)
        model = PonderNet(step, hidden_size=1, max_ponder_steps=4)
        result = model.infer(torch.arange(3.0).unsqueeze(1), halting_rule="median")
        assert result.ponder_steps.tolist() == [1, 3, 4]
        assert result.output.tolist() == [1.0, 3.0, 4.0]  # y_n at each sample's own halting step
        assert step.calls == [3, 2, 2, 1]  # halted samples left the batch
        assert result.sample_ponder_steps == 8 and result.ponder_steps_run == 4

    def test_sampled_inference_follows_the_halting_distribution(self):
        lambdas = torch.full((4000, 5), 0.5)
        model = PonderNet(ScriptedStep(lambdas), hidden_size=1, max_ponder_steps=5)
        result = model.infer(torch.arange(4000.0).unsqueeze(1), generator=torch.Generator().manual_seed(0))
        frequencies = torch.bincount(result.ponder_steps, minlength=6)[1:].float() / 4000
        assert torch.allclose(frequencies, pondernet_halting(lambdas[:1])[0], atol=0.03)

    def test_batched_equals_one_at_a_time(self):
        torch.manual_seed(0)
        model = pondernet_parity_model(n_elems=6, hidden=16, max_ponder_steps=8)
        batch = parity_batch(5, 6, generator=torch.Generator().manual_seed(1))
        together = model(batch.inputs)
        inferred = model.infer(batch.inputs, halting_rule="median")
        for i in range(5):
            alone = model(batch.inputs[i : i + 1])
            assert torch.allclose(together.halting_probs[i], alone.halting_probs[0], atol=1e-5)
            single = model.infer(batch.inputs[i : i + 1], halting_rule="median")
            assert single.ponder_steps[0] == inferred.ponder_steps[i]
            assert torch.allclose(single.output[0], inferred.output[i], atol=1e-5)

    def test_bad_input(self):
        model = pondernet_parity_model(n_elems=4, hidden=8)
        with pytest.raises(ValueError, match="non-empty batch"):
            model(torch.zeros(0, 4))
        with pytest.raises(ValueError, match="halting_rule must be one of"):
            model.infer(torch.zeros(2, 4), halting_rule="greedy")


class TestParityCells:
    """Graves' simple RNN of tanh units or the book's GRU, for both methods."""

    def test_the_tanh_cell_is_graves_simple_rnn(self):
        torch.manual_seed(0)
        act = act_parity_model(n_elems=5, hidden=7, cell="tanh")
        cell = act.cell
        assert isinstance(cell, nn.RNNCell) and cell.nonlinearity == "tanh"
        x, h = torch.randn(3, 6), torch.randn(3, 7)  # 5 entries and the first-step flag
        by_hand = torch.tanh(x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh)
        assert torch.allclose(cell(x, h), by_hand, atol=1e-6)
        assert isinstance(pondernet_parity_model(n_elems=5, hidden=7, cell="tanh").step.cell, nn.RNNCell)
        assert isinstance(act_parity_model(n_elems=5, hidden=7).cell, nn.GRUCell)

    @pytest.mark.parametrize("method", ["act", "pondernet"])
    @pytest.mark.parametrize("cell", CELLS)
    def test_every_cell_trains_with_every_method(self, method, cell):
        result = train_parity(
            method=method, cell=cell, n_elems=3, hidden=8, batch_size=8, max_updates=3, eval_size=16,
            difficulty_eval_size=4, target_accuracy=None, progress=False,
        )
        assert result.summary()["config"]["cell"] == cell

    def test_an_unknown_cell_or_label_is_refused_naming_it(self):
        with pytest.raises(ValueError, match="cell"):
            act_parity_model(n_elems=4, cell="lstm")
        with pytest.raises(ValueError, match="cell"):
            ParityConfig(cell="lstm").validate()
        with pytest.raises(ValueError, match="label"):
            ParityConfig(label="odd").validate()
