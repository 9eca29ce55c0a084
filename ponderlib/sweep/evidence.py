"""The committed evidence, read back: ``evidence/NAME.jsonl``, the runs of the preset ``NAME``
(:data:`~ponderlib.sweep.presets.PRESETS`), as :class:`Evidence`.

A chapter reads its headline numbers from here, so they are the same on every machine, and counts
in how many seeds a claim about its live setting holds (:meth:`Evidence.rate`) before it asserts that
claim about its own live run::

    evidence = Evidence.load("act-parity-live")
    learns = evidence.rate(
        lambda run: run["final_accuracy"] >= 0.95, halting_bias_init=3.0
    )
    print(learns)  # "20 of 20 seeds"
    # At least 19 of 20: a claim a live run may assert.
    assert learns.holds_in_most_seeds

The folder is ``PONDERLIB_EVIDENCE`` when set, else the ``evidence/`` folder of the repository
``ponderlib`` was loaded from (a clone, or the copy ``make book`` executes), else the copy a pip install
puts under ``<prefix>/share/ponderlib/evidence`` (on Colab, say).
"""

from __future__ import annotations

import math
import os
import site
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from ponderlib.core.engine import run_summary, short
from ponderlib.core.validation import check_int
from ponderlib.sweep.presets import PRESETS, Preset
from ponderlib.sweep.results import load_results
from ponderlib.sweep.spec import make_spec

EVIDENCE_VARIABLE = "PONDERLIB_EVIDENCE"
"""The environment variable naming the evidence folder (default: ``evidence/`` beside the package)."""

MOST_SEEDS = Fraction(19, 20)
"""The share of seeds a claim must hold in before a live run may assert it."""


def evidence_folder() -> Path:
    """Where the evidence files are: ``$PONDERLIB_EVIDENCE``; else ``evidence/`` in the repository
    that holds this ``ponderlib``; else the copy installed with it (``<prefix>/share/ponderlib/evidence``,
    the ``data-files`` of pyproject.toml); else the repository's folder, missing."""
    configured = os.environ.get(EVIDENCE_VARIABLE)
    if configured:
        return Path(configured)
    checkout = Path(__file__).resolve().parents[2] / "evidence"
    installed = [Path(prefix) / "share" / "ponderlib" / "evidence" for prefix in (sys.prefix, site.USER_BASE) if prefix]
    return next((folder for folder in [checkout, *installed] if folder.is_dir()), checkout)


@dataclass(frozen=True)
class Rate:
    """In how many runs (one per seed) a claim held: ``holds`` of ``runs``."""

    holds: int
    runs: int

    def __post_init__(self) -> None:
        check_int("runs", self.runs, minimum=0)
        check_int("holds", self.holds, minimum=0, maximum=self.runs)

    @property
    def fraction(self) -> float:
        """``holds / runs``; ``ValueError`` for no runs (``Rate(0, 0)``: no seed was there to count)."""
        if self.runs == 0:
            raise ValueError("a rate over no runs has no fraction: no seed of the evidence was counted")
        return self.holds / self.runs

    @property
    def holds_in_most_seeds(self) -> bool:
        """At least 19 of every 20 runs (:data:`MOST_SEEDS`), over 20 runs or more: a claim a live run of
        this setting may assert. Fewer runs (evidence still being written) never suffice."""
        return self.runs >= MOST_SEEDS.denominator and Fraction(self.holds, self.runs) >= MOST_SEEDS

    def __str__(self) -> str:
        return f"{self.holds} of {self.runs} seeds"


def metric(summary: Mapping[str, Any], name: str) -> Any:
    """One entry of a run's summary; ``"accuracy_by_difficulty.8"`` reads inside a mapping.

    Raises:
        KeyError: naming the metric and the summary's entries, when it has no such entry.
    """
    value: Any = summary
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(f"metric {name!r} is not in this summary (it has {', '.join(sorted(summary))})")
        value = value[part]
    return value


@cache
def _planned_configs(name: str) -> dict[int, list[dict]]:
    """Seed -> the config dicts of the preset ``name``'s runs at that seed, as a sweep of it writes them."""
    spec = PRESETS[name].spec()
    planned: dict[int, list[dict]] = {}
    for run in make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs:
        planned.setdefault(run.seed, []).append(run.config.to_dict())
    return planned


