"""The book's named sweeps (ponderlib.sweep.presets) and one run of a preset (Preset.config).

Committed evidence (``evidence/NAME.jsonl``) is keyed by its presets' runs, and sweeps append to it: a
preset's plan of runs must not move unless its evidence is run again. So each preset's plan is pinned here
by a digest of its run keys, in plan order.
"""

import dataclasses
import hashlib
import json

import pytest

from ponderlib.experiments import settings
from ponderlib.sweep import PRESETS, expand_grid, make_spec, run_key
from ponderlib.sweep.evidence import at_point
from ponderlib.sweep.live_presets import LIVE_PRESETS
from ponderlib.sweep.paper_presets import PAPER_PRESETS, THINKING_TIME_PRESETS
from ponderlib.sweep.spec import Preset
from ponderlib.tasks.registry import get_task

PLAN_DIGESTS = {
    "act-parity-live": "9175e5c7430d295f",
    "pondernet-parity-live": "29c9399b224b2881",
    "act-parity-tau-live": "e12b65c14a493f39",
    "act-sequence-live": "78ded4a261eda114",
    "pondernet-parity-prior-live": "8d62ad7947ee3bc4",
    "pondernet-parity-kl-live": "c0b2d96a7f6ba5f6",
    "act-parity-small-tau-live": "e9188b4f52503745",
    "pointer-sort-live": "d83ebe7a7462e81c",
    "pointer-sort-decoders-live": "fe5a249631d30d7d",
    "pointer-hull-live": "f0965fc997576dce",
    "ut-chains-live": "11828cf5f63653fc",
    "ut-chains-tau-live": "16f45ff938b0e985",
    "ut-chains-depth": "6a7ae27d9853f55d",
    "ut-chains-topological": "d3cbacf0139e0cb3",
    "ut-chains-fixed-depths": "37d21adc86632643",
    "graves-parity-tau": "f6e71c994a78fdff",
    "graves-parity-16": "3e1d36258b963e47",
    "graves-parity-16-gru": "982eef05f471de36",
    "graves-parity-16-deep-start": "745996751b5dd252",
    "graves-parity-16-long": "827840443f471f6b",
    "graves-parity-16-no-act": "84161774f675662f",
    "graves-parity-32": "33aa7a246618717f",
    "graves-parity-32-no-act": "c88d0a173f76b674",
    "pondernet-extrapolation-16": "091b2296b926bd8b",
    "pondernet-extrapolation-16-tanh": "b425d536d8287ff6",
    "act-extrapolation-16": "4754b1a26471dcd1",
    "pondernet-parity-no-kl-live": "58a2c4783d9e8b6e",
    "pondernet-parity-median-live": "ae349a682e36817b",
    "pondernet-lambda-16": "0ac2b3b60331c01c",
    "pondernet-lambda-16-unroll": "679419ac62c47067",
    "pondernet-bayes-24": "73b926a1ed353eee",
    "pondernet-parity-interpolation": "bc2995cca5c97759",
    "pondernet-parity-extrapolation": "7adc77747a0adaf9",
    "pointer-hull-256": "930b66b9d92d7419",
    "pointer-sort-decoders-converged": "5eda1972c4d77c08",
    "act-parity-live-confirm": "0964c26bc67f61ed",
    "act-sequence-live-confirm": "c2a2e55c4fd77da6",
    "pondernet-parity-live-confirm": "a6c924f4e8f9e635",
    "pondernet-parity-prior-live-confirm": "cf5449c5e03db16d",
    "act-parity-small-tau-live-confirm": "c49a369a2bd67f67",
    "pondernet-parity-kl-live-confirm": "32531e2907e85e0c",
    "pointer-sort-live-confirm": "9dbfc4c137e13536",
    "pointer-sort-decoders-live-confirm": "5e353b2ee01b714b",
    "pointer-hull-live-confirm": "fcfa99595d1fc960",
    "ut-chains-live-confirm": "a522920334876075",
    "ut-chains-tau-live-confirm": "08bf75e274149e57",
    "pondernet-lambda-16-cell": "965028923ce58868",
    "pondernet-lambda-16-lr": "129240085812278a",
    "pondernet-lambda-16-grad-clip": "09b2e092e0c189fc",
}
"""Every preset, in the order ``PRESETS`` lists them (the order of ``--help``), with the first 16 hex digits
of the SHA-256 of its plan's run keys as a JSON list: the plans of the evidence in ``evidence/`` since a run's
key holds the fields its method uses (issue 39; ``evidence/MIGRATIONS.md``, 2026-12-07)."""


def plan(preset: Preset):
    spec = preset.spec()
    return make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs


def test_every_presets_plan_is_the_one_its_evidence_was_written_for():
    assert list(PRESETS) == list(PLAN_DIGESTS)
    digests = {
        name: hashlib.sha256(json.dumps([run.key for run in plan(preset)]).encode()).hexdigest()[:16]
        for name, preset in PRESETS.items()
    }
    assert digests == PLAN_DIGESTS


