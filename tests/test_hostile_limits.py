"""Issue 40, as a hostile user probes it: every count that sizes a tensor or a loop has an upper bound,
checked up front; a setting that could only fail after training fails before it; a sweep that could
never start is refused before any cluster starts; a results file takes only its own preset's runs;
every error names its argument; no float setting takes NaN where it needs a finite number."""

from __future__ import annotations

import itertools
import os
import re
import resource
import subprocess
import sys
import time

import pytest
import torch

from ponderlib.core.validation import MAX_BATCH, MAX_LENGTH, MAX_WIDTH
from ponderlib.mechanisms.decoding import beam_search
from ponderlib.mechanisms.pointer import MAX_BEAM_WIDTH, PointerNetwork
from ponderlib.sweep.presets import PRESETS
from ponderlib.tasks.chains import ChainsConfig
from ponderlib.tasks.chains_data import chains_batch
from ponderlib.tasks.convex_hull import HullConfig, hull_metrics_by_points
from ponderlib.tasks.convex_hull_data import hull_batch
from ponderlib.tasks.parity import ParityConfig
from ponderlib.tasks.parity_data import ParityVectors, parity_batch
from ponderlib.tasks.parity_eval import evaluate_by_difficulty
from ponderlib.tasks.parity_models import act_parity_model
from ponderlib.tasks.sequence_parity import SequenceConfig
from ponderlib.tasks.sorting import SortConfig, exact_match_by_length
from ponderlib.tasks.sorting_data import sort_batch
from tests.cli_runner import ROOT
from tests.refusals import assert_refused

HUGE = 10**12
MEMORY_CAP = 3 * 2**30
"""Bytes of address space a CLI process may take here: a run that tried to allocate for a huge count
dies of it rather than swapping the machine; one refused up front never comes near it."""


def run_capped(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m ponderlib ARGS`` in a fresh process under :data:`MEMORY_CAP` and ``timeout``."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu", "PONDERLIB_PROGRESS": "0"}
    return subprocess.run(
        [sys.executable, "-m", "ponderlib", *args], capture_output=True, text=True, env=env, timeout=timeout,
        preexec_fn=cap,
    )


def assert_one_line_exit_2(proc: subprocess.CompletedProcess, *names: str) -> str:
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


# --- 1. upper bounds on every count that sizes a tensor or a loop -------------------------------

CONFIG_BOUNDS = [
    (ChainsConfig, {"method": "fixed", "fixed_depth": 10**9}, "fixed_depth", MAX_LENGTH),
    (ChainsConfig, {"max_ponder_steps": 10**9}, "max_ponder_steps", MAX_LENGTH),
    (ChainsConfig, {"max_len": 10**9}, "max_len", MAX_LENGTH),
    (ChainsConfig, {"test_max_len": 10**9}, "test_max_len", 24),  # at most n_names, itself bounded
    (ChainsConfig, {"max_depth": 10**9}, "max_depth", MAX_LENGTH),
    (ChainsConfig, {"test_max_depth": 10**9}, "test_max_depth", MAX_LENGTH),
    (ChainsConfig, {"d_model": 2 * 10**6, "heads": 1}, "d_model", MAX_WIDTH),
    (ChainsConfig, {"d_transition": 10**9}, "d_transition", MAX_WIDTH),
    (ChainsConfig, {"test_size": HUGE}, "test_size", MAX_BATCH),
    (ChainsConfig, {"eval_size": HUGE}, "eval_size", MAX_BATCH),
    (ChainsConfig, {"batch_size": HUGE}, "batch_size", MAX_BATCH),
    (SortConfig, {"test_max_len": 10**9}, "test_max_len", MAX_LENGTH),
    (SortConfig, {"max_len": 10**9}, "max_len", MAX_LENGTH),
    (SortConfig, {"min_len": 10**9, "max_len": 10**9}, "min_len", MAX_LENGTH),
    (SortConfig, {"hidden": 10**9}, "hidden", MAX_WIDTH),
    (SortConfig, {"attention_dim": 10**9}, "attention_dim", MAX_WIDTH),
    (SortConfig, {"test_size": HUGE}, "test_size", MAX_BATCH),
    (HullConfig, {"max_points": HUGE}, "max_points", MAX_LENGTH),
    (HullConfig, {"test_max_points": HUGE}, "test_max_points", MAX_LENGTH),
    (HullConfig, {"hidden": 10**9}, "hidden", MAX_WIDTH),
    (HullConfig, {"test_size": HUGE}, "test_size", MAX_BATCH),
    (HullConfig, {"beam_width": 10**9}, "beam_width", MAX_BEAM_WIDTH),
    (ParityConfig, {"n_elems": 10**9}, "n_elems", MAX_LENGTH),
    (ParityConfig, {"hidden": 10**9}, "hidden", MAX_WIDTH),
    (ParityConfig, {"max_ponder_steps": 10**9}, "max_ponder_steps", MAX_LENGTH),
    (ParityConfig, {"eval_size": HUGE}, "eval_size", MAX_BATCH),
    (ParityConfig, {"difficulty_eval_size": HUGE}, "difficulty_eval_size", MAX_BATCH),
    (ParityConfig, {"batch_size": HUGE}, "batch_size", MAX_BATCH),
    (SequenceConfig, {"n_elems": 10**9}, "n_elems", MAX_LENGTH),
    (SequenceConfig, {"seq_len": 10**9}, "seq_len", MAX_LENGTH),
    (SequenceConfig, {"hidden": 10**9}, "hidden", MAX_WIDTH),
    (SequenceConfig, {"max_ponder_steps": 10**9}, "max_ponder_steps", MAX_LENGTH),
    (SequenceConfig, {"eval_size": HUGE}, "eval_size", MAX_BATCH),
    (SequenceConfig, {"batch_size": HUGE}, "batch_size", MAX_BATCH),
]


