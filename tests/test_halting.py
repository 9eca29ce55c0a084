"""ACT's and PonderNet's halting distributions: values worked by hand, then properties."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ponderlib.mechanisms.halting import (
    PRIOR_TRUNCATIONS,
    act_halting,
    expected_ponder_steps,
    geometric_prior,
    pondernet_halting,
    pondernet_log_halting,
)

unit_floats = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, width=32)


def halting_matrices(max_rows: int = 6, max_ponder_steps: int = 8):
    """(B, N) matrices of values in [0, 1], including exact 0s and 1s."""
    return st.tuples(st.integers(1, max_rows), st.integers(1, max_ponder_steps)).flatmap(
        lambda shape: arrays("float32", shape, elements=st.one_of(st.sampled_from([0.0, 1.0]), unit_floats))
    )


class TestACTByHand:
    def test_crosses_on_third_step(self):
        # h = 0.1, 0.3, 0.7: sums 0.1, 0.4, 1.1 >= 0.99 at n = 3, so N = 3 and R = 1 - 0.4 = 0.6.
        out = act_halting(torch.tensor([[0.1, 0.3, 0.7, 0.5]]), eps=0.01)
        assert out.ponder_steps.tolist() == [3]
        assert out.remainder.item() == pytest.approx(0.6)
        assert out.halting_probs[0].tolist() == pytest.approx([0.1, 0.3, 0.6, 0.0])
        assert out.ponder_cost.item() == pytest.approx(3.6)

    def test_eps_lets_one_step_halt(self):
        # h_1 = 0.995 >= 1 - 0.01: halts after one step with R = 1 (nothing summed before N).
        out = act_halting(torch.tensor([[0.995, 0.2]]), eps=0.01)
        assert out.ponder_steps.tolist() == [1]
        assert out.remainder.item() == pytest.approx(1.0)
        assert out.ponder_cost.item() == pytest.approx(2.0)
        # With eps = 0 the same unit does not reach 1, so it needs a second step.
        assert act_halting(torch.tensor([[0.995, 0.2]]), eps=0.0).ponder_steps.tolist() == [2]

    def test_max_ponder_steps_cap(self):
        out = act_halting(torch.tensor([[0.1, 0.1, 0.1]]), eps=0.01)
        assert out.ponder_steps.tolist() == [3]
        assert out.remainder.item() == pytest.approx(0.8)
        assert out.halting_probs[0].tolist() == pytest.approx([0.1, 0.1, 0.8])

    def test_batch_rows_are_independent(self):
        h = torch.tensor([[0.1, 0.3, 0.7], [0.5, 0.6, 0.0], [1.0, 0.0, 0.0]])
        batched = act_halting(h)
        for row in range(3):
            alone = act_halting(h[row : row + 1])
            assert torch.equal(batched.ponder_steps[row : row + 1], alone.ponder_steps)
            assert torch.allclose(batched.halting_probs[row], alone.halting_probs[0])

    def test_only_remainder_carries_gradient(self):
        # rho = N + R and N is an integer: d rho / d h_n = -1 for n < N, 0 for n >= N.
        h = torch.tensor([[0.1, 0.3, 0.7, 0.5]], requires_grad=True)
        act_halting(h).ponder_cost.sum().backward()
        assert h.grad[0].tolist() == pytest.approx([-1.0, -1.0, 0.0, 0.0])


class TestPonderNetByHand:
    def test_known_values(self):
        # lambda = 0.5, 0.5, 0.5 (last absorbs): p = 0.5, 0.25, 0.25.
        p = pondernet_halting(torch.tensor([[0.5, 0.5, 0.5]]))
        assert p[0].tolist() == pytest.approx([0.5, 0.25, 0.25])
        # lambda = 0.2, 0.5, 0.9, x: p = 0.2, 0.8*0.5, 0.8*0.5*0.9, 0.8*0.5*0.1.
        p = pondernet_halting(torch.tensor([[0.2, 0.5, 0.9, 0.3]]))
        assert p[0].tolist() == pytest.approx([0.2, 0.4, 0.36, 0.04])

    def test_geometric_prior_tail_on_the_last_step(self):
        prior = geometric_prior(0.25, 4, truncation="last")
        expected = [0.25, 0.75 * 0.25, 0.75**2 * 0.25, 0.75**3]
        assert prior.tolist() == pytest.approx(expected)
        long = geometric_prior(0.2, 200, truncation="last")
        assert expected_ponder_steps(long.unsqueeze(0)).item() == pytest.approx(1 / 0.2, rel=1e-4)

    def test_geometric_prior_normalised_is_the_default(self):
        # p_G(n) = 0.25 * 0.75^(n-1), n = 1..4, divided by the mass kept 1 - 0.75^4.
        kept = 1 - 0.75**4
        expected = [0.25 / kept, 0.25 * 0.75 / kept, 0.25 * 0.75**2 / kept, 0.25 * 0.75**3 / kept]
        assert geometric_prior(0.25, 4).tolist() == pytest.approx(expected)
        assert torch.equal(geometric_prior(0.25, 4), geometric_prior(0.25, 4, truncation="normalised"))

    def test_tail_truncation_makes_the_cap_the_mode(self):
        # lambda_p = 0.1, N = 20: the tail 0.9^19 = 0.135 on step 20 outweighs p_G(1) = 0.1.
        last = geometric_prior(0.1, 20, truncation="last")
        assert last[-1].item() == pytest.approx(0.9**19, rel=1e-6)
        assert int(last.argmax()) == 19
        normalised = geometric_prior(0.1, 20, truncation="normalised")
        assert int(normalised.argmax()) == 0
        assert normalised[-1].item() == pytest.approx(0.1 * 0.9**19 / (1 - 0.9**20), rel=1e-6)

    @pytest.mark.parametrize("lambda_p", [0.05, 0.1, 0.3, 0.9, 1.0])
    @pytest.mark.parametrize("max_ponder_steps", [1, 3, 20])
    def test_prior_means_match_closed_forms(self, lambda_p, max_ponder_steps):
        q, n = 1 - lambda_p, max_ponder_steps
        last = (1 - q**n) / lambda_p
        normalised = 1 / lambda_p - n * q**n / (1 - q**n)
        for truncation, closed_form in (("last", last), ("normalised", normalised)):
            prior = geometric_prior(lambda_p, n, truncation=truncation)
            assert prior.sum().item() == pytest.approx(1.0, abs=1e-6)
            assert expected_ponder_steps(prior.unsqueeze(0)).item() == pytest.approx(closed_form, rel=1e-5)

    def test_expected_ponder_steps(self):
        assert expected_ponder_steps(torch.tensor([[0.5, 0.25, 0.25]])).item() == pytest.approx(1.75)


class TestProperties:
    @settings(max_examples=200, deadline=None)
    @given(halting_matrices(), st.sampled_from([0.0, 0.01, 0.1]))
    def test_act_invariants(self, h, eps):
        h = torch.from_numpy(h).double()  # float64 on both sides, so the brute force is exact
        out = act_halting(h, eps=eps)
        max_ponder_steps = h.shape[1]
        assert torch.all(out.halting_probs >= -1e-6)
        assert torch.allclose(out.halting_probs.sum(dim=1), torch.ones(h.shape[0], dtype=h.dtype))
        assert torch.all((out.ponder_steps >= 1) & (out.ponder_steps <= max_ponder_steps))
        assert torch.all((out.remainder > 0) & (out.remainder <= 1 + 1e-6))
        # N is the first step whose running sum crosses 1 - eps, brute force per sample.
        for row in range(h.shape[0]):
            running, n_expected = 0.0, max_ponder_steps
            for n in range(max_ponder_steps):
                running += float(h[row, n])
                if running >= 1 - eps:
                    n_expected = n + 1
                    break
            assert int(out.ponder_steps[row]) == n_expected

    @settings(max_examples=200, deadline=None)
    @given(halting_matrices())
    def test_pondernet_sums_to_one_and_matches_brute_force(self, lambdas):
        lam = torch.from_numpy(lambdas).double()
        p = pondernet_halting(lam)
        assert torch.all(p >= 0)
        assert torch.allclose(p.sum(dim=1), torch.ones(lam.shape[0], dtype=lam.dtype))
        for row in range(lam.shape[0]):
            for n in range(lam.shape[1]):
                halt = 1.0 if n == lam.shape[1] - 1 else float(lam[row, n])
                brute = halt * math.prod(1 - float(lam[row, j]) for j in range(n))
                assert float(p[row, n]) == pytest.approx(brute, abs=1e-12)

    @settings(max_examples=100, deadline=None)
    @given(halting_matrices())
    def test_gradients_finite_at_the_edges(self, values):
        lam = torch.from_numpy(values).requires_grad_()
        (pondernet_halting(lam) * torch.arange(1.0, lam.shape[1] + 1)).sum().backward()
        assert torch.isfinite(lam.grad).all()
        h = torch.from_numpy(values).requires_grad_()
        act_halting(h).ponder_cost.sum().backward()
        assert torch.isfinite(h.grad).all()


class TestLogHalting:
    def test_by_hand(self):
        # lambda = 0.2, 0.5, 0.9, x: p = 0.2, 0.4, 0.36, 0.04.
        log_p = pondernet_log_halting(torch.tensor([[0.2, 0.5, 0.9, 0.3]], dtype=torch.float64))
        assert log_p.exp()[0].tolist() == pytest.approx([0.2, 0.4, 0.36, 0.04], rel=1e-12)

    @settings(max_examples=100, deadline=None)
    @given(halting_matrices())
    def test_matches_the_log_of_p(self, lambdas):
        lam = torch.from_numpy(lambdas).double()
        log_p = pondernet_log_halting(lam)
        assert torch.isfinite(log_p).all()
        assert torch.allclose(log_p.exp(), pondernet_halting(lam), atol=1e-12)
        assert torch.allclose(torch.logsumexp(log_p, dim=1), torch.zeros(lam.shape[0], dtype=lam.dtype), atol=1e-9)

    def test_gradient_where_p_underflows(self):
        # lambda = 0.99 for 30 steps: p_30 = 0.01^29 = 1e-58 is 0 in float32, yet log p_30 =
        # 29 log 0.01 and d log p_30 / d lambda_j = -1 / (1 - lambda_j) = -100 for j < 30.
        lam = torch.full((1, 30), 0.99, requires_grad=True)
        assert pondernet_halting(lam.detach())[0, -1].item() == 0.0
        log_p = pondernet_log_halting(lam)
        assert log_p[0, -1].item() == pytest.approx(29 * math.log(0.01), rel=1e-4)
        log_p[0, -1].backward()
        assert lam.grad[0, :-1].tolist() == pytest.approx([-100.0] * 29, rel=1e-3)
        assert lam.grad[0, -1].item() == 0.0


class TestBadInput:
    @pytest.mark.parametrize("lambda_p", [0.0, -0.1, 1.5, float("nan")])
    def test_prior_lambda_p(self, lambda_p):
        with pytest.raises(ValueError, match="lambda_p"):
            geometric_prior(lambda_p, 5)

    def test_prior_max_ponder_steps(self):
        with pytest.raises(ValueError, match="max_ponder_steps"):
            geometric_prior(0.2, 0)

    def test_prior_truncation(self):
        assert PRIOR_TRUNCATIONS == ("normalised", "last")
        with pytest.raises(ValueError, match="truncation must be one of"):
            geometric_prior(0.2, 5, truncation="first")

    def test_rank(self):
        with pytest.raises(ValueError, match="halting_units must have rank 2"):
            act_halting(torch.tensor([0.1, 0.2]))
        with pytest.raises(ValueError, match="lambdas must have rank 2"):
            pondernet_halting(torch.zeros(2, 3, 4))

    def test_empty_batch(self):
        with pytest.raises(ValueError, match="empty batch"):
            pondernet_halting(torch.zeros(0, 3))

    def test_out_of_range_values(self):
        with pytest.raises(ValueError, match=r"lambdas must lie in \[0, 1\]"):
            pondernet_halting(torch.tensor([[0.5, 1.2]]))
        with pytest.raises(ValueError, match="eps"):
            act_halting(torch.tensor([[0.5, 0.2]]), eps=1.0)
