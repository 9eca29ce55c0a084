"""Losses: KL against a brute-force sum, the expected loss's gradient, numerics at the edges."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ponderlib.mechanisms.halting import geometric_prior, pondernet_halting, pondernet_log_halting
from ponderlib.mechanisms.losses import (
    ACTLoss,
    PonderNetLoss,
    kl_to_geometric,
    reconstruction_loss,
    step_price,
)


def brute_force_kl(p: list[float], q: list[float]) -> float:
    """sum_n p_n log(p_n / q_n) with 0 log 0 = 0, in float64."""
    return sum(pn * math.log(pn / qn) for pn, qn in zip(p, q) if pn > 0)


class TestKL:
    @pytest.mark.parametrize(
        "truncation, prior", [("last", [0.4, 0.24, 0.36]), ("normalised", [0.4 / 0.784, 0.24 / 0.784, 0.144 / 0.784])]
    )
    def test_both_directions_against_brute_force(self, truncation, prior):
        p = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
        assert geometric_prior(0.4, 3, truncation).tolist() == pytest.approx(prior)
        paper = kl_to_geometric(p, 0.4, "paper", truncation).item()
        reverse = kl_to_geometric(p, 0.4, "reverse", truncation).item()
        assert paper == pytest.approx(brute_force_kl([0.5, 0.3, 0.2], prior), rel=1e-6)
        assert reverse == pytest.approx(brute_force_kl(prior, [0.5, 0.3, 0.2]), rel=1e-6)

    @pytest.mark.parametrize("truncation", ["last", "normalised"])
    def test_zero_when_p_is_the_prior(self, truncation):
        p = geometric_prior(0.3, 6, truncation).unsqueeze(0)
        for direction in ("paper", "reverse"):
            assert kl_to_geometric(p, 0.3, direction, truncation).item() == pytest.approx(0.0, abs=1e-6)

    def test_a_zero_costs_27_6_nats_per_unit_of_prior_mass(self):
        # Reverse KL of a point mass on step 1: p_G(n) log(p_G(n) / 1e-12) for n >= 2.
        p = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
        prior = geometric_prior(0.5, 3).double()
        expected = prior[0] * math.log(prior[0]) + sum(prior[n] * (math.log(prior[n]) + 27.631021) for n in (1, 2))
        assert kl_to_geometric(p, 0.5, "reverse").item() == pytest.approx(float(expected), rel=1e-6)
        assert -math.log(1e-12) == pytest.approx(27.631021)

    def test_directions_differ_on_a_point_mass(self):
        # All mass on step 1: the paper's KL is -log p_G(1) = -log 0.2; the reverse is huge,
        # because the prior has mass on steps where p has none.
        p = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
        assert kl_to_geometric(p, 0.2, "paper", "last").item() == pytest.approx(-math.log(0.2), rel=1e-5)
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
        log_p = pondernet_log_halting(lam)
        total, rec, kl = PonderNetLoss(lambda_p, 0.01, direction, p.shape[1])(step_losses, p, log_p)
        total.backward()
        assert torch.isfinite(total) and torch.isfinite(rec) and torch.isfinite(kl)
        assert kl.item() >= -1e-5
        assert torch.isfinite(lam.grad).all()

    def test_reverse_gradient_is_non_zero_where_p_is_tiny(self):
        # lambda = 0.9 for 20 steps: p_n = 0.9 * 0.1^(n-1) is below 1e-12 from n = 13 on. By hand,
        # KL(p_G || p) = const - sum_n p_G(n) log p_n, so for k < N
        #   d KL / d lambda_k = -p_G(k) / lambda_k + sum_{n>k} p_G(n) / (1 - lambda_k).
        lam = torch.full((1, 20), 0.9, dtype=torch.float64, requires_grad=True)
        loss = PonderNetLoss(0.2, beta=1.0, direction="reverse", max_ponder_steps=20)
        step_losses = torch.zeros(1, 20, dtype=torch.float64)
        kl = loss(step_losses, pondernet_halting(lam), pondernet_log_halting(lam))[2]
        kl.backward()
        prior = geometric_prior(0.2, 20).double()
        by_hand = [-prior[k] / 0.9 + prior[k + 1 :].sum() / 0.1 for k in range(19)] + [0.0]
        assert torch.isfinite(lam.grad).all()
        assert lam.grad[0].tolist() == pytest.approx([float(g) for g in by_hand], rel=1e-9)
        assert (lam.grad[0, 12:19].abs() > 1e-3).all()  # where p_n < 1e-12
        # The clamped log of p (no log p given) loses exactly those gradients.
        clamped = lam.detach().clone().requires_grad_()
        loss(step_losses, pondernet_halting(clamped))[2].backward()
        assert clamped.grad[0, 13:19].abs().max().item() < lam.grad[0, 13:19].abs().min().item()

    def test_prior_is_truncated_at_max_ponder_steps_not_at_the_unroll(self):
        # An unroll that stopped after 3 of 20 steps: the paper's KL uses p_G(1..3) of the prior cut at 20.
        p = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
        prior = geometric_prior(0.1, 20, "normalised").double().tolist()
        loss = PonderNetLoss(0.1, beta=1.0, direction="paper", max_ponder_steps=20)
        kl = loss(torch.zeros_like(p), p)[2].item()
        assert kl == pytest.approx(brute_force_kl([0.5, 0.3, 0.2], prior[:3]), rel=1e-6)
        assert kl != pytest.approx(kl_to_geometric(p, 0.1, "paper").item(), rel=1e-3)
        reverse = PonderNetLoss(0.1, beta=1.0, direction="reverse", max_ponder_steps=20)
        with pytest.raises(ValueError, match="halting_probs must cover all max_ponder_steps = 20"):
            reverse(torch.zeros_like(p), p)

    def test_bad_arguments(self):
        p = torch.tensor([[0.5, 0.5]])
        with pytest.raises(ValueError, match="lambda_p must be in"):
            kl_to_geometric(p, 0.0)
        with pytest.raises(ValueError, match="direction must be one of"):
            kl_to_geometric(p, 0.5, "forward")
        with pytest.raises(ValueError, match="beta"):
            PonderNetLoss(0.5, beta=-1.0)
        with pytest.raises(ValueError, match="truncation must be one of"):
            PonderNetLoss(0.5, beta=0.01, truncation="first")


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
        assert ACTLoss(tau=0.1)(torch.tensor(0.5), torch.tensor([2.0, 4.0])).item() == pytest.approx(0.8)

    @pytest.mark.parametrize("tau", [-0.01, float("nan"), float("inf")])
    def test_bad_tau(self, tau):
        with pytest.raises(ValueError, match="tau must be a finite number >= 0"):
            ACTLoss(tau=tau)


def test_step_price_by_hand_and_as_the_kl_charges_it():
    # beta * -log(1 - lambda_p): 0.01 * 0.22314 at lambda_p = 0.2; 0.01 * 0.35667 at 0.3 (chapter 2's live prior).
    assert step_price(0.2, 0.01) == pytest.approx(0.0022314, abs=1e-7)
    assert step_price(0.3, 0.01) == pytest.approx(0.0035667, abs=1e-7)
    assert step_price(0.5, 0.0) == 0.0
    # A network certain to halt at step n has no entropy: KL(p || p_G) = -log p_G(n), and one step later
    # costs exactly the price more, whichever n, with the normalised prior.
    for n in (1, 4, 9):
        here, later = torch.zeros(1, 12), torch.zeros(1, 12)
        here[0, n - 1], later[0, n] = 1.0, 1.0
        extra = kl_to_geometric(later.double(), 0.2, "paper") - kl_to_geometric(here.double(), 0.2, "paper")
        assert 0.01 * extra.item() == pytest.approx(step_price(0.2, 0.01), rel=1e-6)
    with pytest.raises(ValueError, match=r"lambda_p must be in \(0, 1\) for a finite price"):
        step_price(1.0, 0.01)
    with pytest.raises(ValueError, match=r"lambda_p must be in \(0, 1\]"):
        step_price(0.0, 0.01)
    with pytest.raises(ValueError, match="beta"):
        step_price(0.2, -0.1)


def test_kl_optimal_halting_by_hand_and_against_a_brute_force_minimiser():
    from ponderlib.mechanisms.halting import geometric_prior
    from ponderlib.mechanisms.losses import kl_optimal_halting

    prior = torch.tensor([0.5, 0.25, 0.25], dtype=torch.float64)
    # Equal losses leave the prior; two steps by hand: p1 / p2 = (g1 / g2) exp((L2 - L1) / beta).
    assert torch.allclose(kl_optimal_halting(torch.full((3,), 0.7, dtype=torch.float64), prior, 0.01), prior)
    optimum = kl_optimal_halting(torch.tensor([0.0, 0.01, 0.02], dtype=torch.float64), prior, 0.01)
    assert optimum[0] / optimum[1] == pytest.approx(2 * math.e) and optimum[1] / optimum[2] == pytest.approx(math.e)
    # Brute force: minimise L . p + beta KL(p || prior) over the simplex by gradient descent on logits.
    torch.manual_seed(0)
    losses = torch.rand(4, 6, dtype=torch.float64)
    prior = geometric_prior(0.3, 6).double()
    logits = torch.zeros(4, 6, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.Adam([logits], lr=0.05)
    for _ in range(3000):
        p = torch.softmax(logits, dim=1)
        objective = (p * losses).sum() + 0.2 * (p * (torch.log(p) - torch.log(prior))).sum()
        optimiser.zero_grad()
        objective.backward()
        optimiser.step()
    assert torch.allclose(torch.softmax(logits, dim=1), kl_optimal_halting(losses, prior, 0.2), atol=1e-5)
    # A large beta gives back the prior; losses growing with n pull the mean below the prior's.
    assert torch.allclose(kl_optimal_halting(losses, prior, 1e6), prior.expand(4, 6), atol=1e-5)
    steps = torch.arange(1, 7, dtype=torch.float64)
    growing = kl_optimal_halting(0.01 * steps, prior, 0.01)
    assert (growing * steps).sum() < (prior * steps).sum()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f, g: f(torch.zeros(2, 3), g, 0.0), "beta"),
        (lambda f, g: f(torch.zeros(2, 4), g, 0.01), "step_losses must end in the prior's 3 steps"),
        (lambda f, g: f(torch.tensor([0.0, float("nan"), 0.0]), g, 0.01), "step_losses must be finite"),
        (lambda f, g: f(torch.zeros(3), torch.tensor([0.5, 0.5, 0.5]), 0.01), "prior must sum to one"),
        (lambda f, g: f(torch.zeros(3), torch.tensor([1.5, -0.5, 0.0]), 0.01), "prior"),
        (lambda f, g: f([0.0, 0.0, 0.0], g, 0.01), "step_losses must be a torch.Tensor"),
    ],
)
def test_kl_optimal_halting_refuses_what_it_cannot_compute(call, message):
    from ponderlib.mechanisms.losses import kl_optimal_halting

    with pytest.raises((ValueError, TypeError), match=message):
        call(kl_optimal_halting, torch.tensor([0.5, 0.25, 0.25]))


class TestLossModules:
    """The losses are modules: settings checked once in the constructor, the prior a buffer that
    follows ``.to()``, the forward the paper's equation written out, bit for bit."""

    def test_one_api_per_equation(self):
        import ponderlib
        import ponderlib.mechanisms.losses as losses

        for name in ("act_loss", "pondernet_loss"):  # the one-call twins of ACTLoss and PonderNetLoss
            assert not hasattr(losses, name) and not hasattr(ponderlib, name) and name not in ponderlib.__all__
        assert issubclass(ACTLoss, torch.nn.Module) and issubclass(PonderNetLoss, torch.nn.Module)

    def test_the_prior_is_a_buffer_that_follows_to_and_stays_out_of_the_state_dict(self):
        loss = PonderNetLoss(0.2, 0.01, max_ponder_steps=5)
        assert dict(loss.named_buffers()).keys() == {"prior"}
        assert torch.equal(loss.prior, geometric_prior(0.2, 5)) and loss.prior.dtype == torch.float32
        assert loss.state_dict() == {} and ACTLoss(0.1).state_dict() == {}  # nothing to save: the settings build it
        assert loss.to(torch.float64) is loss and loss.prior.dtype == torch.float64
        assert torch.equal(loss.prior, geometric_prior(0.2, 5).double())
        assert loss.to("meta").prior.is_meta
        assert repr(PonderNetLoss(0.2, 0.01)) == (
            "PonderNetLoss(lambda_p=0.2, beta=0.01, direction=paper, max_ponder_steps=20, truncation=normalised)"
        )
        assert repr(ACTLoss(0.01)) == "ACTLoss(tau=0.01)"

    def test_a_loss_left_on_another_device_is_refused_naming_the_fix(self):
        loss = PonderNetLoss(0.2, 0.01, max_ponder_steps=3).to("meta")  # the prior elsewhere, as on a GPU
        p = torch.tensor([[0.5, 0.3, 0.2]])
        with pytest.raises(ValueError, match=r"^halting_probs is on cpu but the loss's prior on meta: .*\.to\(device\)"):
            loss(torch.ones(1, 3), p)

    @pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
    @pytest.mark.parametrize("direction", ["paper", "reverse"])
    def test_forward_is_banino_eq_3_written_out_bit_for_bit(self, direction, dtype):
        # Hand-worked p and L: L_Rec = sum_n p_n L_n, averaged; KL(p || p_G) or KL(p_G || p), averaged.
        p = torch.tensor([[0.5, 0.3, 0.2], [0.25, 0.25, 0.5]], dtype=dtype)
        losses = torch.tensor([[0.7, 0.2, 0.1], [1.5, 0.0, 0.3]], dtype=dtype)
        prior = geometric_prior(0.3, 3).to(dtype)
        log_p, log_prior = torch.log(p), torch.log(prior)
        rec = (p * losses).sum(dim=1).mean()
        kl = (p * (log_p - log_prior) if direction == "paper" else prior * (log_prior - log_p)).sum(dim=1).mean()
        total, got_rec, got_kl = PonderNetLoss(0.3, 0.05, direction, max_ponder_steps=3)(losses, p, log_p)
        assert torch.equal(got_rec, rec) and torch.equal(got_kl, kl) and torch.equal(total, rec + 0.05 * kl)
        assert torch.equal(got_rec, reconstruction_loss(losses, p))  # L_Rec through the one function
        assert rec.item() == pytest.approx((0.35 + 0.06 + 0.02 + 0.375 + 0.0 + 0.15) / 2)

    def test_act_loss_is_graves_eq_12_averaged_bit_for_bit(self):
        task = torch.tensor(0.5, dtype=torch.float64)
        cost = torch.tensor([4.2, 2.0, 5.8], dtype=torch.float64)
        assert torch.equal(ACTLoss(0.01)(task, cost), task + 0.01 * cost.mean())

    def test_reconstruction_loss_unchecked_is_the_same_number_and_reads_no_value(self):
        p = torch.tensor([[0.5, 0.25, 0.25], [1.0, 0.0, 0.0]])
        losses = torch.tensor([[2.0, 4.0, 8.0], [3.0, 100.0, 100.0]])
        assert torch.equal(reconstruction_loss(losses, p, check=False), reconstruction_loss(losses, p))
        bad = torch.tensor([[0.5, 0.2, 0.2]])  # not a distribution: refused when checked, not read otherwise
        assert reconstruction_loss(torch.ones(1, 3), bad, check=False).item() == pytest.approx(0.9)
        with pytest.raises(ValueError, match="^halting_probs must have rows summing to 1"):
            reconstruction_loss(torch.ones(1, 3), bad)