@pytest.mark.parametrize(
    ("config_class", "overrides", "name", "bound"), CONFIG_BOUNDS, ids=[f"{c.__name__}-{n}" for c, _, n, _ in CONFIG_BOUNDS]
)
def test_a_huge_count_is_refused_up_front_naming_the_field_and_its_bound(config_class, overrides, name, bound):
    start = time.perf_counter()
    with pytest.raises(ValueError) as caught:
        config_class(**overrides).validate()
    message = str(caught.value)
    assert message.startswith(f"{name} must be an integer in ["), message
    assert re.search(rf"\b{bound}\], got", message), message
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(("config_class", "overrides", "name", "bound"), CONFIG_BOUNDS[:1] + CONFIG_BOUNDS[2:3])
def test_the_bound_itself_is_allowed(config_class, overrides, name, bound):
    config = config_class(**{**overrides, name: bound, "n_names": bound, "test_max_len": bound})
    config.validate()


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: hull_batch(1, 3, HUGE), "max_points"),
        (lambda: hull_batch(1, HUGE, HUGE), "min_points"),
        (lambda: hull_batch(HUGE, 3, 4), "batch_size"),
        (lambda: hull_batch(1, 3, 4, pad_to=HUGE), "pad_to"),
        (lambda: sort_batch(1, 1, HUGE), "max_len"),
        (lambda: sort_batch(HUGE, 1, 2), "batch_size"),
        (lambda: sort_batch(1, 1, 2, pad_to=HUGE), "pad_to"),
        (lambda: chains_batch(1, 1, HUGE, 1, HUGE), "max_len"),
        (lambda: chains_batch(HUGE, 1, 4, 1, 8), "batch_size"),
        (lambda: chains_batch(1, 1, 4, HUGE, 8), "max_depth"),
        (lambda: parity_batch(HUGE, 8), "batch_size"),
        (lambda: parity_batch(1, HUGE), "n_elems"),
        (lambda: ParityVectors(8, seq_len=HUGE), "seq_len"),
    ],
)
def test_a_data_function_refuses_a_huge_count_before_allocating(call, name):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^{name} must be an integer in \[[^\]]+, \d+\], got"):
        call()
    assert time.perf_counter() - start < 5


def test_scoring_functions_name_their_own_sample_counts():
    hull_model = PointerNetwork("pointer", 4, 4, True, 4, input_size=2, end_pointer=True)
    with pytest.raises(ValueError, match=r"^samples must be an integer in \[1, 1000000\], got 0"):
        hull_metrics_by_points(hull_model, [4], samples=0, seed=0)
    sort_model = PointerNetwork("pointer", 4, 4, True, 4)
    with pytest.raises(ValueError, match=r"^samples_per_length must be an integer in \[1, 1000000\], got 0"):
        exact_match_by_length(sort_model, [3], samples_per_length=0, seed=0)
    parity_model = act_parity_model(4, 4)
    with pytest.raises(ValueError, match=r"^samples_per_difficulty must be an integer in \[1, 1000000\]"):
        evaluate_by_difficulty(parity_model, 4, samples_per_difficulty=HUGE, seed=0)
    with pytest.raises(ValueError, match=r"^beam_width must be an integer in \[1, 1000\], got 1000000"):
        beam_search(sort_model, torch.zeros(1, 3), torch.tensor([3]), beam_width=10**6)


def test_every_preset_run_is_within_the_bounds():
    for name, preset in PRESETS.items():
        for values in itertools.product(*preset.grid.values()):
            config = preset.config(preset.seeds[0], **dict(zip(preset.grid, values)))
            config.validate()  # raises, naming the field, if a bound were below a preset's value


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["chains", "--method", "fixed", "--fixed-depth", "1000000000", "--max-updates", "1"], "fixed_depth"),
        (["sorting", "--max-updates", "1", "--test-max-len", "1000000000"], "test_max_len"),
        (["convex_hull", "--max-updates", "1", "--max-points", "1000000000000"], "max_points"),
        (["parity", "--max-updates", "1", "--n-elems", "1000000000"], "n_elems"),
        (["sequence_parity", "--max-updates", "1", "--seq-len", "1000000000"], "seq_len"),
    ],
)
def test_cli_refuses_a_huge_count_at_once_under_a_memory_cap(args, name):
    start = time.perf_counter()
    proc = run_capped("train", *args, timeout=120)
    assert_one_line_exit_2(proc, name, "must be an integer in [")
    assert time.perf_counter() - start < 60


def test_sizes_each_within_bounds_that_do_not_fit_together_are_refused_up_front(tmp_path):
    """Each count below its bound, their product beyond :data:`~ponderlib.core.validation.MAX_ELEMENTS`:
    ``train`` and ``sweep`` refuse it before anything runs, in one line naming a count (exit status 2), and
    the sweep leaves no results file (round 3; before, torch's failed allocation was the error)."""
    sizes = ["--batch-size", str(MAX_BATCH), "--hidden", str(MAX_WIDTH), "--max-ponder-steps", "100", "--max-updates", "1"]
    assert_one_line_exit_2(run_capped("train", "parity", *sizes), "hidden must be at most", "batch_size", "max_ponder_steps")
    results = tmp_path / "runs.jsonl"
    proc = run_capped("sweep", "parity", "--grid", f"batch_size={MAX_BATCH}", "--set", f"hidden={MAX_WIDTH}",
                      "--set", "max_ponder_steps=100", "--set", "max_updates=1", "--seeds", "0", "--results", str(results))
    assert_one_line_exit_2(proc, "hidden must be at most")
    assert not results.exists() or results.read_text() == ""


# --- 2. settings that could only fail after training ---------------------------------------------


@pytest.mark.parametrize(
    ("config_class", "overrides", "name"),
    [
        (ChainsConfig, {"min_len": 1, "max_len": 1, "eval_size": 1}, "eval_size"),
        (ChainsConfig, {"min_len": 1, "max_len": 1, "test_size": 1}, "test_size"),
        (ParityConfig, {"n_elems": 1, "difficulty_eval_size": 1}, "difficulty_eval_size"),
        (ParityConfig, {"n_elems": 8, "min_nonzero": 3, "max_nonzero": 3, "difficulty_eval_size": 1}, "difficulty_eval_size"),
        (SequenceConfig, {"seq_len": 1, "eval_size": 1}, "eval_size"),
    ],
)
def test_a_set_too_small_for_its_correlation_is_refused_up_front(config_class, overrides, name):
    with pytest.raises(ValueError, match=rf"^{name} must be >= 2 when .*a correlation needs at least two values"):
        config_class(**overrides).validate()
    config_class(**{**overrides, name: 2}).validate()  # two values are enough


