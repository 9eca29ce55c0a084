"""Losses: KL against a brute-force sum, the expected loss's gradient, numerics at the edges."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ponderlib.halting import geometric_prior, pondernet_halting
from ponderlib.losses import act_loss, kl_to_geometric, pondernet_loss, reconstruction_loss


def brute_force_kl(p: list[float], q: list[float]) -> float:
    """sum_n p_n log(p_n / q_n) with 0 log 0 = 0, in float64."""
    return sum(pn * math.log(pn / qn) for pn, qn in zip(p, q) if pn > 0)


class TestKL:
    def test_paper_direction_against_brute_force(self):
        p = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
        prior = geometric_prior(0.4, 3).double().tolist()  # 0.4, 0.24, 0.36
        assert prior == pytest.approx([0.4, 0.24, 0.36])
        expected = brute_force_kl([0.5, 0.3, 0.2], prior)
        assert kl_to_geometric(p, 0.4, "paper").item() == pytest.approx(expected, rel=1e-9)

    def test_reverse_direction_against_brute_force(self):
        p = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
        prior = geometric_prior(0.4, 3).double().tolist()
        expected = brute_force_kl(prior, [0.5, 0.3, 0.2])
        assert kl_to_geometric(p, 0.4, "reverse").item() == pytest.approx(expected, rel=1e-6)

    def test_zero_when_p_is_the_prior(self):
        p = geometric_prior(0.3, 6).unsqueeze(0)
        for direction in ("paper", "reverse"):
            assert kl_to_geometric(p, 0.3, direction).item() == pytest.approx(0.0, abs=1e-6)

    def test_directions_differ_on_a_point_mass(self):
        # All mass on step 1: the paper's KL is -log p_G(1) = -log 0.2; the reverse is huge,
        # because the prior has mass on steps where p has none.
        p = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
        assert kl_to_geometric(p, 0.2, "paper").item() == pytest.approx(-math.log(0.2), rel=1e-5)
        assert kl_to_geometric(p, 0.2, "reverse").item() > 10 * kl_to_geometric(p, 0.2, "paper").item()

    @settings(max_examples=100, deadline=None)
    @given(
        arrays("float32", st.tuples(st.integers(1, 4), st.integers(1, 7)), elements=st.sampled_from([0.0, 1.0, 0.5, 0.01, 0.99])),
        st.sampled_from([0.05, 0.2, 0.5, 1.0]),
        st.sampled_from(["paper", "reverse"]),
    )
    def test_finite_value_and_gradient_at_the_edges(self, lambdas, lambda_p, direction):
        lam = torch.from_numpy(lambdas).requires_grad_()
        p = pondernet_halting(lam)
        step_losses = torch.rand(p.shape, generator=torch.Generator().manual_seed(0))
        total, rec, kl = pondernet_loss(step_losses, p, lambda_p, beta=0.01, direction=direction)
        total.backward()
        assert torch.isfinite(total) and torch.isfinite(rec) and torch.isfinite(kl)
        assert kl.item() >= -1e-5
        assert torch.isfinite(lam.grad).all()

    def test_bad_arguments(self):
        p = torch.tensor([[0.5, 0.5]])
        with pytest.raises(ValueError, match="lambda_p must be in"):
            kl_to_geometric(p, 0.0)
        with pytest.raises(ValueError, match="direction must be one of"):
            kl_to_geometric(p, 0.5, "forward")
        with pytest.raises(ValueError, match="beta"):
            pondernet_loss(p, p, 0.5, beta=-1.0)


class TestReconstruction:
    def test_expected_loss_by_hand(self):
        p = torch.tensor([[0.5, 0.25, 0.25], [1.0, 0.0, 0.0]])
        losses = torch.tensor([[2.0, 4.0, 8.0], [3.0, 100.0, 100.0]])
        # (0.5*2 + 0.25*4 + 0.25*8 + 1*3) / 2 = (4 + 3) / 2
        assert reconstruction_loss(losses, p).item() == pytest.approx(3.5)

    def test_gradient_matches_hand_derivation(self):
        # L = sum_n p_n L_n with p_n = lambda_n prod_{j<n}(1 - lambda_j) (last absorbs). For N = 3:
        # p = (l1, (1-l1) l2, (1-l1)(1-l2)), so
        # dL/dl1 = L1 - l2 L2 - (1-l2) L3 ;  dL/dl2 = (1-l1) (L2 - L3) ;  dL/dl3 = 0.
        l1, l2, l3 = 0.3, 0.6, 0.9
        L1, L2, L3 = 1.5, 0.7, 0.2
        lam = torch.tensor([[l1, l2, l3]], dtype=torch.float64, requires_grad=True)
        reconstruction_loss(torch.tensor([[L1, L2, L3]], dtype=torch.float64), pondernet_halting(lam)).backward()
        expected = [L1 - l2 * L2 - (1 - l2) * L3, (1 - l1) * (L2 - L3), 0.0]
        assert lam.grad[0].tolist() == pytest.approx(expected, rel=1e-12)

    def test_shape_mismatch(self):
        with pytest.raises(ValueError, match="same shape"):
            reconstruction_loss(torch.ones(2, 3), torch.ones(2, 4) / 4)


class TestACTLoss:
    def test_by_hand(self):
        assert act_loss(torch.tensor(0.5), torch.tensor([2.0, 4.0]), tau=0.1).item() == pytest.approx(0.8)

    @pytest.mark.parametrize("tau", [-0.01, float("nan"), float("inf")])
    def test_bad_tau(self, tau):
        with pytest.raises(ValueError, match="tau must be a finite number >= 0"):
            act_loss(torch.tensor(0.5), torch.tensor([2.0]), tau=tau)
