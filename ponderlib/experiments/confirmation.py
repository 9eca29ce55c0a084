"""How a lesson's claims about its live runs are counted over seeds and confirmed, before a lesson holds
its live runs to them (the claims themselves: :data:`ponderlib.experiments.claims.LIVE_CLAIMS`).

A lesson trains a few seeds of a small setting and states what they show. Another CPU rounds matrix
products differently, and after a few thousand training updates that is another seed; so a sentence
about a live run is a claim about the setting, and it is counted over seeds twice:

1. over seeds 0-19, the preset's evidence (``evidence/NAME.jsonl``), where the claim was first seen;
2. over seeds 20-39, its confirmation set (``evidence/NAME-confirm.jsonl``), run after the claim and its
   threshold were fixed in :mod:`ponderlib.experiments.claims`, so neither could be chosen to fit those seeds.

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

from ponderlib.core.records import RunSummary
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.validation import ensure_type, short
from ponderlib.experiments.settings import CONFIRMATION_SEEDS
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
        claims: the lesson's claims about one live setting (:data:`~ponderlib.experiments.claims.LIVE_CLAIMS`).
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
        rows = [{key: RunSummary.of(run) for key, run in row.items()} for row in live]
        summaries = [summary for row in rows for summary in row.values()]
    else:
        rows = [RunSummary.of(run) for run in live]
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