@pytest.mark.parametrize(("option", "name"), [("--eval-size", "eval_size"), ("--test-size", "test_size")])
def test_cli_chains_with_one_position_fails_before_training(option, name):
    start = time.perf_counter()
    proc = run_capped("train", "chains", "--min-len", "1", "--max-len", "1", option, "1", timeout=120)
    line = assert_one_line_exit_2(proc, name, "min_len = 1")
    assert "1-d" not in line
    assert time.perf_counter() - start < 60  # the default budget of 400 updates was never started


# --- 3. a Ray sweep that could never start ---------------------------------------------------------

TINY_SPEC = (
    "task: parity\ngrid: {lambda_p: [0.1]}\nseeds: [0]\n"
    "fixed: {max_updates: 1, n_elems: 2, hidden: 2, eval_size: 4, difficulty_eval_size: 2, eval_every: 1}\n"
)


@pytest.mark.parametrize("num_gpus", [1, 0.25, 3])
def test_ray_asking_for_a_gpu_without_cuda_is_refused_before_any_cluster_starts(tmp_path, monkeypatch, num_gpus):
    ray = pytest.importorskip("ray")
    from ponderlib.sweep.runner import sweep

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"")
    with pytest.raises(ValueError, match=r"^num_gpus=.* more GPUs than the local Ray cluster"):
        sweep("parity", {"lambda_p": [0.1]}, [0], results, fixed={"max_updates": 1}, executor="ray", num_gpus=num_gpus)
    assert not ray.is_initialized()
    assert results.read_bytes() == b""


def test_cluster_gpus_are_checked_against_what_each_run_asks():
    from ponderlib.sweep.executors import check_cluster_gpus

    check_cluster_gpus(None, 0, "a cluster")
    check_cluster_gpus(0, 0, "a cluster")
    check_cluster_gpus(0.25, 1, "a cluster")
    with pytest.raises(ValueError, match=r"^num_gpus=2 asks each run for more GPUs than a cluster has \(1\)"):
        check_cluster_gpus(2, 1, "a cluster")


def test_cli_ray_with_num_gpus_on_a_machine_without_cuda_exits_2_at_once(tmp_path):
    pytest.importorskip("ray")
    spec, results = tmp_path / "spec.yaml", tmp_path / "results.jsonl"
    spec.write_text(TINY_SPEC)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu", "CUDA_VISIBLE_DEVICES": ""}
    env.pop("RAY_ADDRESS", None)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "ponderlib", "sweep", "--spec", str(spec), "--results", str(results),
         "--executor", "ray", "--num-gpus", "1"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert_one_line_exit_2(proc, "num_gpus")
    assert time.perf_counter() - start < 60
    assert not results.exists() or results.read_bytes() == b""


# --- 4. a results file holds one preset's runs, or one plain sweep's --------------------------------

TINY = {"max_updates": 1, "n_elems": 2, "hidden": 2, "eval_size": 4, "difficulty_eval_size": 2, "eval_every": 1, "lr": 0.01}

EVIDENCE = ROOT / "evidence"


def test_cli_preset_sweep_onto_another_presets_file_exits_2_and_leaves_it_byte_for_byte(tmp_path):
    results = tmp_path / "copy.jsonl"
    results.write_bytes((EVIDENCE / "pondernet-parity-live.jsonl").read_bytes())
    before = results.read_bytes()
    for extra in ([], ["--seeds", "0"]):  # the preset as it stands, and with its seeds overridden
        proc = run_capped("sweep", "--preset", "act-parity-live", "--results", str(results), "--quiet", *extra)
        assert_one_line_exit_2(proc, str(results))
        assert results.read_bytes() == before


def test_a_preset_file_takes_not_its_confirmation_sets_runs(tmp_path):
    from ponderlib.sweep.evidence import check_preset_records
    from ponderlib.sweep.results import load_results

    live = load_results(EVIDENCE / "act-parity-live.jsonl")
    confirm = load_results(EVIDENCE / "act-parity-live-confirm.jsonl")
    check_preset_records("act-parity-live", live, "live.jsonl")
    check_preset_records("act-parity-live-confirm", confirm, "confirm.jsonl")
    with pytest.raises(ValueError, match=r"'confirm\.jsonl' .* not one of the preset 'act-parity-live' .*seed 2\d"):
        check_preset_records("act-parity-live", live[:3] + confirm[:1], "confirm.jsonl")
    with pytest.raises(ValueError, match=r"not one of the preset 'act-parity-live-confirm' .*seed \d\b"):
        check_preset_records("act-parity-live-confirm", live[:1], "live.jsonl")


def test_evidence_of_another_preset_is_refused_on_load_naming_the_file_and_the_preset(tmp_path):
    from ponderlib.sweep.evidence import Evidence

    path = tmp_path / "act-parity-live.jsonl"
    path.write_bytes((EVIDENCE / "pondernet-parity-live.jsonl").read_bytes())
    with pytest.raises(ValueError) as caught:
        Evidence.load("act-parity-live", tmp_path)
    assert str(path) in str(caught.value) and "'act-parity-live'" in str(caught.value)
    path.write_bytes((EVIDENCE / "act-parity-live.jsonl").read_bytes())
    assert Evidence.load("act-parity-live", tmp_path).by_seed()  # its own runs load, and read


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ({"task": "sorting", "grid": {"hidden": [8]}, "fixed": {"max_updates": 1}}, "task 'parity', not 'sorting'"),
        ({"task": "parity", "grid": {"tau": [0.1]}, "fixed": {**TINY, "method": "act"}}, "method='pondernet'"),
        # a field left at its default is as fixed as one given: the default budget is not the file's 1 update
        ({"task": "parity", "grid": {"lambda_p": [0.1]}, "fixed": {}}, "max_updates=1 where this sweep fixes max_updates=10000"),
    ],
)
def test_a_plain_sweep_refuses_a_file_of_another_task_or_fixed_setting(tmp_path, second, message):
    from ponderlib.sweep.runner import sweep

    tiny = TINY
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"lambda_p": [0.1]}, [0], results, fixed={**tiny, "method": "pondernet"}, progress=False)
    before = results.read_bytes()
    with pytest.raises(ValueError, match=re.escape(message)):
        sweep(second["task"], second["grid"], [1], results, fixed=second["fixed"], progress=False)
    assert results.read_bytes() == before
    # the same sweep grown (another seed, another grid value) is still its own
    sweep("parity", {"lambda_p": [0.1, 0.2]}, [0, 1], results, fixed={**tiny, "method": "pondernet"}, progress=False)
    assert results.read_bytes().startswith(before) and results.read_bytes().count(b"\n") == 4


