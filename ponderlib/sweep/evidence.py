"""The committed evidence, read back: ``evidence/NAME.jsonl``, the runs of the preset ``NAME``
(:data:`~ponderlib.sweep.presets.PRESETS`), as :class:`Evidence`.

A chapter reads its headline numbers from here, so they are the same on every machine, and counts
in how many seeds a claim holds (:meth:`Evidence.rate`)::

    evidence = Evidence.load("act-parity-live")
    learns = evidence.rate(
        lambda run: run["final_accuracy"] >= 0.95, halting_bias_init=3.0
    )
    print(learns)  # "20 of 20 seeds"

Which claims a lesson asserts about its own live runs is :func:`ponderlib.experiments.claims.check_live_claims`'s
rule: those that held in every seed of a confirmation set run after the claim was fixed.

The folder is ``PONDERLIB_EVIDENCE`` when set, else the ``evidence/`` folder of the repository
``ponderlib`` was loaded from (a clone, or the copy ``make book`` executes), else the copy a pip install
puts under ``<prefix>/share/ponderlib/evidence`` (on Colab, say).
"""

from __future__ import annotations

import math
import os
import site
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy

from ponderlib.core.records import summary_number, summary_value
from ponderlib.core.validation import check_int, ensure_path, short
from ponderlib.sweep.presets import PRESETS
from ponderlib.sweep.results import load_results
from ponderlib.sweep.spec import Preset, expand_grid, make_spec

EVIDENCE_VARIABLE = "PONDERLIB_EVIDENCE"
"""The environment variable naming the evidence folder (default: ``evidence/`` beside the package)."""

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

    def __str__(self) -> str:
        return f"{self.holds} of {self.runs} seeds"


def ensure_claim(claim: object) -> None:
    """``TypeError`` unless ``claim`` is callable (a claim is a function of a run's summary, or of a seed's row)."""
    if not callable(claim):
        raise TypeError(f"claim must be a function of a run's summary returning a bool, got {type(claim).__name__}")


def held(claim: Callable[[Any], Any], run: Any) -> bool:
    """``claim(run)``, which must be a bool (numpy's too): ``TypeError`` naming what it returned otherwise,
    where ``bool()`` would have counted any non-empty string, non-zero number or object as holding."""
    verdict = claim(run)
    if not isinstance(verdict, (bool, numpy.bool_)):
        raise TypeError(f"claim must return a bool (True where it holds), returned {short(repr(verdict))} ({type(verdict).__name__})")
    return bool(verdict)


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


def at_point(record: Mapping[str, Any], point: Mapping[str, Any]) -> bool:
    """Whether ``record`` is the run at the grid point ``point`` (every grid field named): its point holds
    the grid fields its method uses (:func:`~ponderlib.sweep.spec.make_spec`), so a field it leaves out
    matches every value (ACT's run in a grid that crosses ``method`` with ``kl_direction``)."""
    return all(record["point"].get(name, value) == value for name, value in point.items())