def check_preset_records(name: str, records: list[dict], path: str | os.PathLike) -> None:
    """Raise ``ValueError`` naming the file ``path`` and the preset ``name`` unless every record is a run
    of that preset as it stands: its task the preset's, and its config (seed included) one of those
    the preset's spec gives. So a file never mixes two presets' runs (not even a preset's and its
    confirmation set's, ``NAME-confirm``: the same settings at other seeds), and a stale file (the
    preset changed since) is named, not read."""
    preset, planned = PRESETS[name], _planned_configs(name)
    for record in records:
        task, seed = record["task"], record["seed"]
        if task != preset.task or record["config"] not in planned.get(seed, []):
            raise ValueError(
                f"results file {str(path)!r} holds a run that is not one of the preset {name!r} as it stands "
                f"(task {short(repr(task))}, seed {short(repr(seed))}, point {short(repr(record['point']))}): a results "
                f"file holds one preset's runs as it stands; give another file, or move this one away and run `make evidence PRESET={name}`"
            )


@dataclass(frozen=True)
class Evidence:
    """The finished runs of one preset, read from its evidence file.

    Attributes:
        name: the preset's name.
        preset: the :class:`~ponderlib.sweep.presets.Preset` itself.
        records: the results file's records (task, point, seed, config, summary, source), as written.
    """

    name: str
    preset: Preset
    records: list[dict]

    def __repr__(self) -> str:
        return f"Evidence({self.name!r}: {len(self.records)} of {self.preset.runs} runs)"

    @classmethod
    def load(cls, name: str, folder: str | os.PathLike | None = None) -> Evidence:
        """The evidence of the preset ``name``, from ``folder`` (default :func:`evidence_folder`).

        Raises:
            TypeError: ``name`` is not a string.
            ValueError: ``name`` is not a preset, or its file holds a run that is not one of the preset
                as it stands (:func:`check_preset_records`).
            FileNotFoundError: its file is missing, naming the command that makes it.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a preset's name (a str), got {type(name).__name__}")
        if name not in PRESETS:
            raise ValueError(f"name must be one of the presets {', '.join(map(repr, PRESETS))}; got {name!r}")
        path = Path(evidence_folder() if folder is None else folder) / f"{name}.jsonl"
        if not path.is_file():
            raise FileNotFoundError(
                f"no evidence file {str(path)!r}: run `make evidence PRESET={name}` in a clone of the repository, "
                f"or set {EVIDENCE_VARIABLE} to the folder that holds it"
            )
        records = load_results(path)
        check_preset_records(name, records, path)
        return cls(name, PRESETS[name], records)

    @property
    def complete(self) -> bool:
        """Whether every planned run (grid points times seeds) is in the file."""
        return len(self.records) == self.preset.runs

    def summaries(self) -> list[dict]:
        """The summaries of every run, at every grid point, in the file's order."""
        return [record["summary"] for record in self.records]

    def runs(self, **point: Any) -> list[dict]:
        """The summaries of the runs at the grid point ``point`` (every grid field named), seed order.

        Raises:
            ValueError: ``point`` does not name exactly the preset's grid fields, or no run is there.
        """
        if set(point) != set(self.preset.grid):
            raise ValueError(f"point must name the grid fields {sorted(self.preset.grid)} of {self.name!r}, got {sorted(point)}")
        found = sorted((r for r in self.records if r["point"] == point), key=lambda r: r["seed"])
        if not found:
            raise ValueError(f"no run of {self.name!r} at {point}; its grid is {self.preset.grid}")
        return [record["summary"] for record in found]

    def finished(self, **point: Any) -> bool:
        """Whether every seed of the grid point ``point`` (every grid field named) is in the file: while a
        set grows, a reader takes a point's runs only once they are all there.

        Raises:
            ValueError: ``point`` does not name exactly the preset's grid fields.
        """
        if set(point) != set(self.preset.grid):
            raise ValueError(f"point must name the grid fields {sorted(self.preset.grid)} of {self.name!r}, got {sorted(point)}")
        seeds = {record["seed"] for record in self.records if record["point"] == point}
        return seeds >= set(self.preset.seeds)

    def values(self, name: str, **point: Any) -> list[Any]:
        """One metric (:func:`metric`) of every run at ``point``, seed order."""
        return [metric(summary, name) for summary in self.runs(**point)]

    def rate(self, claim: Callable[[dict], bool], **point: Any) -> Rate:
        """In how many runs at ``point`` ``claim(summary)`` is true."""
        runs = self.runs(**point)
        return Rate(sum(bool(claim(summary)) for summary in runs), len(runs))

    def by_seed(self) -> dict[int, dict[Any, dict]]:
        """Seed -> {grid point -> summary}; a point is its value when the grid has one field, else the
        tuple of its values in grid order. For claims that compare grid points within a seed."""
        fields = list(self.preset.grid)
        table: dict[int, dict[Any, dict]] = {}
        for record in sorted(self.records, key=lambda r: r["seed"]):
            values = tuple(record["point"][name] for name in fields)
            table.setdefault(record["seed"], {})[values[0] if len(values) == 1 else values] = record["summary"]
        return table

    def rate_by_seed(self, claim: Callable[[dict[Any, dict]], bool]) -> Rate:
        """In how many seeds ``claim(points)`` is true, ``points`` being that seed's :meth:`by_seed` row;
        seeds missing a grid point are left out."""
        rows = [row for row in self.by_seed().values() if len(row) == math.prod(map(len, self.preset.grid.values()))]
        return Rate(sum(bool(claim(row)) for row in rows), len(rows))

    def cost(self) -> dict[str, Any]:
        """What the evidence cost and where it ran: ``runs``, ``updates`` (per run, the largest),
        ``cpu_minutes`` (training seconds summed over runs, one thread each), ``devices``,
        ``threads``, ``torch``, ``ponderlib`` and ``commits`` (each a sorted list of the values seen)."""
        summaries = self.summaries()

        def seen(key: str) -> list:
            return sorted({str(summary.get(key)) for summary in summaries})

        return {
            "runs": len(summaries),
            "updates": max((summary["updates"] for summary in summaries), default=0),
            "cpu_minutes": sum(summary["seconds"] * summary.get("torch_threads", 1) for summary in summaries) / 60,
            "devices": seen("device_name"),
            "threads": seen("torch_threads"),
            "torch": seen("torch_version"),
            "ponderlib": seen("ponderlib_version"),
            "commits": sorted({record.get("source", {}).get("git_commit", "unknown")[:7] for record in self.records}),
        }

    def describe(self) -> str:
        """One Markdown sentence: the command, the runs (and how many are still to come, while the set
        grows), the budget, the cost and the machine."""
        if not self.records:
            return f"`make evidence PRESET={self.name}`: none of its {self.preset.runs} runs yet."
        cost = self.cost()
        grid = ", ".join(f"{name} in {{{', '.join(map(str, values))}}}" for name, values in self.preset.grid.items())
        runs = f"{cost['runs']} runs" if self.complete else f"{cost['runs']} of its {self.preset.runs} runs so far"
        return (
            f"`make evidence PRESET={self.name}`: {runs} ({grid}, seeds {min(self.preset.seeds)} to "
            f"{max(self.preset.seeds)}), {cost['updates']:,} training updates each, {cost['cpu_minutes']:.0f} CPU-minutes "
            f"of training on {', '.join(cost['devices'])} ({', '.join(cost['threads'])} thread per run, torch "
            f"{', '.join(cost['torch'])}), ponderlib {', '.join(cost['ponderlib'])} at commit {', '.join(cost['commits'])}."
        )