# --- 5. errors that name their argument ------------------------------------------------------------


def test_evidence_load_of_a_list_is_a_type_error_naming_name():
    from ponderlib.sweep.evidence import Evidence

    with pytest.raises(TypeError, match=r"^name must be a preset's name \(a str\), got list"):
        Evidence.load(["act-parity-live"])


def _live():
    from ponderlib.sweep.evidence import Evidence

    return [record["summary"] for record in Evidence.load("act-parity-live", EVIDENCE).records[:1]]


@pytest.mark.parametrize(
    ("claims", "kind"),
    [
        ([lambda run: True], TypeError),
        ({"learns": "yes"}, TypeError),
        ({3: lambda run: True}, TypeError),
        ({}, ValueError),
    ],
)
def test_live_claims_name_claims_that_are_not_claims(claims, kind):
    from ponderlib.experiments.claims import LiveClaims

    with pytest.raises(kind, match=r"^claims must "):
        LiveClaims("act-parity-live", claims, point={"halting_bias_init": 1.0})


def test_check_live_claims_names_the_live_runs_that_are_wrong():
    from ponderlib.experiments.claims import LIVE_CLAIMS, check_live_claims

    with pytest.raises(TypeError, match=r"^live must be a sequence"):
        check_live_claims(LIVE_CLAIMS["ch1-parity"], "runs")
    with pytest.raises(ValueError, match=r"^live must hold at least one run"):
        check_live_claims(LIVE_CLAIMS["ch1-parity"], [])
    with pytest.raises(TypeError, match=r"^live\[0\] must be a mapping"):  # claims per seed take one row per seed
        check_live_claims(LIVE_CLAIMS["ch4-tau"], _live())


def test_a_rate_over_no_runs_has_no_fraction_and_a_rate_is_checked():
    from ponderlib.sweep.evidence import Rate

    with pytest.raises(ValueError, match="no runs"):
        Rate(0, 0).fraction
    with pytest.raises(ValueError, match=r"^holds must be an integer in \[0, 2\], got 3"):
        Rate(3, 2)
    with pytest.raises(ValueError, match=r"^runs must be an integer >= 0"):
        Rate(0, -1)
    assert Rate(1, 2).fraction == 0.5


@pytest.mark.parametrize("seed", [2**64, 2**63, -1, 1.5])
def test_stream_generator_names_seed_and_its_range(seed):
    from ponderlib.core.seeds import stream_generator

    with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, 9223372036854775807\], got"):
        stream_generator(seed, "data")


# --- 6. NaN and inf where a finite number is needed ------------------------------------------------

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("value", [NAN, INF, -INF, 0.0, 1.5])
def test_exponential_decay_refuses_a_decay_outside_0_1_naming_lr_decay(value):
    from ponderlib.core.config import exponential_decay

    optimizer = torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))])
    with pytest.raises(ValueError, match=r"^lr_decay must be in \(0, 1\], got"):
        exponential_decay(optimizer, value)
    assert exponential_decay(optimizer, 1.0) is None


