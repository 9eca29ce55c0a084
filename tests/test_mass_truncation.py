"""Banino et al.'s training N (sec. 2.3): each sample's N is the smallest n whose cumulative halting
probability exceeds 1 - eps; p_n and the prior are cut there. Values worked by hand, then properties,
then the model and the loss that use it."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ponderlib.mechanisms.halting import (
    PRIOR_TRUNCATIONS,
    geometric_prior,
    geometric_prior_cut,
    pondernet_halting,
    pondernet_log_halting,
    truncate_at_mass,
)
from ponderlib.mechanisms.losses import PonderNetLoss, binary_step_losses, kl_to_geometric
from ponderlib.mechanisms.pondernet import PonderNet
from ponderlib.tasks.parity_models import pondernet_parity_model

lambda_matrices = st.tuples(st.integers(1, 5), st.integers(1, 8)).flatmap(
    lambda shape: arrays("float64", shape, elements=st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0)))
)


class TestByHand:
    # lambda = 0.5 at every step: p = 0.5, 0.25, 0.125, 0.0625 before any cut, cumulative 0.5, 0.75, 0.875.
    lambdas = torch.tensor([[0.5, 0.5, 0.5, 0.5]], dtype=torch.float64)

    def test_n_is_the_first_step_past_one_minus_eps(self):
        assert truncate_at_mass(self.lambdas, 0.2).steps.tolist() == [3]  # 0.875 > 0.8 >= 0.75
        assert truncate_at_mass(self.lambdas, 0.25).steps.tolist() == [3]  # 0.75 is not > 0.75
        assert truncate_at_mass(self.lambdas, 0.3).steps.tolist() == [2]

    def test_the_rest_on_the_last_step(self):
        cut = truncate_at_mass(self.lambdas, 0.2, "last")
        assert cut.halting_probs[0].tolist() == pytest.approx([0.5, 0.25, 0.25, 0.0])
        assert cut.log_halting_probs[0].tolist() == pytest.approx([np.log(0.5), np.log(0.25), np.log(0.25), 0.0])

    def test_normalised(self):
        cut = truncate_at_mass(self.lambdas, 0.2, "normalised")
        assert cut.halting_probs[0].tolist() == pytest.approx([0.5 / 0.875, 0.25 / 0.875, 0.125 / 0.875, 0.0])
        assert cut.log_halting_probs[0, :3].exp().tolist() == pytest.approx(cut.halting_probs[0, :3].tolist())

    def test_never_reached_cuts_at_the_last_step_run(self):
        small = torch.full((2, 5), 0.01, dtype=torch.float64)
        assert truncate_at_mass(small, 0.05).steps.tolist() == [5, 5]

    def test_prior_cut_by_hand(self):
        # lambda_p = 0.5, N = 2: normalised 0.5 / 0.75 and 0.25 / 0.75; the tail 0.5 on step 2.
        prior = geometric_prior_cut(0.5, torch.tensor([2, 3]), 4, "normalised")
        assert prior[0].tolist() == pytest.approx([2 / 3, 1 / 3, 0.0, 0.0])
        assert prior[1].tolist() == pytest.approx([0.5 / 0.875, 0.25 / 0.875, 0.125 / 0.875, 0.0])
        assert geometric_prior_cut(0.5, torch.tensor([2]), 4, "last")[0].tolist() == pytest.approx([0.5, 0.5, 0, 0])


class TestProperties:
    @settings(max_examples=60, deadline=None)
    @given(lambda_matrices)
    def test_eps_zero_with_the_rest_on_the_last_step_is_pondernet_halting(self, lambdas):
        cut = truncate_at_mass(torch.from_numpy(lambdas), 0.0, "last")
        assert torch.allclose(cut.halting_probs, pondernet_halting(torch.from_numpy(lambdas)), atol=1e-9)
        # log p_n up to each row's N; after it the cut holds 0 by convention. With eps = 0, N is the cap unless
        # the cumulative mass rounds to 1 before it (a lambda near 1 mid-row: Hypothesis found one), and then
        # the steps after N hold p_n = 0 in both, log p_n 0 in the cut and about -41 in pondernet_log_halting.
        kept = torch.arange(1, lambdas.shape[1] + 1) <= cut.steps[:, None]
        log_p = pondernet_log_halting(torch.from_numpy(lambdas))
        assert torch.allclose(cut.log_halting_probs[kept], log_p[kept], atol=1e-6)

    @settings(max_examples=60, deadline=None)
    @given(lambda_matrices, st.sampled_from([0.01, 0.05, 0.3]), st.sampled_from(PRIOR_TRUNCATIONS))
    def test_rows_sum_to_one_and_hold_nothing_after_n(self, lambdas, eps, truncation):
        cut = truncate_at_mass(torch.from_numpy(lambdas), eps, truncation)
        assert torch.allclose(cut.halting_probs.sum(dim=1), torch.ones(len(lambdas), dtype=torch.float64))
        after = torch.arange(1, lambdas.shape[1] + 1) > cut.steps[:, None]
        assert not cut.halting_probs[after].any() and not cut.log_halting_probs[after].any()
        assert ((cut.steps >= 1) & (cut.steps <= lambdas.shape[1])).all()

    @settings(max_examples=40, deadline=None)
    @given(st.floats(0.01, 1.0), st.lists(st.integers(1, 9), min_size=1, max_size=5), st.sampled_from(PRIOR_TRUNCATIONS))
    def test_each_row_is_the_prior_truncated_at_its_own_n(self, lambda_p, steps, truncation):
        prior = geometric_prior_cut(lambda_p, torch.tensor(steps), 9, truncation)
        for row, n in zip(prior, steps):
            assert torch.allclose(row[:n], geometric_prior(lambda_p, n, truncation), atol=1e-6)
            assert not row[n:].any()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="eps"):
        truncate_at_mass(torch.full((1, 3), 0.5), 1.0)
    with pytest.raises(ValueError, match="truncation"):
        truncate_at_mass(torch.full((1, 3), 0.5), 0.05, "tail")
    step = pondernet_parity_model(4, 8, 5).step
    with pytest.raises(ValueError, match="halting_mass"):
        PonderNet(step, 8, 5, halting_mass=1.0)
    with pytest.raises(ValueError, match="mass_truncation"):
        PonderNet(step, 8, 5, halting_mass=0.05, mass_truncation="tail")


@pytest.mark.parametrize("direction", ["paper", "reverse"])
@pytest.mark.parametrize("truncation", PRIOR_TRUNCATIONS)
def test_the_model_unrolls_to_the_latest_n_and_the_loss_cuts_each_prior_there(direction, truncation):
    torch.manual_seed(0)
    model = PonderNet(pondernet_parity_model(8, 16, 20).step, 16, 20, halting_mass=0.05, mass_truncation=truncation)
    inputs, targets = torch.randn(16, 8), (torch.rand(16) > 0.5).float()
    out = model(inputs)
    assert out.halting_probs.shape[1] == int(out.steps.max())  # stops once every sample has reached its N
    losses = binary_step_losses(out.step_outputs, targets)
    loss = PonderNetLoss(0.2, 0.01, direction, 20, truncation)
    total, rec, kl = loss(losses, out.halting_probs, out.log_halting_probs, out.steps)
    by_sample = []  # the same, one sample at a time, with the library's un-batched KL
    for i, n in enumerate(out.steps.tolist()):
        p = out.halting_probs[i : i + 1, :n]
        by_sample.append(kl_to_geometric(p, 0.2, direction, truncation))
    assert kl.item() == pytest.approx(torch.stack(by_sample).mean().item(), rel=1e-4)
    assert rec.item() == pytest.approx((out.halting_probs * losses).sum(dim=1).mean().item())
    total.backward()
    assert all(parameter.grad is not None for parameter in model.parameters())


def test_an_explicit_tolerance_returns_p_uncut():
    model = PonderNet(pondernet_parity_model(8, 16, 6).step, 16, 6, halting_mass=0.05)
    out = model(torch.randn(4, 8), unroll_tolerance=0.0)
    assert out.steps is None and out.halting_probs.shape == (4, 6)


def test_a_parity_run_takes_the_papers_n_as_an_option():
    from ponderlib.tasks.parity import ParityConfig, build_parity_model, train_parity

    config = ParityConfig(n_elems=6, unroll="mass", unroll_eps=0.1, prior_truncation="last", max_updates=20, progress=False)
    model = build_parity_model(config)
    assert (model.halting_mass, model.mass_truncation, model.unroll_tolerance) == (0.1, "last", 0.1)
    assert build_parity_model(ParityConfig(n_elems=6)).halting_mass is None  # the book's default: cap
    assert train_parity(config).summary()["updates"] == 20
    for bad in ({"unroll": "per-batch"}, {"unroll_eps": 0.0}, {"unroll_eps": 1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ParityConfig(**bad).validate()