Claim = Callable[[dict], bool]
"""A claim about one run: ``summary -> bool`` (or, checked per seed, ``{grid point: summary} -> bool``)."""


@dataclass(frozen=True)
class ClaimCheck:
    """What :func:`check_claims` found: each claim's rate in the evidence and whether the live runs were held to it.

    Attributes:
        evidence: the evidence the rates come from.
        rates: claim text -> :class:`Rate` in the evidence.
        asserted: the claims the live runs were held to (those with :attr:`Rate.holds_in_most_seeds`),
            empty when the live runs are not of the evidence's setting.
        same_setting: whether the live runs are runs of the evidence's setting (seeds aside).
        live_runs: how many live runs (or seeds) were checked.
    """

    evidence: Evidence
    rates: dict[str, Rate]
    asserted: list[str]
    same_setting: bool
    live_runs: int

    def markdown(self) -> str:
        """The claims as a Markdown table: each claim, in how many seeds of the evidence it holds, and
        whether the live runs above were held to it."""
        def verdict(text: str) -> str:
            if text in self.asserted:
                return "yes: holds in the live run" if self.live_runs == 1 else f"yes: holds in all {self.live_runs} live runs"
            if not self.same_setting:
                return "no: the live runs are not of this setting"
            if self.rates[text].runs < MOST_SEEDS.denominator:
                return f"no: only {self.rates[text].runs} seeds in the evidence"
            return "no: below 19 of 20"

        rows = [f"| {text} | {rate} | {verdict(text)} |" for text, rate in self.rates.items()]
        return "\n".join(["| claim | in the evidence | checked on the live runs |", "| --- | --- | --- |", *rows])

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __repr__(self) -> str:
        return self.markdown()