@pytest.mark.parametrize("config_class", [ParityConfig, SequenceConfig, SortConfig, HullConfig, ChainsConfig])
def test_no_float_field_of_a_config_takes_nan_or_inf(config_class):
    import dataclasses
    import typing

    hints = typing.get_type_hints(config_class)
    floats = [f.name for f in dataclasses.fields(config_class) if "float" in str(hints[f.name])]
    assert "lr" in floats and "grad_clip" in floats
    for name in floats:
        for value in (NAN, INF, -INF):
            with pytest.raises(ValueError, match=rf"^{name} must be"):
                config_class(**{name: value}).validate_once()


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda value: __import__("ponderlib.mechanisms.act", fromlist=["ACT"]).ACT(
            torch.nn.GRUCell(2, 4), torch.nn.Linear(4, 1), 4, halting_bias_init=value), "halting_bias_init"),
        (lambda value: __import__("ponderlib.mechanisms.universal_transformer", fromlist=["UniversalTransformer"])
            .UniversalTransformer(halting_bias_init=value), "halting_bias_init"),
        (lambda value: act_parity_model(4, 4, halting_bias_init=value), "halting_bias_init"),
    ],
)
@pytest.mark.parametrize("value", [NAN, INF])
def test_a_model_refuses_a_halting_bias_that_is_not_finite(build, name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number between -1e\+06 and 1e\+06, got"):
        build(value)


@pytest.mark.parametrize(
    "build",
    [
        lambda: __import__("ponderlib.mechanisms.act", fromlist=["ACT"]).ACT(
            torch.nn.GRUCell(2, 4), torch.nn.Linear(4, 1), 4, max_ponder_steps=10**9),
        lambda: __import__("ponderlib.mechanisms.pondernet", fromlist=["PonderNet"]).PonderNet(
            torch.nn.Linear(2, 2), 4, max_ponder_steps=10**9),
        lambda: __import__("ponderlib.mechanisms.universal_transformer", fromlist=["UniversalTransformer"])
            .UniversalTransformer(max_ponder_steps=10**9),
        lambda: __import__("ponderlib.mechanisms.halting", fromlist=["geometric_prior"]).geometric_prior(0.2, 10**12),
    ],
)
def test_a_mechanism_built_by_hand_bounds_its_ponder_steps(build):
    with pytest.raises(ValueError, match=r"^max_ponder_steps must be an integer in \[1, 10000\], got"):
        build()


def test_an_empty_evidence_file_is_described_as_empty_not_with_blanks(tmp_path):
    from ponderlib.sweep.evidence import Evidence

    (tmp_path / "act-parity-live.jsonl").write_bytes(b"")
    text = Evidence.load("act-parity-live", tmp_path).describe()
    assert text == "`make evidence PRESET=act-parity-live`: none of its 40 runs yet."


# ---- tensors of the wrong dtype, device, width or value handed to the three mechanisms ----------------------

def _mechanisms():
    from ponderlib.mechanisms.universal_transformer import UniversalTransformer
    from ponderlib.tasks.parity_models import act_parity_model, pondernet_parity_model

    act, pondernet = act_parity_model(8, 16, 5), pondernet_parity_model(8, 16, 5)
    uts = {m: UniversalTransformer(d_model=8, heads=2, d_transition=16, max_ponder_steps=3, method=m) for m in ("act", "pondernet", "fixed")}
    calls = {"act": act, "pondernet": pondernet, "pondernet.infer": pondernet.infer}
    for method, ut in uts.items():
        calls[f"ut-{method}"] = lambda x, ut=ut: ut(x.unsqueeze(1).expand(x.shape[0], 3, x.shape[-1]).contiguous())
    return calls


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: torch.ones(4, 8, dtype=torch.long), "x must have the model's dtype torch.float32, got torch.int64"),
        (lambda: torch.ones(4, 8, dtype=torch.float64), "x must have the model's dtype torch.float32, got torch.float64"),
        (lambda: torch.ones(4, 8, dtype=torch.bool), "x must have the model's dtype"),
        (lambda: torch.ones(4, 8, device="meta"), "x is on meta but the model on cpu"),
        (lambda: torch.ones(4, 7), "x must have (input_size|d_model) = 8 features in its last dimension"),
        (lambda: torch.full((4, 8), float("nan")), "not finite|NaN|nan"),
    ],
    ids=["int64", "float64", "bool", "meta", "width", "nan"],
)
def test_the_mechanisms_name_a_wrong_input_tensor(make, match):
    for name, call in _mechanisms().items():
        with pytest.raises(ValueError, match=match):
            call(make())


def test_act_names_a_state_of_the_wrong_width_dtype_or_device():
    from ponderlib.tasks.parity_models import act_parity_model

    act = act_parity_model(8, 16, 5)
    for state, match in ((torch.zeros(4, 15), "state must have hidden_size = 16 features"), (torch.zeros(4, 16, dtype=torch.float64), "state must have the model's dtype"), (torch.zeros(4, 16, device="meta"), "state is on meta")):
        with pytest.raises(ValueError, match=match):
            act(torch.ones(4, 8), state)


def test_the_universal_transformer_reads_nothing_at_padding_and_names_a_mask_elsewhere():
    from ponderlib.mechanisms.universal_transformer import UniversalTransformer

    ut = UniversalTransformer(d_model=8, heads=2, d_transition=16, max_ponder_steps=3)
    x, mask = torch.randn(2, 3, 8), torch.zeros(2, 3, dtype=torch.bool)
    x[0, 2], mask[0, 2] = float("nan"), True
    assert torch.isfinite(ut(x, padding_mask=mask).state).all()  # a NaN at padding is never read
    with pytest.raises(ValueError, match="padding_mask is on meta but x on cpu"):
        ut(x, padding_mask=mask.to("meta"))


# --- float settings beyond what a run's float32 arithmetic survives (found by a probe, 2026-11-28) ------