def _check_preset_name(name: object) -> None:
    """``TypeError`` unless ``name`` is a str, ``ValueError`` unless it names a preset."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a preset's name (a str), got {type(name).__name__}")
    if name not in PRESETS:
        raise ValueError(f"name must be one of the presets {', '.join(map(repr, PRESETS))}; got {name!r}")


def check_preset_records(name: str, records: list[dict], path: str | os.PathLike) -> None:
    """Raise ``ValueError`` naming the file ``path`` and the preset ``name`` unless every record is a run
    of that preset as it stands: its task the preset's, and its config (seed included) one of those
    the preset's spec gives. So a file never mixes two presets' runs (not even a preset's and its
    confirmation set's, ``NAME-confirm``: the same settings at other seeds), and a stale file (the
    preset changed since) is named, not read."""
    _check_preset_name(name)
    preset, planned = PRESETS[name], _planned_configs(name)
    for number, record in enumerate(records, start=1):
        for entry in ("task", "seed", "config", "point"):
            summary_value(record, entry, f"results file {str(path)!r}, record {number}")
        task, seed = record["task"], record["seed"]
        if task != preset.task or record["config"] not in planned.get(seed, []) or not set(record["point"]) <= set(preset.grid):
            raise ValueError(
                f"results file {str(path)!r} holds a run that is not one of the preset {name!r} as it stands "
                f"(task {short(repr(task))}, seed {short(repr(seed))}, point {short(repr(record['point']))}): a results "
                f"file holds one preset's runs as it stands; give another file, or move this one away and run `make evidence PRESET={name}`"
            )
        _check_cost(record, f"results file {str(path)!r}, record {number}")


def _check_cost(record: dict, where: str) -> None:
    """``ValueError`` naming ``where`` and the entry unless the record's cost is one a run reports
    (:meth:`Evidence.cost` sums it): the summary's ``seconds`` a finite number >= 0, ``updates`` an integer
    >= 0, ``torch_threads`` (where given) an integer >= 1, and ``source`` (where given) a mapping."""
    summary = record["summary"]
    summary_number(summary, "seconds", 0.0, math.inf, where)
    updates = summary_number(summary, "updates", 0.0, math.inf, where)
    threads = summary.get("torch_threads", 1)
    if not isinstance(summary["updates"], int) or updates != int(updates):
        raise ValueError(f"{where} entry 'updates' must be an integer >= 0, got {short(repr(summary['updates']))}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"{where} entry 'torch_threads' must be an integer >= 1, got {short(repr(threads))}")
    if not isinstance(record.get("source", {}), Mapping):
        raise ValueError(f"{where}: its source must be a mapping (git_commit, git_dirty), got {short(repr(record['source']))}")


@dataclass(frozen=True)
class Evidence:
    """The finished runs of one preset, read from its evidence file.

    Attributes:
        name: the preset's name.
        preset: the :class:`~ponderlib.sweep.spec.Preset` itself.
        records: the results file's records (task, point, seed, config, summary, source), as written.
    """

    name: str
    preset: Preset
    records: list[dict]

    def __post_init__(self) -> None:
        # built by load() from a checked file; one built by hand is checked by name here, cheaply (its records' shape)
        _check_preset_name(self.name)
        if self.preset != PRESETS[self.name]:
            raise ValueError(f"preset must be the preset named {self.name!r}, PRESETS[{self.name!r}]; got another")
        if not isinstance(self.records, list) or not all(isinstance(record, Mapping) for record in self.records):
            raise TypeError(f"records must be a list of the results file's records (mappings), got {short(repr(self.records))}")

    def __repr__(self) -> str:
        return f"Evidence({self.name!r}: {len(self.records)} of {self.preset.runs} runs)"

    @classmethod
    def load(cls, name: str, folder: str | os.PathLike | None = None) -> Evidence:
        """The evidence of the preset ``name``, from ``folder`` (default :func:`evidence_folder`).

        Raises:
            TypeError: ``name`` is not a string.
            TypeError: ``folder`` is not a path.
            ValueError: ``name`` is not a preset, or its file holds a run that is not one of the preset
                as it stands, or one whose cost is not a run's (:func:`check_preset_records`).
            FileNotFoundError: its file is missing, naming the command that makes it.
        """
        _check_preset_name(name)
        if folder is not None:
            ensure_path("folder", folder, " or None")
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
        found = sorted((r for r in self.records if at_point(r, point)), key=lambda r: r["seed"])
        if not found:
            raise ValueError(f"no run of {self.name!r} at {point}; its grid is {self.preset.grid}")
        return [record["summary"] for record in found]

    def finished(self, **point: Any) -> bool:
        """Whether every seed of the grid point ``point`` (every grid field named) is in the file: while a
        set grows, a reader takes a point's runs only once they are all there.

        Raises:
            ValueError: ``point`` does not name exactly the preset's grid fields, or a value is not in the
                grid (no run would ever be there).
        """
        self.preset.check_point(point, f" of {self.name!r}")
        seeds = {record["seed"] for record in self.records if at_point(record, point)}
        return seeds >= set(self.preset.seeds)

    def values(self, name: str, **point: Any) -> list[Any]:
        """One metric (:func:`metric`) of every run at ``point``, seed order: ``TypeError`` unless ``name``
        is a str, ``ValueError`` naming it where a run has no such metric."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a metric's name (a str), got {type(name).__name__}")
        try:
            return [metric(summary, name) for summary in self.runs(**point)]
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None

    def rate(self, claim: Callable[[dict], bool], **point: Any) -> Rate:
        """In how many runs at ``point`` ``claim(summary)`` is true: ``claim`` must return a bool
        (``TypeError`` otherwise: a string or a number would count as holding)."""
        ensure_claim(claim)
        runs = self.runs(**point)
        return Rate(sum(held(claim, summary) for summary in runs), len(runs))

    def by_seed(self) -> dict[int, dict[Any, dict]]:
        """Seed -> {grid point -> summary}; a point is its value when the grid has one field, else the
        tuple of its values in grid order. For claims that compare grid points within a seed."""
        table: dict[int, dict[Any, dict]] = {}
        for record in sorted(self.records, key=lambda r: r["seed"]):
            for point in expand_grid(self.preset.grid):
                if at_point(record, point):
                    values = tuple(point.values())
                    table.setdefault(record["seed"], {})[values[0] if len(values) == 1 else values] = record["summary"]
        return table

    def rate_by_seed(self, claim: Callable[[dict[Any, dict]], bool]) -> Rate:
        """In how many seeds ``claim(points)`` is true, ``points`` being that seed's :meth:`by_seed` row;
        seeds missing a grid point are left out."""
        ensure_claim(claim)
        rows = [row for row in self.by_seed().values() if len(row) == math.prod(map(len, self.preset.grid.values()))]
        return Rate(sum(held(claim, row) for row in rows), len(rows))

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
