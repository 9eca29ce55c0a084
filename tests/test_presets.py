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
from ponderlib.sweep.live_presets import LIVE_PRESETS
from ponderlib.sweep.paper_presets import PAPER_PRESETS, THINKING_TIME_PRESETS
from ponderlib.sweep.spec import Preset
from ponderlib.tasks.registry import get_task

PLAN_DIGESTS = {
    "act-parity-live": "7037094ecf3143d9",
    "pondernet-parity-live": "a87a8517d3f99310",
    "act-parity-tau-live": "024d7c008757a423",
    "act-sequence-live": "78ded4a261eda114",
    "pondernet-parity-prior-live": "1bd045440e7f538a",
    "pondernet-parity-kl-live": "8559d1666db5b13d",
    "act-parity-small-tau-live": "ec3e2b013eed4330",
    "pointer-sort-live": "d83ebe7a7462e81c",
    "pointer-sort-decoders-live": "fe5a249631d30d7d",
    "pointer-hull-live": "f0965fc997576dce",
    "ut-chains-live": "535f2fb38108708b",
    "ut-chains-tau-live": "96cbeb3c739a368c",
    "ut-chains-depth": "1b6ac26fe6a23963",
    "ut-chains-topological": "e17173e1c1d6b216",
    "ut-chains-fixed-depths": "f6925611a63b555e",
    "graves-parity-tau": "4f79abecce0a9a3d",
    "graves-parity-16": "df51f031dba5e4de",
    "graves-parity-16-gru": "55c6cab29b28b9e2",
    "graves-parity-16-deep-start": "e0ba65c3feed7b01",
    "graves-parity-16-long": "e1e354a838c3b60d",
    "graves-parity-16-no-act": "f37192493a5ce3a3",
    "graves-parity-32": "dbee15e85d62dd44",
    "graves-parity-32-no-act": "4c2260e95e1c2344",
    "pondernet-extrapolation-16": "68a39ff84a5b220d",
    "pondernet-extrapolation-16-tanh": "f937f95f439af5af",
    "act-extrapolation-16": "76b944658d534505",
    "pondernet-parity-no-kl-live": "151be60c620b20dd",
    "pondernet-parity-median-live": "102637e4fd8c60aa",
    "pondernet-lambda-16": "b924497c9ced8832",
    "pondernet-lambda-16-unroll": "9d13928df28ca1eb",
    "pondernet-bayes-24": "b19df14811341c45",
    "pondernet-parity-interpolation": "3d98ecfcd2202dc8",
    "pondernet-parity-extrapolation": "84dc6685c45bbd2e",
    "pointer-hull-256": "930b66b9d92d7419",
    "pointer-sort-decoders-converged": "5eda1972c4d77c08",
    "act-parity-live-confirm": "3fd1436b9acac77b",
    "act-sequence-live-confirm": "c2a2e55c4fd77da6",
    "pondernet-parity-live-confirm": "4ae077451a76aa2a",
    "pondernet-parity-prior-live-confirm": "193200a76d01ac5f",
    "act-parity-small-tau-live-confirm": "e382d6e0bfb843cd",
    "pondernet-parity-kl-live-confirm": "809b03ecda64639a",
    "pointer-sort-live-confirm": "9dbfc4c137e13536",
    "pointer-sort-decoders-live-confirm": "5e353b2ee01b714b",
    "pointer-hull-live-confirm": "fcfa99595d1fc960",
    "ut-chains-live-confirm": "7e573e9c92170131",
    "ut-chains-tau-live-confirm": "7a4dbe73978c077a",
    "pondernet-lambda-16-cell": "9af3f2acd47d1567",
    "pondernet-lambda-16-lr": "dddc76c4c6ab0285",
    "pondernet-lambda-16-grad-clip": "6eb1f3c4a1ece3e1",
}
"""Every preset, in the order ``PRESETS`` lists them (the order of ``--help``), with the first 16 hex digits
of the SHA-256 of its plan's run keys as a JSON list: the plans as they were when the evidence in
``evidence/`` was written (commit 99c4017)."""


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
        planned = {(json.dumps(run.point, sort_keys=True), run.seed): run for run in plan(preset)}
        for point in expand_grid(preset.grid):
            for seed in (preset.seeds[0], preset.seeds[-1]):
                config = preset.config(seed, **point)
                run = planned[json.dumps(point, sort_keys=True), seed]
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
        assert new == old  # every field, the device and the progress bar too
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