@pytest.mark.parametrize(
    ("config_class", "overrides", "name"),
    [
        (ParityConfig, {"lr": 1e300}, "lr"),
        (ParityConfig, {"grad_clip": 1e300}, "grad_clip"),
        (ParityConfig, {"method": "act", "tau": 1e300}, "tau"),
        (ParityConfig, {"method": "act", "halting_bias_init": -1e300}, "halting_bias_init"),
        (ParityConfig, {"beta": 1e300}, "beta"),
        (ChainsConfig, {"method": "act", "halting_bias_init": 1e300}, "halting_bias_init"),
        (ChainsConfig, {"method": "act", "tau": 1e300}, "tau"),
        (SequenceConfig, {"halting_bias_init": 1e300}, "halting_bias_init"),
        (SortConfig, {"lr": 1e300}, "lr"),
        (HullConfig, {"lr": 1e39}, "lr"),
    ],
)
def test_a_float_setting_too_large_for_float32_is_refused_up_front(config_class, overrides, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number .*1e\+06, got"):
        config_class(**overrides, max_updates=1).validate()
    config_class(**{**overrides, name: 1e6 if overrides[name] > 0 else -1e6}, max_updates=1).validate()  # the bound itself


def test_cli_lr_too_large_for_float32_is_one_line_exit_2():
    assert_one_line_exit_2(run_capped("train", "parity", "--lr", "1e300", "--max-updates", "1"), "lr", "at most 1e+06")


def test_spike_threshold_bounds_its_bisection():
    from ponderlib.experiments.pondernet import spike_threshold

    with pytest.raises(ValueError, match=r"^iterations must be an integer in \[1, 1100\]"):
        spike_threshold(5, iterations=10**12)
    assert spike_threshold(5, iterations=1100) == spike_threshold(5, iterations=200)  # converged long before


# --- the second probe's findings (issue 40, 2026-11-29): counts, silent NaN, names ----------------------------

def _second_probe_cases():
    """``(id, call, kind, message)``: each call must raise ``kind`` with a one-line message matching
    ``message`` (which names the parameter), where it returned a NaN, a negative KL, a wrong prior or an
    empty batch, or raised torch's own error, a KeyError or an AttributeError."""
    from ponderlib.core.records import summary_value
    from ponderlib.experiments.act import TauEvidence
    from ponderlib.experiments.parity import HaltingSummary, mean_halting_distribution
    from ponderlib.mechanisms.decoding import greedy_decode
    from ponderlib.mechanisms.halting import act_halting, expected_ponder_steps, geometric_prior_cut
    from ponderlib.mechanisms.losses import (
        ACTLoss,
        PonderNetLoss,
        binary_step_losses,
        kl_to_geometric,
        reconstruction_loss,
    )
    from ponderlib.mechanisms.pondernet import PonderNet
    from ponderlib.mechanisms.universal_transformer import UniversalTransformer
    from ponderlib.tasks.parity import train_parity
    from ponderlib.tasks.parity_models import pondernet_parity_model
    from ponderlib.tasks.sorting import train_sort

    t = torch.tensor
    pointer = PointerNetwork(hidden=4, attention_dim=4, max_positions=4)
    ut = UniversalTransformer(8, 2, 16, 3, "pondernet")
    loss = PonderNetLoss(0.2, 0.01, max_ponder_steps=3)
    halting = {"interpolation_accuracy": 0.9, "mean_ponder_steps": 2.0, "halting_distribution": [0.5, 0.5],
               "config": {"max_ponder_steps": 3}}
    tau = {"config": {"tau": 0.1, "seed": 0}, "final_accuracy": 0.9, "mean_ponder_steps": 2.0,
           "ponder_steps_by_difficulty": {"1": 1.0}, "accuracy_by_difficulty": {"1": 1.0},
           "ponder_difficulty_correlation": 0.5, "curve": {"update": [1], "accuracy": [0.5]}}
    cases = [
        ("draw-huge", lambda: ParityVectors(8).draw(HUGE), ValueError, r"^batch_size must be an integer in \[1, 1000000\]"),
        ("draw-0", lambda: ParityVectors(8).draw(0), ValueError, "^batch_size"),
        ("draw-generator", lambda: ParityVectors(8).draw(4, generator=3), TypeError, "^generator must be a torch.Generator"),
        ("mean_halting_distribution-huge", lambda: mean_halting_distribution(torch.ones(1, 2), HUGE), ValueError,
         r"^max_ponder_steps must be an integer in \[2, 10000\]"),
        ("mean_halting_distribution-list", lambda: mean_halting_distribution([[1.0]], 3), TypeError, "^halting_probs"),
        ("ut-length", lambda: ut(torch.zeros(1, MAX_LENGTH + 1, 8)), ValueError, "^x's length must be at most 10000"),
        ("ut-generator", lambda: ut(torch.zeros(1, 2, 8), halting_rule="sample", generator=3), TypeError, "^generator"),
        ("infer-generator", lambda: pondernet_parity_model(8, 16, 5).infer(torch.ones(2, 8), generator=3), TypeError,
         "^generator"),
        ("ACTLoss-nan-task", lambda: ACTLoss(0.1)(t(NAN), t([1.0, 2.0])), ValueError, "^task_loss must be"),
        ("ACTLoss-float-task", lambda: ACTLoss(0.1)(1.0, t([1.0])), TypeError, "^task_loss"),
        ("ACTLoss-vector-task", lambda: ACTLoss(0.1)(t([1.0, 2.0]), t([1.0, 2.0])), ValueError, "^task_loss must be a scalar"),
        ("ACTLoss-nan", lambda: ACTLoss(0.1)(t(1.0), t([NAN])), ValueError, "^ponder_cost must be free of NaN"),
        ("reconstruction-nan-loss", lambda: reconstruction_loss(t([[NAN, 1.0]]), t([[0.5, 0.5]])), ValueError,
         "^step_losses must lie in"),
        ("reconstruction-negative-loss", lambda: reconstruction_loss(t([[-1.0, 1.0]]), t([[0.5, 0.5]])), ValueError,
         "^step_losses must lie in"),
        ("reconstruction-rows", lambda: reconstruction_loss(t([[1.0, 1.0]]), t([[0.5, 0.2]])), ValueError,
         "^halting_probs must have rows summing to 1"),
        ("binary-target-2", lambda: binary_step_losses(torch.zeros(2, 3), t([2.0, 0.0])), ValueError, "^targets must be 0 or 1"),
        ("binary-shape", lambda: binary_step_losses(torch.zeros(2, 3), t([1.0, 0.0, 1.0])), ValueError, "^targets must have the same shape"),
        ("loss-steps-shape", lambda: loss(torch.ones(2, 3), torch.ones(2, 3) / 3, steps=t([1])), ValueError, "^steps must have the same shape"),
        ("binary-rank", lambda: binary_step_losses(torch.zeros(2), t([1.0, 0.0])), ValueError, "^step_logits must have rank 2"),
        ("binary-nan", lambda: binary_step_losses(t([[NAN, 0.0]]), t([1.0])), ValueError, "^step_logits must be finite"),
        ("kl-rows", lambda: kl_to_geometric(t([[0.1, 0.1, 0.1]]), 0.2), ValueError, "^halting_probs must have rows summing"),
        ("expected-negative", lambda: expected_ponder_steps(t([[-0.5, 1.5]])), ValueError, "^halting_probs must lie in"),
        ("prior_cut-0", lambda: geometric_prior_cut(0.2, t([0, 1]), 3), ValueError, r"^steps must lie in \[1, 3\]"),
        ("prior_cut-above-n", lambda: geometric_prior_cut(0.2, t([5, 1]), 3), ValueError, r"^steps must lie in \[1, 3\]"),
        ("prior_cut-float", lambda: geometric_prior_cut(0.2, t([1.5]), 3), ValueError, "^steps must be integers"),
        ("prior_cut-list", lambda: geometric_prior_cut(0.2, [1, 2], 3), TypeError, "^steps must be a torch.Tensor"),
        ("act_halting-int", lambda: act_halting(torch.ones(2, 3, dtype=torch.long)), ValueError,
         "^halting_units must be a floating-point tensor"),
        ("act_halting-bool", lambda: act_halting(torch.ones(2, 3, dtype=torch.bool)), ValueError, "^halting_units must be a floating"),
        ("loss-shapes", lambda: loss(torch.ones(2, 3), torch.ones(2, 2) / 2), ValueError, "^step_losses must have the same shape"),
        ("loss-too-many-steps", lambda: loss(torch.ones(2, 5), torch.ones(2, 5) / 5), ValueError,
         "^halting_probs must have at most max_ponder_steps = 3"),
        ("loss-steps-list", lambda: loss(torch.ones(2, 3), torch.ones(2, 3) / 3, steps=[1, 2]), TypeError, "^steps"),
        ("loss-steps-0", lambda: loss(torch.ones(2, 3), torch.ones(2, 3) / 3, steps=t([0, 1])), ValueError, "^steps must lie in"),
        ("loss-log-shape", lambda: loss(torch.ones(2, 3), torch.ones(2, 3) / 3, torch.zeros(2, 2)), ValueError,
         "^log_halting_probs must have"),
        ("greedy-nan", lambda: greedy_decode(pointer, t([[NAN, 1.0]]), t([2])), ValueError, "^inputs at real positions"),
        ("greedy-double", lambda: greedy_decode(pointer, t([[0.5, 1.0]], dtype=torch.float64), t([2])), ValueError,
         "^inputs must have the model's dtype"),
        ("greedy-meta", lambda: greedy_decode(pointer, torch.ones(1, 2, device="meta"), t([2])), ValueError, "^inputs is on meta"),
        ("greedy-generator", lambda: pointer(torch.ones(1, 2), t([2]), generator=3), TypeError, "^generator"),
        ("halting-nan-accuracy", lambda: HaltingSummary.of({**halting, "interpolation_accuracy": NAN}), ValueError,
         "'interpolation_accuracy' must be a number in"),
        ("halting-none-steps", lambda: HaltingSummary.of({**halting, "mean_ponder_steps": None}), ValueError,
         "must have the entry 'mean_ponder_steps'"),
        ("halting-empty-distribution", lambda: HaltingSummary.of({**halting, "halting_distribution": []}), ValueError,
         "'halting_distribution' must be a non-empty list"),
        ("halting-nan-distribution", lambda: HaltingSummary.of({**halting, "halting_distribution": [NAN, 1.0]}), ValueError,
         "'halting_distribution' must be a non-empty list"),
        ("halting-no-config", lambda: HaltingSummary.of({k: v for k, v in halting.items() if k != "config"}), ValueError,
         "must have the entry 'config'"),
        ("tau-nan", lambda: TauEvidence.from_summaries([{**tau, "final_accuracy": NAN}]), ValueError,
         r"^summaries\[0\] entry 'final_accuracy'"),
        ("tau-none", lambda: TauEvidence.from_summaries([{**tau, "mean_ponder_steps": None}]), ValueError,
         r"^summaries\[0\] must have the entry 'mean_ponder_steps'"),
        ("tau-empty-difficulty", lambda: TauEvidence.from_summaries([{**tau, "ponder_steps_by_difficulty": {}}]), ValueError,
         "'ponder_steps_by_difficulty' must be a non-empty mapping"),
        ("tau-no-config", lambda: TauEvidence.from_summaries([{k: v for k, v in tau.items() if k != "config"}]), ValueError,
         "must have the entry 'config'"),
        ("tau-string", lambda: TauEvidence.from_summaries("abc"), TypeError, "^summaries must be a list"),
        ("tau-empty-curve", lambda: TauEvidence.from_summaries([{**tau, "curve": {"update": [], "accuracy": []}}]), ValueError,
         "curve entry 'update'"),
        ("summary-not-mapping", lambda: summary_value("x", "config"), TypeError, "^run's summary must be a mapping"),
        ("train-string", lambda: train_parity("x"), TypeError, "^config must be a ParityConfig, got str"),
        ("train-other-config", lambda: train_parity(SortConfig()), TypeError, "^config must be a ParityConfig, got SortConfig"),
        ("train_sort-string", lambda: train_sort("x"), TypeError, "^config must be a SortConfig"),
        ("threads-huge", lambda: ParityConfig(threads=10**9).validate(), ValueError, r"^threads must be an integer in \[1, 1024\]"),
        ("pondernet-generator", lambda: PonderNet(torch.nn.Linear(2, 2), 2).infer(torch.ones(1, 2), generator="0"),
         TypeError, "^generator"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _second_probe_cases())
def test_the_second_probe_is_refused_naming_the_parameter(call, kind, message):
    assert_refused(call, kind, message)


@pytest.mark.parametrize("device", ["cpu:1", "cpu:0"])
def test_a_cpu_device_with_an_index_is_refused(monkeypatch, device):
    from ponderlib.core.device import ENV_VAR, get_device

    with pytest.raises(ValueError, match=r"^device must be 'cpu' without an index"):
        get_device(device)
    monkeypatch.setenv(ENV_VAR, device)
    with pytest.raises(ValueError, match=rf"^{ENV_VAR} must be 'cpu' without an index"):
        get_device()


@pytest.mark.parametrize("verdict", ["no", None, 1, torch.tensor(True)], ids=["str", "none", "int", "tensor"])
def test_a_claim_that_returns_no_bool_is_a_type_error_not_counted(verdict):
    from ponderlib.sweep.evidence import Evidence

    evidence = Evidence.load("act-parity-live", EVIDENCE)
    point = {name: values[0] for name, values in evidence.preset.grid.items()}
    with pytest.raises(TypeError, match=r"^claim must return a bool"):
        evidence.rate(lambda run: verdict, **point)
    with pytest.raises(TypeError, match=r"^claim must return a bool"):
        evidence.rate_by_seed(lambda row: verdict)
    with pytest.raises(TypeError, match=r"^claim must be a function"):
        evidence.rate("claim", **point)
    assert evidence.rate(lambda run: True, **point).holds == len(evidence.runs(**point))


def _record(seed, task="parity", **summary):
    return {"task": task, "point": {"tau": 0.1}, "seed": seed, "config": {"tau": 0.1, "seed": seed}, "summary": summary}


@pytest.mark.parametrize(
    ("values", "shown"),
    [([NAN, NAN], "accuracy\ntau  seeds  mean  std  min  max\n0.1      0     -    -    -    -"),
     ([INF, 0.5], "accuracy\ntau  seeds  mean  std  min  max\n0.1      1   0.5    -  0.5  0.5"),
     ([1e308, 1e308], "accuracy\ntau  seeds    mean  std     min     max\n0.1      2  1e+308    0  1e+308  1e+308")],
    ids=["all-nan", "inf", "near-overflow"],
)
def test_a_summary_lists_a_metric_no_seed_measured_and_never_raises_on_its_values(values, shown):
    from ponderlib.sweep.summary import format_summary, summarize

    text = format_summary(summarize([_record(seed, accuracy=value) for seed, value in enumerate(values)]))
    assert text == shown


@pytest.mark.parametrize(
    ("records", "message"),
    [([_record(0, accuracy=0.5), _record(1, "sorting", accuracy=0.5)], "holds runs of the tasks"),
     ([_record(0, accuracy=0.5), _record(0, accuracy=0.5)], "is there twice"),
     ([_record(-1, accuracy=0.5)], "not a sweep record"),
     ([{**_record(1, accuracy=0.5), "seed": 2}], "not a sweep record")],
    ids=["two-tasks", "a-run-twice", "negative-seed", "seed-not-the-configs"],
)
def test_a_results_file_not_of_one_sweep_is_refused_by_summary_and_sweep_byte_for_byte(tmp_path, capsys, records, message):
    import json

    from ponderlib import cli

    results = tmp_path / "runs.jsonl"
    results.write_text("".join(json.dumps(record) + "\n" for record in records))
    before = results.read_bytes()
    for args in (["sweep", "--summary", str(results)],
                 ["sweep", "parity", "--grid", "lambda_p=0.1", "--seeds", "5", "--results", str(results), "--quiet"]):
        with pytest.raises(SystemExit) as exit_:
            cli.main(args)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1 and message in err, err
        assert results.read_bytes() == before


@pytest.mark.parametrize("records", ["x", ["x"], [{"task": "parity"}]], ids=["string", "list-of-string", "no-config"])
def test_summarize_names_what_is_not_a_record(records):
    from ponderlib.sweep.summary import format_summary, summarize

    with pytest.raises(TypeError, match=r"^records\[0\] is not a sweep record|^records\[0\]"):
        summarize(records)
    with pytest.raises(TypeError, match=r"^rows must be summarize\(\)'s list of rows"):
        format_summary("rows")


@pytest.mark.parametrize("results", ["", ".", "missing-folder/runs.jsonl"])
def test_cli_results_that_is_no_file_names_the_option(tmp_path, monkeypatch, capsys, results):
    from ponderlib import cli

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["sweep", "parity", "--grid", "lambda_p=0.1", "--seeds", "0", "--results", results, "--quiet"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--results must name a file in an existing folder" in err and "results_path" not in err
    assert list(tmp_path.iterdir()) == []


def _empty_figure_cases():
    """``(id, call, message)``: a figure of nothing drew an empty canvas, returned no figures, or raised
    ZeroDivisionError or an error that named nothing."""
    import matplotlib

    matplotlib.use("Agg")
    from ponderlib.figures import act, pointer, pondernet, transformer

    cases = [
        ("plot_ponder_cost_sawtooth", lambda: act.plot_ponder_cost_sawtooth([], [], [], []), ValueError, "^scales must hold"),
        ("plot_tau_trade_off", lambda: act.plot_tau_trade_off([]), TypeError, "^grid must be a TauGrid"),
        ("plot_sequence_ponder", lambda: act.plot_sequence_ponder([], []), TypeError, "^steps must be a torch.Tensor"),
        ("training_curves_figure", lambda: pointer.training_curves_figure({}, "t"), ValueError, "^histories must hold"),
        ("pointer_diagram_figure", lambda: pointer.pointer_diagram_figure([], [], "t"), ValueError, "^values must hold"),
        ("sort_example_figures", lambda: pointer.sort_example_figures([], "t"), ValueError, "^examples must hold"),
        ("hull_example_figures", lambda: pointer.hull_example_figures([], 0), ValueError, "^examples must hold"),
        ("plot_lambdas_to_halting", lambda: pondernet.plot_lambdas_to_halting([], []), ValueError, "^lambdas must hold"),
        ("plot_lambdas_to_halting-lengths", lambda: pondernet.plot_lambdas_to_halting([0.5, 1.0], [1.0]), ValueError,
         "^halting_probs must hold one p_n per lambda_n"),
        ("plot_extrapolation_curves", lambda: pondernet.plot_extrapolation_curves({}, {}, "t"), ValueError, "^groups must hold"),
        ("plot_extrapolation_curves-group", lambda: pondernet.plot_extrapolation_curves({"a": []}, {"a": "act"}, "t"),
         ValueError, r"^groups\['a'\] must hold at least one run"),
        ("plot_ponder_schematic", lambda: transformer.plot_ponder_schematic([], [], 3), ValueError, "^ponder_steps must hold"),
        ("plot_ponder_schematic-cap", lambda: transformer.plot_ponder_schematic([2, 5], ["a", "b"], 3), ValueError,
         r"^max_ponder_steps must be an integer in \[5, 10000\]"),
        ("plot_by_depth", lambda: transformer.plot_by_depth({}), ValueError, "^runs must hold"),
        ("plot_depth_evidence", lambda: transformer.plot_depth_evidence({"act": []}), ValueError, r"^runs\['act'\] must hold"),
        ("plot_depth_by_position", lambda: transformer.plot_depth_by_position({}), ValueError, "^mean_depth must hold"),
        ("plot_steps_distribution", lambda: transformer.plot_steps_distribution({}), ValueError, "^distributions must hold"),
        ("plot_curves", lambda: transformer.plot_curves({}), ValueError, "^summaries must hold"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _empty_figure_cases())
def test_a_figure_of_nothing_is_refused_naming_the_argument(call, kind, message):
    assert_refused(call, kind, message)
