"""The claims each lesson makes about its live runs (:data:`LIVE_CLAIMS`), fixed here before their
confirmation sets (seeds 20-39) were run.

How each is counted over seeds 0-19 and over its confirmation set, and which a lesson then holds its live
runs to, is :mod:`ponderlib.experiments.confirmation`'s (:class:`LiveClaims`, :func:`check_live_claims`,
:func:`claim_ledger`, named here too, where the lessons import them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ponderlib.core.records import Curve
from ponderlib.experiments.confirmation import Claim as Claim
from ponderlib.experiments.confirmation import ClaimCheck as ClaimCheck
from ponderlib.experiments.confirmation import LiveClaims
from ponderlib.experiments.confirmation import check_live_claims as check_live_claims
from ponderlib.experiments.confirmation import claim_ledger as claim_ledger
from ponderlib.experiments.confirmation import claim_rates as claim_rates
from ponderlib.experiments.confirmation import confirmation_set as confirmation_set
from ponderlib.experiments.parity import HaltingSummary, distribution_mean
from ponderlib.experiments.pondernet import DifficultySummary
from ponderlib.experiments.settings import DEEP_START
from ponderlib.experiments.transformer import LEARNT_ACCURACY
from ponderlib.mechanisms.halting import geometric_prior
from ponderlib.sweep.presets import PRESETS

# Chapter 1: ACT on 8-element parity (b_h = 1), and ACT inside an RNN.

def _rise(run: Mapping) -> float:
    """Mean N(t) at the hardest difficulty minus at the easiest."""
    steps = run["ponder_steps_by_difficulty"]
    return steps[max(steps, key=int)] - steps[min(steps, key=int)]


def _span(run: Mapping) -> float:
    """How far mean N(t) moves across difficulties."""
    return max(run["ponder_steps_by_difficulty"].values()) - min(run["ponder_steps_by_difficulty"].values())


CH1_PARITY = LiveClaims(
    preset="act-parity-live",
    point={"halting_bias_init": 1.0},
    claims={
        "learns the task (held-out accuracy at least 0.95)": lambda run: run["final_accuracy"] >= 0.95,
        "ponders: more than 1.5 steps per vector on average": lambda run: run["mean_ponder_steps"] > 1.5,
        "ponders longer on harder vectors (r > 0)": lambda run: run["ponder_difficulty_correlation"] > 0,
        "N(t) at difficulty 8 within one step of N(t) at 1": lambda run: abs(_rise(run)) < 1.0,
    },
)

CH1_SEQUENCE = LiveClaims(
    preset="act-sequence-live",
    point={"tau": 1e-2},
    claims={
        "learns the task (test accuracy at least 0.95)": lambda run: run["test_accuracy"] >= 0.95,
        "mean N(t) moves by less than half a step across difficulties": lambda run: _span(run) < 0.5,
        "r(difficulty, N) below 0.2 (or N constant)": (
            lambda run: run["ponder_difficulty_correlation"] is None or run["ponder_difficulty_correlation"] < 0.2
        ),
    },
)

# Chapter 2: PonderNet (both KLs) and ACT on 8-element parity trained on 1 to 6 non-zero entries.

_PN_PAPER, _PN_REVERSE, _ACT = ("pondernet", "paper"), ("pondernet", "reverse"), ("act", "paper")
_CH2_MODELS = (_PN_PAPER, _PN_REVERSE, _ACT)
_CH2_TRAINED, _CH2_ELEMS = PRESETS["pondernet-parity-live"].fixed["max_nonzero"], PRESETS["pondernet-parity-live"].fixed["n_elems"]
_CH2_PRIOR_MEAN = distribution_mean(
    geometric_prior(PRESETS["pondernet-parity-live"].fixed["lambda_p"], PRESETS["pondernet-parity-live"].fixed["max_ponder_steps"])
)


def _measure(seed: Mapping, key: tuple) -> DifficultySummary:
    return DifficultySummary.of(seed[key])


CH2_MAIN = LiveClaims(
    preset="pondernet-parity-live",
    claims={
        f"every model reaches 0.95 accuracy on 1..{_CH2_TRAINED}": (
            lambda seed: min(_measure(seed, key).interpolation_accuracy for key in _CH2_MODELS) >= 0.95
        ),
        "with the paper's KL, $\\mathbb E[n]$ falls with difficulty ($r < 0$)": (
            lambda seed: _measure(seed, _PN_PAPER).expected_difficulty_correlation < 0
        ),
        "with the reverse KL, $\\mathbb E[n]$ grows with difficulty ($r > 0$)": (
            lambda seed: _measure(seed, _PN_REVERSE).expected_difficulty_correlation > 0
        ),
        "ACT's $\\mathbb E[n]$ grows with difficulty ($r > 0$)": (
            lambda seed: _measure(seed, _ACT).expected_difficulty_correlation > 0
        ),
        f"ACT's $\\mathbb E[n]$ moves less between 1 and {_CH2_TRAINED} non-zero entries than either PonderNet's": (
            lambda seed: _measure(seed, _ACT).expected_change
            < min(_measure(seed, _PN_PAPER).expected_change, _measure(seed, _PN_REVERSE).expected_change)
        ),
        "ACT runs fewer ponder steps per input at inference than either PonderNet": (
            lambda seed: _measure(seed, _ACT).ponder_steps
            < min(_measure(seed, _PN_PAPER).ponder_steps, _measure(seed, _PN_REVERSE).ponder_steps)
        ),
        f"PonderNet's learned mean $\\mathbb E[n]$ is above the prior's {_CH2_PRIOR_MEAN:.2f}, with either KL": (
            lambda seed: min(_measure(seed, _PN_PAPER).expected_ponder_steps, _measure(seed, _PN_REVERSE).expected_ponder_steps)
            > _CH2_PRIOR_MEAN
        ),
        f"every model is below 0.85 on {_CH2_TRAINED + 1}..{_CH2_ELEMS}": (
            lambda seed: max(_measure(seed, key).extrapolation_accuracy for key in _CH2_MODELS) < 0.85
        ),
        f"PonderNet with the paper's KL scores below 0.5 at {_CH2_ELEMS}": (
            lambda seed: _measure(seed, _PN_PAPER).hardest_accuracy < 0.5
        ),
        f"PonderNet with the reverse KL scores below 0.5 at {_CH2_ELEMS}": (
            lambda seed: _measure(seed, _PN_REVERSE).hardest_accuracy < 0.5
        ),
        f"ACT scores below 0.5 at {_CH2_ELEMS}": lambda seed: _measure(seed, _ACT).hardest_accuracy < 0.5,
        f"PonderNet (either KL) extrapolates no better than ACT on {_CH2_TRAINED + 1}..{_CH2_ELEMS}": (
            lambda seed: max(_measure(seed, key).extrapolation_accuracy for key in (_PN_PAPER, _PN_REVERSE))
            <= _measure(seed, _ACT).extrapolation_accuracy
        ),
    },
)

_PRIOR = PRESETS["pondernet-parity-prior-live"]
_TRUNCATION_PRIOR = 0.1
_LAST, _NORMALISED = ((_TRUNCATION_PRIOR, "last"), (_TRUNCATION_PRIOR, "normalised"))
_PRIOR_ON_CAP = {
    truncation: geometric_prior(_TRUNCATION_PRIOR, _PRIOR.fixed["max_ponder_steps"], truncation)[-1].item()
    for truncation in _PRIOR.grid["prior_truncation"]
}
_LAMBDA_PS = tuple(_PRIOR.grid["lambda_p"])
_NORMAL = [(value, "normalised") for value in _LAMBDA_PS]


def _halting(seed: Mapping, key: Any) -> HaltingSummary:
    return HaltingSummary.of(seed[key])


def _prior_mean(lambda_p: float) -> float:
    return distribution_mean(geometric_prior(lambda_p, _PRIOR.fixed["max_ponder_steps"]))


CH2_PRIOR = LiveClaims(
    preset="pondernet-parity-prior-live",
    claims={
        "the tail on the last step puts more mass on the cap than the normalised prior": (
            lambda seed: _halting(seed, _LAST).mass_on_cap > _halting(seed, _NORMALISED).mass_on_cap
        ),
        "... at least 1.5 times as much": (
            lambda seed: _halting(seed, _LAST).mass_on_cap >= 1.5 * _halting(seed, _NORMALISED).mass_on_cap
        ),
        "... and ponders longer ($\\mathbb E_p[n]$)": (
            lambda seed: _halting(seed, _LAST).expected_ponder_steps > _halting(seed, _NORMALISED).expected_ponder_steps
        ),
        "both put more than twice their prior's mass on the cap": lambda seed: all(
            _halting(seed, point).mass_on_cap > 2 * _PRIOR_ON_CAP[point[1]] for point in (_LAST, _NORMALISED)
        ),
        "the tail on the last step is no more accurate": (
            lambda seed: _halting(seed, _LAST).interpolation_accuracy
            <= _halting(seed, _NORMALISED).interpolation_accuracy
        ),
        f"the learned mean falls from $\\lambda_p$ = {_LAMBDA_PS[0]:g} to {_LAMBDA_PS[-1]:g}": (
            lambda seed: _halting(seed, _NORMAL[-1]).expected_ponder_steps < _halting(seed, _NORMAL[0]).expected_ponder_steps
        ),
        "... at every step of the grid": lambda seed: all(
            _halting(seed, larger).expected_ponder_steps < _halting(seed, smaller).expected_ponder_steps
            for smaller, larger in zip(_NORMAL, _NORMAL[1:])
        ),
        "... and so do the ponder steps at inference": (
            lambda seed: _halting(seed, _NORMAL[-1]).mean_ponder_steps < _halting(seed, _NORMAL[0]).mean_ponder_steps
        ),
        "the learned mean is above the prior's at every $\\lambda_p \\ge 0.2$": lambda seed: all(
            _halting(seed, point).expected_ponder_steps > _prior_mean(point[0]) for point in _NORMAL if point[0] >= 0.2
        ),
        f"... and at $\\lambda_p$ = {_LAMBDA_PS[0]:g}": (
            lambda seed: _halting(seed, _NORMAL[0]).expected_ponder_steps > _prior_mean(_LAMBDA_PS[0])
        ),
        f"PonderNet reaches 0.9 accuracy at every $\\lambda_p$ (in {_PRIOR.max_updates} updates)": (
            lambda seed: min(_halting(seed, point).interpolation_accuracy for point in _NORMAL) >= 0.9
        ),
    },
)

_TAUS = tuple(PRESETS["act-parity-small-tau-live"].grid["tau"])

CH2_TAU = LiveClaims(
    preset="act-parity-small-tau-live",
    claims={
        f"ACT's ponder steps at inference fall from $\\tau$ = {_TAUS[0]:g} to {_TAUS[-1]:g}": (
            lambda seed: _halting(seed, _TAUS[-1]).mean_ponder_steps < _halting(seed, _TAUS[0]).mean_ponder_steps
        ),
        f"ACT stays below 0.8 accuracy at every $\\tau$ (in {PRESETS['act-parity-small-tau-live'].max_updates} updates)": (
            lambda seed: max(_halting(seed, tau).interpolation_accuracy for tau in _TAUS) < 0.8
        ),
    },
)

_TAIL = 8  # "the tail": ponder steps after 8

CH2_KL = LiveClaims(
    preset="pondernet-parity-kl-live",
    claims={
        "the reverse KL keeps more than 1.5 times the paper's mass on step 1": (
            lambda seed: _halting(seed, "reverse").mass_on(1) > 1.5 * _halting(seed, "paper").mass_on(1)
        ),
        f"... and more mass after step {_TAIL}": (
            lambda seed: _halting(seed, "reverse").mass_after(_TAIL) > _halting(seed, "paper").mass_after(_TAIL)
        ),
        "the paper's direction gathers more than half its mass on steps 2 to 4": (
            lambda seed: _halting(seed, "paper").mass_on(2, 4) > 0.5
        ),
        "the paper's direction is at least as accurate as the reverse": (
            lambda seed: _halting(seed, "paper").interpolation_accuracy
            >= _halting(seed, "reverse").interpolation_accuracy
        ),
    },
)

# Chapter 3: sorting, the decoders compared, convex hulls.

CH3_SORT = LiveClaims(
    preset="pointer-sort-live",
    point={"decoder": "pointer"},
    claims={
        "exact match on arrays of 10 (the longest trained) is at least 0.98": (
            lambda run: run["exact_match_by_length"]["10"] >= 0.98
        ),
        "exact match on arrays of 20 (twice the longest trained) is at least 0.90": (
            lambda run: run["exact_match_by_length"]["20"] >= 0.90
        ),
        "exact match is lower on arrays of 20 than on arrays of 10": (
            lambda run: run["exact_match_by_length"]["20"] < run["exact_match_by_length"]["10"]
        ),
    },
)


def _exact(seed: Mapping, decoder: str) -> float:
    return seed[decoder]["exact_match"]


CH3_DECODERS = LiveClaims(
    preset="pointer-sort-decoders-live",
    claims={
        "the pointer sorts at least 95% of the test arrays exactly": lambda seed: _exact(seed, "pointer") >= 0.95,
        "the better seq2seq decoder sorts at least 0.2 fewer exactly than the pointer": (
            lambda seed: max(_exact(seed, "seq2seq"), _exact(seed, "bahdanau")) <= _exact(seed, "pointer") - 0.2
        ),
        "Bahdanau's attention sorts more arrays exactly than seq2seq without it": (
            lambda seed: _exact(seed, "bahdanau") > _exact(seed, "seq2seq")
        ),
        "... or places more elements right (element accuracy)": (
            lambda seed: seed["bahdanau"]["element_accuracy"] > seed["seq2seq"]["element_accuracy"]
        ),
    },
)

CH3_HULL = LiveClaims(
    preset="pointer-hull-live",
    point={"hidden": 64},
    claims={
        "exact hulls on 5 points: accuracy at least 0.6": lambda run: run["exact_match_by_points"]["5"] >= 0.6,
        "exact hulls on 10 points (the most trained): accuracy at least 0.4": lambda run: run["exact_match_by_points"]["10"] >= 0.4,
        "accuracy falls from 5 to 10 to 20 points": (
            lambda run: run["exact_match_by_points"]["5"] > run["exact_match_by_points"]["10"] > run["exact_match_by_points"]["20"]
        ),
        "area coverage on 10 points at least 0.95": lambda run: run["area_coverage"]["10"] >= 0.95,
        "area coverage on 20 points (twice the most trained) at least 0.90": lambda run: run["area_coverage"]["20"] >= 0.90,
        "held-out accuracy still rising when the budget ends (last evaluation above the middle one)": (
            lambda run: Curve.of(run["curve"]).rising_at_end("accuracy")
        ),
    },
)

# Chapter 4: the Universal Transformer on assignment chains.

_GRAVES, _DEEP, _FIXED, _PONDERNET = ("act", 1.0), ("act", DEEP_START), ("fixed", 1.0), ("pondernet", 1.0)
_UT_MODELS = (_GRAVES, _DEEP, _FIXED, _PONDERNET)

CH4_MAIN = LiveClaims(
    preset="ut-chains-live",
    claims={
        "the fixed depth reaches 0.97 accuracy or more": lambda seed: seed[_FIXED]["test_accuracy"] >= 0.97,
        "PonderNet reaches 0.97 accuracy or more": lambda seed: seed[_PONDERNET]["test_accuracy"] >= 0.97,
        "ACT with Graves' bias learns the chains (accuracy 0.95 or more)": (
            lambda seed: seed[_GRAVES]["test_accuracy"] >= LEARNT_ACCURACY
        ),
        "ACT with a deep start learns the chains": lambda seed: seed[_DEEP]["test_accuracy"] >= LEARNT_ACCURACY,
        "a deep start is at least as accurate as Graves' bias": (
            lambda seed: seed[_DEEP]["test_accuracy"] >= seed[_GRAVES]["test_accuracy"]
        ),
        "with a deep start, ACT's ponder steps grow with the depth, within each position too (r > 0)": (
            lambda seed: min(seed[_DEEP]["test_depth_correlation"], seed[_DEEP]["test_depth_correlation_given_position"]) > 0
        ),
        "ACT with a deep start is at least as accurate as the fixed depth": (
            lambda seed: seed[_DEEP]["test_accuracy"] >= seed[_FIXED]["test_accuracy"]
        ),
        "PonderNet's expected steps follow the depth more closely than its sampled steps": (
            lambda seed: seed[_PONDERNET]["test_expected_depth_correlation"] > seed[_PONDERNET]["test_depth_correlation"]
        ),
        "longer programs cost every method accuracy": (
            lambda seed: all(seed[k]["longer_accuracy"] < seed[k]["test_accuracy"] for k in _UT_MODELS)
        ),
        "beyond 4 hops every method's accuracy is at most 0.65": (
            lambda seed: all(seed[k]["unseen_depth_accuracy"] <= 0.65 for k in _UT_MODELS)
        ),
        "ACT (deep start) ponders more on chains 5 to 7 hops deep than on one-hop positions": (
            lambda seed: seed[_DEEP]["unseen_depth_ponder_steps"] > seed[_DEEP]["ponder_steps_by_depth"]["1"]
        ),
        "ACT (deep start) loses less accuracy on longer programs than the fixed depth": (
            lambda seed: seed[_DEEP]["test_accuracy"] - seed[_DEEP]["longer_accuracy"]
            < seed[_FIXED]["test_accuracy"] - seed[_FIXED]["longer_accuracy"]
        ),
    },
)

_UT_TAUS = PRESETS["ut-chains-tau-live"].grid["tau"]

CH4_TAU = LiveClaims(
    preset="ut-chains-tau-live",
    claims={
        f"tau = {_UT_TAUS[0]:g} ponders at least one step more than tau = {_UT_TAUS[-1]:g}": (
            lambda seed: seed[_UT_TAUS[0]]["test_ponder_steps"] >= seed[_UT_TAUS[-1]]["test_ponder_steps"] + 1.0
        ),
        f"tau = {_UT_TAUS[0]:g} is more accurate than tau = {_UT_TAUS[-1]:g}": (
            lambda seed: seed[_UT_TAUS[0]]["test_accuracy"] > seed[_UT_TAUS[-1]]["test_accuracy"]
        ),
    },
)

LIVE_CLAIMS: dict[str, LiveClaims] = {
    "ch1-parity": CH1_PARITY,
    "ch1-sequence": CH1_SEQUENCE,
    "ch2-main": CH2_MAIN,
    "ch2-prior": CH2_PRIOR,
    "ch2-tau": CH2_TAU,
    "ch2-kl": CH2_KL,
    "ch3-sort": CH3_SORT,
    "ch3-decoders": CH3_DECODERS,
    "ch3-hull": CH3_HULL,
    "ch4-main": CH4_MAIN,
    "ch4-tau": CH4_TAU,
}
"""Every lesson's claims about its live runs, by lesson and setting: fixed before the confirmation sets
(seeds 20-39) were run."""
