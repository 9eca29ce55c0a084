"""The claims each lesson makes about its live runs, fixed here before their confirmation sets were run.

A lesson trains a few seeds of a small setting and states what they show. Another CPU rounds matrix
products differently, and after a few thousand training updates that is another seed; so a sentence
about a live run is a claim about the setting, and it is counted over seeds twice:

1. over seeds 0-19, the preset's evidence (``evidence/NAME.jsonl``), where the claim was first seen;
2. over seeds 20-39, its confirmation set (``evidence/NAME-confirm.jsonl``), run after the claim and its
   threshold were fixed in this module, so neither could be chosen to fit those seeds.

A lesson asserts a claim about its live runs only where it held in all 20 seeds of the confirmation
set, and not where it fails in the committed run of a seed the lesson replays (:func:`check_live_claims`);
every other claim is reported with both rates.
A claim true in 90 % of seeds passes 19 of 20 seeds about 39 % of the time, and all 20 of 20 about 12 %.

Each claim takes one seed's runs: its row of :meth:`~ponderlib.sweep.evidence.Evidence.by_seed`
(``{grid point: summary}``), or, for :attr:`LiveClaims.point`, the summary of that one grid point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ponderlib.core.engine import run_summary, short
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.validation import ensure_type
from ponderlib.experiments.parity import HaltingSummary, distribution_mean
from ponderlib.experiments.pointer import still_rising
from ponderlib.experiments.pondernet import DifficultySummary
from ponderlib.experiments.settings import CONFIRMATION_SEEDS, DEEP_START
from ponderlib.experiments.transformer import LEARNT_ACCURACY
from ponderlib.mechanisms.halting import geometric_prior
from ponderlib.sweep.evidence import Evidence, Rate, held
from ponderlib.sweep.presets import CONFIRMATION_SUFFIX, PRESETS

Claim = Callable[[Any], bool]
"""A claim about one seed: its summary at :attr:`LiveClaims.point`, else its row ``{grid point: summary}``."""


@dataclass(frozen=True)
class LiveClaims:
    """The claims a lesson makes about one live setting.

    Attributes:
        preset: the live setting's preset (seeds 0-19); its confirmation set is :attr:`confirmation`.
        claims: claim text -> :data:`Claim`.
        point: the grid point every claim is about (each claim then takes that point's summary), or
            ``None``: each claim takes a seed's whole row, to compare grid points within a seed.
    """

    preset: str
    claims: Mapping[str, Claim]
    point: Mapping[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str):
            raise TypeError(f"preset must be a preset's name (a str), got {type(self.preset).__name__}")
        if self.preset not in PRESETS or self.confirmation not in PRESETS:
            raise ValueError(f"preset must be a live preset with a confirmation set, got {self.preset!r}")
        if self.point is not None:
            if not isinstance(self.point, Mapping):
                raise TypeError(f"point must be a mapping of grid fields to values, or None; got {type(self.point).__name__}")
            for name in (self.preset, self.confirmation):  # a point either set has no run at is never counted
                PRESETS[name].check_point(self.point, f" of {name!r}")
        if not isinstance(self.claims, Mapping):
            raise TypeError(f"claims must be a mapping of claim text -> callable, got {type(self.claims).__name__}")
        for text, claim in self.claims.items():
            if not isinstance(text, str) or not callable(claim):
                raise TypeError(f"claims must map each claim's text (a str) to a callable, got {text!r}: {type(claim).__name__}")
        if not self.claims:
            raise ValueError("claims must hold at least one claim, got none: nothing would be checked")

    @property
    def confirmation(self) -> str:
        """The preset of the confirmation set: the same setting at seeds 20-39."""
        return self.preset + CONFIRMATION_SUFFIX


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
            lambda seed: min(_measure(seed, key).accuracy for key in (_PN_PAPER, _PN_REVERSE, _ACT)) >= 0.95
        ),
        "with the paper's KL, $\\mathbb E[n]$ falls with difficulty ($r < 0$)": lambda seed: _measure(seed, _PN_PAPER).trend < 0,
        "with the reverse KL, $\\mathbb E[n]$ grows with difficulty ($r > 0$)": lambda seed: _measure(seed, _PN_REVERSE).trend > 0,
        "ACT's $\\mathbb E[n]$ grows with difficulty ($r > 0$)": lambda seed: _measure(seed, _ACT).trend > 0,
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
            lambda seed: max(_measure(seed, key).extrapolation for key in (_PN_PAPER, _PN_REVERSE, _ACT)) < 0.85
        ),
        f"PonderNet with the paper's KL scores below 0.5 at {_CH2_ELEMS}": lambda seed: _measure(seed, _PN_PAPER).hardest < 0.5,
        f"PonderNet with the reverse KL scores below 0.5 at {_CH2_ELEMS}": lambda seed: _measure(seed, _PN_REVERSE).hardest < 0.5,
        f"ACT scores below 0.5 at {_CH2_ELEMS}": lambda seed: _measure(seed, _ACT).hardest < 0.5,
        f"PonderNet (either KL) extrapolates no better than ACT on {_CH2_TRAINED + 1}..{_CH2_ELEMS}": (
            lambda seed: max(_measure(seed, _PN_PAPER).extrapolation, _measure(seed, _PN_REVERSE).extrapolation)
            <= _measure(seed, _ACT).extrapolation
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
            lambda seed: _halting(seed, _LAST).accuracy <= _halting(seed, _NORMALISED).accuracy
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
            lambda seed: min(_halting(seed, point).accuracy for point in _NORMAL) >= 0.9
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
            lambda seed: max(_halting(seed, tau).accuracy for tau in _TAUS) < 0.8
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
            lambda seed: _halting(seed, "paper").accuracy >= _halting(seed, "reverse").accuracy
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
        "exact hulls on 5 points: accuracy at least 0.6": lambda run: run["accuracy"]["5"] >= 0.6,
        "exact hulls on 10 points (the most trained): accuracy at least 0.4": lambda run: run["accuracy"]["10"] >= 0.4,
        "accuracy falls from 5 to 10 to 20 points": (
            lambda run: run["accuracy"]["5"] > run["accuracy"]["10"] > run["accuracy"]["20"]
        ),
        "area coverage on 10 points at least 0.95": lambda run: run["area_coverage"]["10"] >= 0.95,
        "area coverage on 20 points (twice the most trained) at least 0.90": lambda run: run["area_coverage"]["20"] >= 0.90,
        "held-out accuracy still rising when the budget ends (last evaluation above the middle one)": (
            lambda run: still_rising(run["curve"], "accuracy")
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


@dataclass(frozen=True)
class ClaimCheck:
    """What :func:`check_live_claims` found: each claim's rate over seeds 0-19 and over the confirmation
    set, and which claims the live runs were held to.

    Attributes:
        claims: the :class:`LiveClaims` checked.
        first: claim text -> :class:`~ponderlib.sweep.evidence.Rate` over seeds 0-19 (the preset's evidence).
        confirmed: claim text -> its rate over seeds 20-39 (the confirmation set).
        asserted: the claims that held in every seed of a complete confirmation set, which every live
            run was then held to (none when the live runs are not runs of the setting), less those of
            ``replayed_failures``.
        same_setting: whether the live runs are runs of the setting (seeds aside).
        live_runs: how many live runs (or seeds' rows) were checked.
        replayed_failures: confirmed claim -> the live seeds whose committed run (seeds 0-19) fails it:
            the live run replays that run, so the claim is reported, not asserted.
    """

    claims: LiveClaims
    first: dict[str, Rate]
    confirmed: dict[str, Rate]
    asserted: list[str]
    same_setting: bool
    live_runs: int
    replayed_failures: dict[str, list[int]] = field(default_factory=dict)

    def markdown(self) -> str:
        """The claims as a Markdown table: each claim, its rate over seeds 0-19 and over seeds 20-39,
        and whether the live runs were held to it."""
        def held(text: str) -> str:
            if text in self.asserted:
                return "yes" if self.live_runs == 1 else f"yes, all {self.live_runs}"
            if not self.same_setting:
                return "no: not this setting"
            if text in self.replayed_failures:
                seeds = ", ".join(map(str, self.replayed_failures[text]))
                return f"no: it fails in the committed run of seed {seeds}, which the live runs replay"
            return "no: reported only"

        rows = [f"| {text} | {self.first[text]} | {self.confirmed[text]} | {held(text)} |" for text in self.claims.claims]
        header = "| claim | seeds 0-19 | seeds 20-39 (run after the claim was fixed) | asserted on the live runs |"
        return "\n".join([header, "| --- | --- | --- | --- |", *rows])

    def _repr_markdown_(self) -> str:
        return self.markdown()


def confirmation_set(claims: LiveClaims) -> Evidence:
    """The confirmation set of ``claims`` as committed so far: empty before its first run."""
    try:
        return Evidence.load(claims.confirmation)
    except FileNotFoundError:
        return Evidence(claims.confirmation, PRESETS[claims.confirmation], [])


def claim_rates(claims: LiveClaims, evidence: Evidence) -> dict[str, Rate]:
    """Each claim's :class:`~ponderlib.sweep.evidence.Rate` over the seeds of ``evidence`` (the
    preset's or its confirmation set's); none of none where it holds no run yet. ``ValueError`` naming
    ``evidence`` when it is another preset's (whose grid may be the same: its rates would pass for these)."""
    ensure_type("claims", claims, LiveClaims)
    ensure_type("evidence", evidence, Evidence)
    if evidence.name not in (claims.preset, claims.confirmation):
        raise ValueError(
            f"evidence must be {claims.preset!r}'s or its confirmation set's ({claims.confirmation!r}), got {evidence.name!r}'s"
        )
    if not evidence.records:
        return {text: Rate(0, 0) for text in claims.claims}
    if claims.point is not None:
        return {text: evidence.rate(claim, **claims.point) for text, claim in claims.claims.items()}
    return {text: evidence.rate_by_seed(claim) for text, claim in claims.claims.items()}


def check_live_claims(claims: LiveClaims, live: Sequence[Any]) -> ClaimCheck:
    """Count each claim over seeds 0-19 and over its confirmation set, and hold the live runs to the
    claims that held in all 20 seeds of the confirmation set, except a claim that fails in the committed
    run of a seed the live runs train (they replay it, so it would fail where the evidence ran); the
    others are reported with their rates.

    Args:
        claims: the lesson's claims about one live setting (:data:`LIVE_CLAIMS`).
        live: the live runs: with :attr:`LiveClaims.point`, summaries (or results with ``summary()``)
            of that point; else one ``{grid point: summary or result}`` per seed.

    Raises:
        TypeError: ``claims`` is not a :class:`LiveClaims`, or ``live`` is not a sequence.
        ValueError: ``live`` is empty.
        AssertionError: naming the claim, its rates and the live seed, when a confirmed claim fails.
    """
    if not isinstance(claims, LiveClaims):
        raise TypeError(f"claims must be a LiveClaims (see LIVE_CLAIMS), got {type(claims).__name__}")
    if not isinstance(live, Sequence) or isinstance(live, (str, bytes)):
        raise TypeError(f"live must be a sequence of runs, got {type(live).__name__}")
    if not live:  # nothing would be checked, and the table would read as if it had been
        raise ValueError("live must hold at least one run: there is nothing to hold to the claims")
    evidence, confirmation = Evidence.load(claims.preset), confirmation_set(claims)
    first, confirmed = claim_rates(claims, evidence), claim_rates(claims, confirmation)
    if claims.point is None:
        for index, row in enumerate(live):
            if not isinstance(row, Mapping) or "config" in row:  # a run's own summary is no row of runs
                what = "a run's summary" if isinstance(row, Mapping) else type(row).__name__
                raise TypeError(f"live[{index}] must be a mapping {{grid point: run}} for claims per seed, got {what}")
        rows = [{key: run_summary(run) for key, run in row.items()} for row in live]
        summaries = [summary for row in rows for summary in row.values()]
    else:
        rows = [run_summary(run) for run in live]
        summaries = rows
    _check_live_seeds(claims, rows)
    settings = [_setting(record["config"]) for record in evidence.records]
    same_setting = bool(summaries) and all(_setting(summary["config"]) in settings for summary in summaries)
    confirmed_everywhere = [
        text for text, rate in confirmed.items()
        if same_setting and confirmation.complete and rate.runs == len(CONFIRMATION_SEEDS) and rate.holds == rate.runs
    ]
    replayed_failures = _replayed_failures(claims, evidence, rows, confirmed_everywhere)
    asserted = [text for text in confirmed_everywhere if text not in replayed_failures]
    for text in asserted:
        for index, row in enumerate(rows):
            try:
                holds = held(claims.claims[text], row)
            except KeyError as exc:  # a grid point a row lacks, or an entry a run's summary lacks
                raise ValueError(f"live[{index}] holds no {exc.args[0]!r}, which the claim {text!r} reads") from None
            if not holds:
                seed = _live_seed(claims, row)
                raise AssertionError(
                    f"{text!r} held in {first[text]} (0-19) and {confirmed[text]} (20-39) of {claims.preset!r}, "
                    f"but not in the live run of seed {seed}"
                )
    return ClaimCheck(claims, first, confirmed, asserted, same_setting, len(rows), replayed_failures)


def _replayed_failures(
    claims: LiveClaims, evidence: Evidence, rows: list, texts: list[str]
) -> dict[str, list[int]]:
    """Of the claims ``texts``, those that fail in the committed run (seeds 0-19) of a seed the live runs
    train, with those seeds: a live run of that seed replays the committed one, so asserting the claim
    would fail on the machine the evidence ran on, however often it holds elsewhere."""
    seeds = sorted({_live_seed(claims, row) for row in rows})
    if claims.point is None:
        committed = {seed: row for seed, row in evidence.by_seed().items() if seed in seeds}
    else:
        committed = {run["seed"]: run for run in evidence.runs(**claims.point) if run["seed"] in seeds}
    failures = {
        text: [seed for seed in sorted(committed) if not held(claims.claims[text], committed[seed])] for text in texts
    }
    return {text: failed for text, failed in failures.items() if failed}


def _check_live_seeds(claims: LiveClaims, rows: list) -> None:
    """``ValueError`` naming ``live`` unless every live run's summary has a ``config`` (a mapping) and a
    ``seed`` (an integer in ``[0, SEED_MAX]``, the config's), a row per seed holds at least one run, all
    of one seed, and no seed comes twice: a seed counted twice would count its claims twice."""
    seeds = []
    for index, row in enumerate(rows):
        runs = list(row.values()) if claims.point is None else [row]
        if not runs:
            raise ValueError(f"live[{index}] must hold at least one grid point's run, got none")
        for run in runs:
            config, seed = run.get("config"), run.get("seed")
            if not isinstance(config, Mapping):
                raise ValueError(f"live[{index}] must be a run's summary with its config (a mapping), got {short(repr(config))}")
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX or config.get("seed") != seed:
                raise ValueError(f"live[{index}] must have a seed, an integer in [0, {SEED_MAX}] (its config's), got {short(repr(seed))}")
        if len({run["seed"] for run in runs}) != 1:
            raise ValueError(f"live[{index}] must hold one seed's runs, got seeds {sorted({run['seed'] for run in runs})}")
        seeds.append(runs[0]["seed"])
    twice = sorted({seed for seed in seeds if seeds.count(seed) > 1})
    if twice:
        raise ValueError(f"live must hold each seed's run once, got seed {twice[0]} twice")


def _live_seed(claims: LiveClaims, row: Any) -> int:
    return next(iter(row.values()))["seed"] if claims.point is None else row["seed"]


def _setting(config: Mapping[str, Any]) -> dict:
    return {name: value for name, value in config.items() if name != "seed"}


def claim_ledger(claims: LiveClaims) -> str:
    """The claims about one live setting as a Markdown table for a reproduction report: each claim, its
    rate over seeds 0-19 and over the confirmation set, and whether it is confirmed (it held in every
    seed of the complete confirmation set), the condition for a lesson to assert it on its live runs."""
    if not isinstance(claims, LiveClaims):
        raise TypeError(f"claims must be a LiveClaims (see LIVE_CLAIMS), got {type(claims).__name__}")
    first = claim_rates(claims, Evidence.load(claims.preset))
    confirmation = confirmation_set(claims)
    confirmed = claim_rates(claims, confirmation)

    def held(rate: Rate) -> str:
        if not confirmation.complete:
            return f"not yet: {len(confirmation.records)} of {confirmation.preset.runs} confirmation runs"
        return "yes" if rate.runs == len(CONFIRMATION_SEEDS) and rate.holds == rate.runs else "no"

    rows = [f"| {text} | {first[text]} | {confirmed[text]} | {held(confirmed[text])} |" for text in claims.claims]
    header = "| claim | seeds 0-19 | seeds 20-39 (run after the claim was fixed) | confirmed: held in all 20 |"
    return "\n".join([header, "| --- | --- | --- | --- |", *rows])