def _setting(config: Mapping[str, Any]) -> dict:
    return {name: value for name, value in config.items() if name != "seed"}


def check_claims(
    evidence: Evidence, claims: Mapping[str, Claim], live: list, *, per_seed: bool = False, **point: Any
) -> ClaimCheck:
    """Count each claim's seeds in ``evidence``, and hold the live runs to the claims that hold in at
    least 19 of 20 (:attr:`Rate.holds_in_most_seeds`); the others are only reported.

    Args:
        evidence: the live setting's evidence (its preset runs it over 20 seeds or more).
        claims: claim text -> ``summary -> bool``.
        live: the live runs: summaries (or results with a ``summary()``) at ``point``; with
            ``per_seed``, one ``{grid point: summary or result}`` per seed, and each claim takes such a row.
        per_seed: claims compare grid points within a seed (:meth:`Evidence.rate_by_seed`).
        point: the grid point the claims are about (not with ``per_seed``).

    The live runs are held to nothing when they are not runs of the evidence's setting (a GPU-scale
    budget, say): the table says so.

    Raises:
        AssertionError: naming the claim, its rate and the live run, when a claim that holds in at
            least 19 of 20 seeds of the evidence fails in a live run.
        TypeError: naming the argument, when ``evidence`` is not an :class:`Evidence`, ``claims`` not a
            mapping of texts to callables, or ``live`` not a list.
        ValueError: ``claims`` or ``live`` is empty: nothing would be checked, yet a table would say
            what was.
    """
    if not isinstance(evidence, Evidence):
        raise TypeError(f"evidence must be an Evidence (Evidence.load(NAME)), got {type(evidence).__name__}")
    if not isinstance(claims, Mapping):
        raise TypeError(f"claims must be a mapping of claim text -> callable, got {type(claims).__name__}")
    for text, claim in claims.items():
        if not isinstance(text, str) or not callable(claim):
            raise TypeError(f"claims must map each claim's text (a str) to a callable, got {short(repr(text))}: {type(claim).__name__}")
    if isinstance(live, (str, bytes, Mapping)) or not isinstance(live, Sequence):
        raise TypeError(f"live must be a list of the live runs, got {type(live).__name__}")
    if not claims:
        raise ValueError("claims must hold at least one claim, got none: nothing would be checked")
    if not live:
        raise ValueError("live must hold at least one live run, got none: nothing would be checked")
    if per_seed:
        for index, row in enumerate(live):
            if not isinstance(row, Mapping):
                raise TypeError(f"live[{index}] must be a mapping {{grid point: run}} with per_seed, got {type(row).__name__}")
        rows = [{key: run_summary(run) for key, run in row.items()} for row in live]
        rates = {text: evidence.rate_by_seed(claim) for text, claim in claims.items()}
        live_summaries = [s for row in rows for s in row.values()]
    else:
        rows = [run_summary(run) for run in live]
        rates = {text: evidence.rate(claim, **point) for text, claim in claims.items()}
        live_summaries = rows
    settings = [_setting(record["config"]) for record in evidence.records]
    same_setting = bool(live_summaries) and all(_setting(s["config"]) in settings for s in live_summaries)
    asserted = [text for text, rate in rates.items() if same_setting and rate.holds_in_most_seeds]
    for text in asserted:
        for row in rows:
            if not claims[text](row):
                seeds = sorted({s["seed"] for s in row.values()}) if per_seed else [row["seed"]]
                raise AssertionError(f"{text!r} holds in {rates[text]} of {evidence.name!r} but not in the live run of seed {seeds[0]}")
    return ClaimCheck(evidence, rates, asserted, same_setting, len(rows))