def test_presets_are_the_live_settings_the_papers_sweeps_and_the_confirmation_sets():
    confirmations = {name for name in PRESETS if name.endswith("-confirm")}
    assert set(PRESETS) == set(LIVE_PRESETS) | set(PAPER_PRESETS) | set(THINKING_TIME_PRESETS) | confirmations
    assert all(name.removesuffix("-confirm") in LIVE_PRESETS for name in confirmations)
    assert all(PRESETS[name].seeds == settings.CONFIRMATION_SEEDS for name in confirmations)
    assert all(preset.seeds == settings.LIVE_SEEDS for preset in LIVE_PRESETS.values())


def test_a_presets_config_is_the_run_the_sweep_trains():
    """Every grid point of every preset, at its first and last seed: the same config dict and run key as
    the sweep's plan gives that run, and a bar shown where the sweep's run shows none."""
    for name, preset in PRESETS.items():
        planned = plan(preset)
        for point in expand_grid(preset.grid):
            for seed in (preset.seeds[0], preset.seeds[-1]):
                config = preset.config(seed, **point)
                (run,) = [run for run in planned if run.seed == seed and at_point({"point": run.point}, point)]
                assert config.to_dict() == run.config.to_dict(), (name, point, seed)
                assert run_key(preset.task, config.to_dict()) == run.key, (name, point, seed)
                assert (config.progress, run.config.progress) == (None, False)


def test_a_presets_config_replaces_the_chapters_own_helpers():
    """The helpers the lessons wrote before Preset.config took ``max_updates`` and ``device``, written out:
    chapter 2's ``live_config`` and chapter 3's cells (a run on the chapter's device), and chapter 4's
    ``train`` (a run of another budget); each on the preset's config as it was built then."""

    def old_config(preset, seed, **point):  # Preset.config before it went through the sweep's plan
        config_class = get_task(preset.task).config
        return config_class(**preset.fixed, **point, seed=seed, max_updates=preset.max_updates)

    def live_config(preset, seed, **point):  # chapter 2's, with DEVICE = setup_chapter(SEED)
        return dataclasses.replace(old_config(preset, seed, **point), device="cpu")

    def train_config(preset, seed, budget, **setting):  # chapter 4's train, less the training
        return dataclasses.replace(old_config(preset, seed, **setting), max_updates=budget)

    cases = [
        (live_config(PRESETS["pondernet-parity-live"], 1, method="act", kl_direction="paper"),
         PRESETS["pondernet-parity-live"].config(1, method="act", kl_direction="paper", device="cpu")),
        (live_config(PRESETS["pondernet-parity-prior-live"], 0, lambda_p=0.1, prior_truncation="normalised"),
         PRESETS["pondernet-parity-prior-live"].config(0, lambda_p=0.1, prior_truncation="normalised", device="cpu")),
        (live_config(PRESETS["pointer-hull-live"], 2, hidden=64),
         PRESETS["pointer-hull-live"].config(2, hidden=64, device="cpu")),
        (train_config(PRESETS["ut-chains-live"], 2, 300, method="act", halting_bias_init=settings.DEEP_START),
         PRESETS["ut-chains-live"].config(2, method="act", halting_bias_init=settings.DEEP_START, max_updates=300)),
        (train_config(PRESETS["ut-chains-tau-live"], 0, 800, tau=1e-3),
         PRESETS["ut-chains-tau-live"].config(0, tau=1e-3, max_updates=800)),
    ]
    for old, new in cases:
        assert new.to_dict() == old.to_dict()
        # every field, the device and the progress bar too; another method's fields at their defaults (the
        # chapters' helpers gave ACT the preset's lambda_p, which no ACT run uses)
        assert new == dataclasses.replace(old, **{name: getattr(type(new)(), name) for name in new.unused_fields()})
    assert cases[-2][1].max_updates == 300 and cases[0][1].device == "cpu"
    assert PRESETS["ut-chains-tau-live"].config(0, tau=1e-3) == cases[-1][1]  # 800: the preset's own budget


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda p: p.config(0, method="fixed"), r"point must name the grid fields \['halting_bias_init', 'method'\]"),
        (lambda p: p.config(0, method="fixed", halting_bias_init=1.0, tau=0.1), r"grid fields .* got \['halting_bias_init', 'method', 'tau'\]"),
        (lambda p: p.config(0, method="lstm", halting_bias_init=1.0), r"^method must be one of the grid's values \['act', 'fixed', 'pondernet'\], got 'lstm'"),
        (lambda p: p.config(0, method="act", halting_bias_init=2.0), r"^halting_bias_init must be one of the grid's values \[1.0, -3.0\], got 2.0"),
        (lambda p: p.config(-1, method="act", halting_bias_init=1.0), "^seed must be"),
        (lambda p: p.config(0, method="act", halting_bias_init=1.0, max_updates=0), "^max_updates must be"),
        (lambda p: p.config(0, method="act", halting_bias_init=1.0, max_updates=2.5), "^max_updates must be"),
        (lambda p: p.config(0, method="act", halting_bias_init=1.0, device="tpu:9"), "device"),
    ],
)
def test_a_presets_config_refuses_a_point_off_its_grid_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call(PRESETS["ut-chains-live"])
