"""Sweeps (:mod:`ponderlib.sweep`): the grid, every check before anything runs, results appended run by
run and resumed, the same numbers under every executor, and a worker killed mid-sweep, on a real
process pool and a real local Ray cluster (started and stopped here, not mocked).

Runs are tiny (3-element parity, 8 units, 5 training updates), so the file takes about a minute on
2 cores, most of it starting worker processes and Ray: those tests are marked ``slow``, and the rest
(``-m "not slow"``) take seconds.
"""

import dataclasses
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest

from ponderlib import cli
from ponderlib.core import config as config_module
from ponderlib.core.engine import start_run
from ponderlib.figures import style
from ponderlib.figures.sweep import plot_sweep
from ponderlib.sweep import (
    GRAVES_TAUS,
    PRESETS,
    SweepIncomplete,
    expand_grid,
    format_summary,
    load_results,
    load_spec,
    make_spec,
    summarize,
    sweep,
)
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.registry import TASKS, Task

try:
    import ray
except ImportError:
    ray = None

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n_elems": 3, "hidden": 8, "max_updates": 5, "eval_size": 32, "batch_size": 16, "difficulty_eval_size": 32}
GRID = {"method": ["act", "pondernet"], "max_ponder_steps": [3, 4]}
SEEDS = [0, 1]
RUNS = 8
MEASURED = ("final_accuracy", "mean_ponder_steps", "updates", "reached_target")
"""What a run measures (its wall time aside): equal under every executor."""

needs_ray = pytest.mark.skipif(
    ray is None and os.environ.get("CI") != "true",
    reason="ray is not installed (pip install 'ponderlib[ray]'); under CI=true these tests run, and fail without it",
)

CRASH = "PONDERLIB_TEST_SWEEP_CRASH"
"""Names a marker file: while it exists, the last run of the sweep (pondernet, max_ponder_steps 4, seed 1) kills its worker."""


def train_or_kill_worker(config: ParityConfig):
    """Parity, except that one run ends its process, as a worker lost to the OOM killer or a lost node would."""
    marker = os.environ.get(CRASH)
    if (config.method, config.max_ponder_steps, config.seed) == ("pondernet", 4, 1) and marker and os.path.exists(marker):
        time.sleep(0.5)  # the other worker's runs finish first
        os._exit(3)
    return train_parity(config)


@pytest.fixture
def killer(monkeypatch):
    """A task whose worker dies on one run, registered for this test only."""
    monkeypatch.setitem(TASKS, "parity-killer", Task(ParityConfig, train_or_kill_worker, "parity; one run kills its worker"))
    return "parity-killer"


def measured(records) -> dict:
    return {(json.dumps(r["point"], sort_keys=True), r["seed"]): {k: r["summary"][k] for k in MEASURED} for r in records}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tiny sweep, in this process: what every executor must reproduce."""
    return sweep("parity", GRID, SEEDS, tmp_path_factory.mktemp("inprocess") / "runs.jsonl", fixed=TINY, progress=False)


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """A real local Ray cluster with 2 CPUs, in its own process, started here and stopped after the
    module's tests; yields ``(address, crash marker path)``."""
    if ray is None and os.environ.get("CI") != "true":
        pytest.skip("ray is not installed")
    folder = tmp_path_factory.mktemp("ray")
    marker = folder / "kill"
    script = (
        "import sys, ray\n"
        "context = ray.init(num_cpus=2, include_dashboard=False)\n"
        "print(context.address_info['gcs_address'], flush=True)\n"
        "sys.stdin.read()\n"  # until the test closes stdin
        "ray.shutdown()\n"
    )
    env = {**os.environ, CRASH: str(marker), "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    with open(folder / "cluster.log", "w") as log:
        cluster = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=log, text=True, env=env)
    address = cluster.stdout.readline().strip()
    assert address, f"the Ray cluster did not start: {(folder / 'cluster.log').read_text()[-2000:]}"
    yield address, marker
    cluster.stdin.close()
    try:
        cluster.wait(timeout=60)
    except subprocess.TimeoutExpired:
        cluster.kill()
        cluster.wait()


# --- the grid and the checks -----------------------------------------------------------------


def test_the_grid_is_every_combination_first_field_slowest():
    assert expand_grid({"method": ["act", "pondernet"], "tau": [1, 2, 3]}) == [
        {"method": m, "tau": t} for m in ("act", "pondernet") for t in (1, 2, 3)
    ]


def test_the_plan_is_one_checked_config_per_point_and_seed():
    spec = make_spec("parity", {"method": ["act", "pondernet"], "tau": [1, 0.5]}, [3, 4, 5], fixed={"n_elems": 4})
    runs = spec.runs
    # ACT at two taus; PonderNet, which has no tau, once: its run at tau 1 and at tau 0.5 would be one run
    assert len(runs) == (2 + 1) * 3 and len({run.key for run in runs}) == len(runs)
    assert [run.seed for run in runs[:3]] == [3, 4, 5] and runs[0].point == {"method": "act", "tau": 1.0}
    assert [run.point for run in runs[6:]] == [{"method": "pondernet"}] * 3
    assert all("tau" not in run.config.to_dict() for run in runs[6:])  # a record holds its method's fields
    assert all(run.config.n_elems == 4 and run.config.progress is False for run in runs)
    assert isinstance(runs[0].config.tau, float)  # tau=1 and tau=1.0 are one run, with one key
    assert runs[0].config.seed == 3 and runs[-1].config.method == "pondernet"


def test_a_config_holds_its_methods_fields_and_refuses_another_methods():
    act, pondernet = ParityConfig(method="act"), ParityConfig(method="pondernet")
    assert {"tau", "eps", "halting_bias_init"} <= set(act.to_dict()) and "lambda_p" not in act.to_dict()
    assert {"lambda_p", "beta", "kl_direction", "unroll"} <= set(pondernet.to_dict()) and "tau" not in pondernet.to_dict()
    assert {"hidden", "max_ponder_steps", "label", "checkpoint"} <= set(act.to_dict()) & set(pondernet.to_dict())
    with pytest.raises(ValueError, match=r"^lambda_p is PonderNet's setting, which method='act' does not use: .*0\.2, got 0\.5$"):
        ParityConfig(method="act", lambda_p=0.5).validate()
    with pytest.raises(ValueError, match="^tau is ACT's setting, which method='pondernet'"):
        ParityConfig(tau=0.1).validate()  # PonderNet is the default method
    assert ParityConfig(method="act", lambda_p=0.2).to_dict() == act.to_dict()  # at its default: no error
    with pytest.raises(ValueError, match="grid varies 'tau', which no run of this sweep uses"):
        make_spec("parity", {"tau": [0.1, 0.01]}, [0], fixed={"n_elems": 4})


def test_a_run_without_a_grid_field_is_the_run_at_each_of_its_values(tmp_path):
    from ponderlib.sweep.evidence import at_point

    record = {"point": {"method": "pondernet"}}
    assert at_point(record, {"method": "pondernet", "tau": 0.1}) and at_point(record, {"method": "pondernet", "tau": 1})
    assert not at_point(record, {"method": "act", "tau": 0.1})
    assert at_point({"point": {"method": "act", "tau": 0.1}}, {"method": "act", "tau": 0.1})
    assert not at_point({"point": {"method": "act", "tau": 0.1}}, {"method": "act", "tau": 1.0})


@pytest.fixture
def validations(monkeypatch) -> list[int]:
    """The ids of the parity configs validated while a test runs (by :meth:`TrainConfig.validate_once`,
    whose first check is :func:`~ponderlib.core.config.check_field_types`, then ``validate``)."""
    validated: list[int] = []
    checks = config_module.check_field_types

    def counted(config: ParityConfig) -> None:
        validated.append(id(config))
        checks(config)

    monkeypatch.setattr(config_module, "check_field_types", counted)
    return validated


def test_a_sweep_validates_each_config_once(tmp_path, validations):
    runs = make_spec("parity", {"method": ["act", "pondernet"]}, [0, 1], TINY).runs
    assert len(validations) == len(set(validations)) == len(runs) == 4
    for run in runs:  # start_run, in each run's train function, does not check them again
        start_run(run.config)
        start_run(pickle.loads(pickle.dumps(run.config)))  # as a worker process gets it
    assert len(validations) == 4
    validations.clear()
    report = sweep("parity", {"method": ["act"]}, [0, 1], tmp_path / "runs.jsonl", fixed=TINY, progress=False)
    assert report.finished == 2 and len(validations) == len(set(validations)) == 2  # make_spec, sweep and train


def test_what_validation_records_is_no_field_of_the_config():
    (run,) = make_spec("parity", {"lambda_p": [0.1]}, [0], TINY).runs
    config = run.config
    assert "_validated" not in {f.name for f in dataclasses.fields(config)} | set(vars(config))
    assert "_validated" not in dataclasses.asdict(config) and "_validated" not in config.to_dict()
    assert ParityConfig(**vars(config)) == config


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("hidden", -1, r"hidden must be an integer in \[1, 4096\], got -1"),
        ("n_elems", 3.0, "n_elems must be an integer"),  # equal to the 3 validated, but not an integer
        ("method", "lstm", "method must be one of 'act', 'pondernet'"),
    ],
)
def test_a_config_changed_after_validation_is_validated_again(validations, name, value, message):
    (run,) = make_spec("parity", {"lambda_p": [0.1]}, [0], TINY).runs
    setattr(run.config, name, value)
    with pytest.raises(ValueError, match=message):
        start_run(run.config)
    replaced = dataclasses.replace(run.config, **{name: getattr(ParityConfig(**TINY), name)})
    start_run(replaced)
    start_run(replaced)
    assert validations == [id(run.config), id(run.config), id(replaced)]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"task": "chess"}, "task must be one of 'parity'"),
        ({"grid": {}}, "grid must be a non-empty mapping"),
        ({"grid": {"tau": []}}, "grid['tau'] must be a non-empty list"),
        ({"grid": {"tau": 0.1}}, "grid['tau'] must be a non-empty list"),
        ({"grid": {"tau": [0.1, 0.1]}}, "grid['tau'] must be distinct: it lists 0.1 more than once"),
        ({"grid": {"colour": ["red"]}}, "grid names 'colour', which is not a field of ParityConfig"),
        ({"grid": {"seed": [1, 2]}}, "grid must not set 'seed'"),
        ({"grid": {"device": ["cpu"]}}, "grid must not vary 'device'"),
        ({"fixed": {"progress": True}}, "fixed must not set 'progress'"),
        ({"fixed": {"tau": 0.1}}, "'tau' is in both grid and fixed"),
        ({"grid": {"lambda_p": [0.5, 1.5]}}, "lambda_p must be in (0, 1], got 1.5"),
        ({"fixed": {"n_elems": 3, "min_nonzero": 4}}, "min_nonzero must be an integer in [1, 3], got 4"),
        ({"seeds": []}, "seeds must be a non-empty list"),
        ({"seeds": [0, 0]}, "seeds must be distinct"),
        ({"seeds": [-1]}, "seed must be an integer in [0, 9223372036854775807], got -1"),
        ({"executor": "threads"}, "executor must be one of 'inprocess', 'pool', 'ray'; got 'threads'"),
        ({"executor": "pool", "workers": 0}, "workers must be an integer in [1, 1024], got 0"),
        ({"workers": 2}, "workers applies to executor='pool' or 'ray'"),
        ({"executor": "pool", "address": "auto"}, "address applies to executor='ray' only"),
    ],
)
def test_bad_sweeps_fail_before_anything_runs(tmp_path, kwargs, message):
    arguments = {"task": "parity", "grid": {"tau": [0.1]}, "seeds": [0], "fixed": dict(TINY), **kwargs}
    results = tmp_path / "runs.jsonl"
    with pytest.raises(ValueError) as error:
        sweep(arguments.pop("task"), arguments.pop("grid"), arguments.pop("seeds"), results, progress=False, **arguments)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert not results.exists()


def test_a_results_file_in_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="results_path must be a file in an existing folder"):
        sweep("parity", {"lambda_p": [0.1]}, [0], tmp_path / "nowhere" / "runs.jsonl", fixed=TINY)


def test_spec_files_yaml_and_json(tmp_path):
    yaml_spec = tmp_path / "spec.yaml"
    yaml_spec.write_text("task: parity\nfixed: {method: act, n_elems: 4}\ngrid:\n  tau: [1e-3, 1e-2]\nseeds: [0, 1]\n")
    spec = load_spec(yaml_spec)
    assert spec.grid == {"tau": [0.001, 0.01]}  # 1e-3 is a number, as in YAML 1.2
    assert spec.runs is None  # read, not checked yet
    assert len(make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs) == 4
    json_spec = tmp_path / "spec.json"
    json_spec.write_text(json.dumps({"task": "sorting", "grid": {"decoder": ["pointer", "seq2seq"]}, "seeds": [0]}))
    assert load_spec(json_spec).task == "sorting"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("spec.yaml", "task: parity\ngrid: {tau: [0.1\nseeds: [0]\n", "is not valid YAML"),
        ("spec.json", "{\"task\": \"parity\",", "is not valid JSON"),
        ("spec.yaml", "- parity\n", "must hold a mapping"),
        ("spec.yaml", "task: parity\ngrids: {tau: [0.1]}\nseeds: [0]\n", "has unknown key 'grids'"),
        ("spec.yaml", "task: parity\nseeds: [0]\n", "has no 'grid'"),
        ("spec.yaml", "task: parity\ngrid: [tau]\nseeds: [0]\n", "grid must be a mapping"),
        ("spec.toml", "", "must end in .json, .yaml or .yml"),
    ],
)
def test_malformed_spec_files_are_one_line_errors(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        load_spec(path)
    assert message in str(error.value) and "\n" not in str(error.value)


# --- the CLI ---------------------------------------------------------------------------------


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = cli.main(["sweep", *args])
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


TINY_FLAGS = [f"--set={name}={value}" for name, value in TINY.items()]


@pytest.mark.parametrize(
    "args, message",
    [
        (["chess", "--grid", "tau=0.1"], "task must be one of 'parity'"),
        (["parity", "--grid", "colour=red"], "'colour' is not a field of ParityConfig"),
        (["parity", "--grid", "n-elems=eight"], "--grid n_elems must be an integer, got 'eight'"),
        (["parity", "--grid", "tau"], "--grid takes FIELD=VALUE[,VALUE...], got 'tau'"),
        (["parity", "--set", "method=act", "--grid", "tau=-1,0.1"], "tau must be a finite number >= 0 and at most 1e+06, got -1.0"),
        (["parity", "--grid", "seed=1,2"], "grid must not set 'seed'"),
        (["parity", "--set", "tau=0.1,0.2"], "--set takes one value"),
        (["parity"], "grid must be a non-empty mapping"),
        (["parity", "--grid", "tau=0.1", "--seeds", "a,b"], "--seeds takes integers >= 0 and ranges"),
        (["--preset", "graves-parity-tau", "parity"], "give one of TASK, --spec FILE, --preset NAME"),
        (["--preset", "nope"], "argument --preset: invalid choice: 'nope'"),
        (["parity", "--grid", "tau=0.1", "--executor", "pool", "--address", "auto"], "address applies to executor='ray' only"),
    ],
)
def test_cli_bad_sweeps_are_one_line_exit_2_and_run_nothing(tmp_path, capsys, args, message):
    results = tmp_path / "runs.jsonl"
    seeds = [] if "--seeds" in args else ["--seeds", "0"]  # an option is given once
    status, out, err = run_main(capsys, *TINY_FLAGS, *seeds, "--results", str(results), *args)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert not results.exists()


def test_cli_without_results_or_with_a_bad_spec_file(tmp_path, capsys):
    status, _, err = run_main(capsys, "parity", "--grid", "tau=0.1", "--seeds", "0")
    assert status == 2 and "--results FILE is required" in err
    spec = tmp_path / "spec.yaml"
    spec.write_text("task: parity\ngrid: {tau: [0.1]\n")
    status, _, err = run_main(capsys, "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert status == 2 and "is not valid YAML" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs.jsonl").exists()


def test_cli_error_in_a_real_process_has_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ponderlib", "sweep", "parity", "--grid", "hidden=8,-1", "--seeds", "0",
         "--results", str(tmp_path / "runs.jsonl")],
        check=False, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "python -m ponderlib: error: grid point {'hidden': -1}: hidden must be an integer in [1, 4096], got -1"
    ]
    assert not (tmp_path / "runs.jsonl").exists()


def test_cli_sweep_then_again_then_summary(tmp_path, capsys):
    results = str(tmp_path / "runs.jsonl")
    args = ["parity", "--grid", "method=act,pondernet", *TINY_FLAGS, "--seeds", "0-1", "--results", results, "--quiet"]
    status, out, _ = run_main(capsys, *args, "--json")
    output = json.loads(out)
    assert status == 0 and (output["runs"], output["skipped"], output["finished"]) == (4, 0, 4)
    assert [row["point"] for row in output["summary"]] == [{"method": "act"}, {"method": "pondernet"}]
    assert output["summary"][0]["seeds"] == [0, 1]
    status, out, _ = run_main(capsys, *args)
    assert status == 0 and "4 runs: 4 already there, 0 ran now" in out and "final_accuracy" in out
    status, out, _ = run_main(capsys, "--summary", results, "--json")
    assert status == 0 and json.loads(out)["summary"] == summarize(load_results(results))


def test_presets_are_valid_sweeps_listed_in_help(capsys):
    for name, preset in PRESETS.items():
        spec = preset.spec()
        runs = make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs
        assert len(runs) == preset.runs and runs[0].config.max_updates == preset.max_updates, name
    graves = PRESETS["graves-parity-tau"]
    assert graves.runs == 37 * 20 and "tanh" in graves.description
    config = graves.config(0, tau=1e-3)  # Graves' sec. 3 and 3.1, as quoted in chapter 1's report
    assert (config.n_elems, config.hidden, config.cell, config.batch_size, config.lr) == (64, 128, "tanh", 128, 1e-4)
    assert (config.eps, config.halting_bias_init, config.max_ponder_steps) == (0.01, 1.0, 100)
    assert min(GRAVES_TAUS) == 1e-4 and max(GRAVES_TAUS) == 1.0 and 0.02 in GRAVES_TAUS and 0.1 in GRAVES_TAUS
    for size, point in (("graves-parity-32", {"tau": 1e-3}), ("graves-parity-32-no-act", {"max_ponder_steps": 1})):
        sixteen = PRESETS[size.replace("32", "16")].config(0, **point)  # graves-parity-16's network, twice the size
        assert PRESETS[size].config(0, **point) == dataclasses.replace(sixteen, n_elems=32, max_updates=200_000), size
    assert PRESETS["pondernet-parity-interpolation"].fixed["lr"] == 3e-4
    extrapolation = PRESETS["pondernet-parity-extrapolation"].spec()
    assert extrapolation.fixed["n_elems"] == 96 and extrapolation.fixed["max_nonzero"] == 48
    status, out, _ = run_main(capsys, "--help")
    assert status == 0 and all(name in out for name in PRESETS)


def test_chapter_3_presets_at_convergence():
    hull = PRESETS["pointer-hull-256"].config(0, hidden=256)
    assert (hull.hidden, hull.attention_dim, hull.lr, hull.beam_width) == (256, 256, 1e-3, 3)
    assert hull.lr_decay < 1 and (hull.min_points, hull.max_points, hull.test_max_points) == (5, 10, 20)
    assert PRESETS["pointer-hull-256"].runs >= 3 and hull.target_accuracy is None
    decoders = PRESETS["pointer-sort-decoders-converged"]
    assert decoders.grid == {"decoder": ["seq2seq", "bahdanau", "luong", "pointer"]}
    assert decoders.seeds == list(range(5))
    live = PRESETS["pointer-sort-decoders-live"].config(0, decoder="pointer")
    converged = decoders.config(0, decoder="pointer")
    # The live comparison's task and network, trained 100 times longer at a decaying rate.
    same = ("values", "order", "min_len", "max_len", "hidden", "attention_dim", "batch_size", "lr", "test_size")
    assert all(getattr(converged, name) == getattr(live, name) for name in same)
    assert converged.max_updates == 100 * live.max_updates and converged.target_accuracy is None


# --- results: appended, resumed, summarized --------------------------------------------------


def test_runs_are_appended_and_a_rerun_skips_them_after_a_cut_line(tmp_path, reference):
    results = tmp_path / "runs.jsonl"
    first = sweep("parity", GRID, SEEDS, results, fixed=TINY, progress=False)
    assert (first.runs, first.skipped, first.finished, first.failed) == (RUNS, 0, RUNS, [])
    lines = results.read_text().splitlines()
    assert len(lines) == RUNS
    record = json.loads(lines[0])
    assert record["task"] == "parity" and record["point"] == {"method": "act", "max_ponder_steps": 3} and record["seed"] == 0
    summary = record["summary"]
    assert record["config"] == summary["config"] and record["config"]["seed"] == 0 and record["config"]["n_elems"] == 3
    assert summary["updates"] == 5
    assert {"device", "ponderlib_version", "seconds", "final_accuracy", "mean_ponder_steps"} <= set(summary)
    assert summary["accuracy_by_difficulty"].keys() == {"1", "2", "3"}  # per difficulty, carried whole
    assert "accuracy_by_difficulty.3" in summarize(first.records)[0]["metrics"]
    assert measured(first.records) == measured(reference.records)  # seeded: the same runs again

    # A killed writer: the first line whole, the second cut in the middle.
    results.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])
    assert len(load_results(results)) == 1
    resumed = sweep("parity", GRID, SEEDS, results, fixed=TINY, progress=False)
    assert (resumed.skipped, resumed.finished) == (1, RUNS - 1)
    assert [json.loads(line) for line in results.read_text().splitlines()] == load_results(results)
    assert measured(load_results(results)) == measured(first.records)

    again = sweep("parity", GRID, SEEDS, results, fixed=TINY, progress=False)
    assert (again.skipped, again.finished) == (RUNS, 0) and len(load_results(results)) == RUNS


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path):
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"method": ["act"]}, [0, 1], results, fixed=TINY, progress=False)
    first = results.read_text().splitlines()[0]
    results.write_text(first)
    report = sweep("parity", {"method": ["act"]}, [0, 1], results, fixed=TINY, progress=False)
    assert (report.skipped, report.finished) == (1, 1)
    assert results.read_text().splitlines()[0] == first and len(load_results(results)) == 2


def test_a_broken_line_before_the_last_is_an_error(tmp_path):
    results = tmp_path / "runs.jsonl"
    results.write_text("not json\n{}\n")
    with pytest.raises(ValueError, match="line 1: not a sweep record"):
        sweep("parity", {"lambda_p": [0.1]}, [0], results, fixed=TINY, progress=False)
    assert results.read_text() == "not json\n{}\n"


def interrupted_on_seed_1(config: ParityConfig):
    """Parity, with Ctrl-C during training in the run of seed 1 (``fit`` stops and says so)."""
    result = train_parity(config)
    result.fit.interrupted = config.seed == 1
    return result


def test_ctrl_c_stops_the_sweep_and_the_interrupted_run_is_not_recorded(tmp_path, monkeypatch):
    monkeypatch.setitem(TASKS, "parity-ctrl-c", Task(ParityConfig, interrupted_on_seed_1, "parity, interrupted"))
    results = tmp_path / "runs.jsonl"
    with pytest.raises(KeyboardInterrupt):
        sweep("parity-ctrl-c", {"method": ["act"]}, [0, 1, 2], results, fixed=TINY, progress=False)
    assert [record["seed"] for record in load_results(results)] == [0]


def test_summary_mean_and_spread_over_seeds():
    def record(seed, accuracy, reached):
        config = {"tau": 0.1, "n_elems": 8, "seed": seed}
        summary = {"task": "parity", "seed": seed, "final_accuracy": accuracy, "reached_target": reached,
                   "seconds_to_target": 2.0 * seed if reached else None, "method": "act", "n_elems": 8,
                   "exact_match_by_length": {"5": accuracy}, "config": config}
        return {"task": "parity", "point": {"tau": 0.1}, "seed": seed, "config": config, "summary": summary}

    records = [record(0, 0.5, True), record(1, 0.7, False), record(2, 0.9, True), record(2, 0.9, True)]
    (row,) = summarize(records)  # the repeated run counts once
    assert row["point"] == {"tau": 0.1} and row["seeds"] == [0, 1, 2] and "n_elems" not in row["metrics"]
    accuracy = row["metrics"]["final_accuracy"]
    assert accuracy["n"] == 3 and accuracy["min"] == 0.5 and accuracy["max"] == 0.9
    assert accuracy["mean"] == pytest.approx(0.7) and accuracy["std"] == pytest.approx(0.2)
    assert row["metrics"]["reached_target"]["mean"] == pytest.approx(2 / 3)
    assert row["metrics"]["seconds_to_target"]["n"] == 2  # measured only where the target was reached
    assert row["metrics"]["exact_match_by_length.5"]["mean"] == pytest.approx(0.7)
    text = format_summary(summarize(records))
    assert text.startswith("final_accuracy") and "0.7" in text and "0.2" in text
    assert "exact_match_by_length.5" not in text and text.endswith("(exact_match_by_length): see --json")
    assert "exact_match_by_length.5" in format_summary(summarize(records), nested=True)


def test_plot_each_seed_and_the_mean_in_the_methods_colours(reference):
    fig = plot_sweep(reference.records, "max_ponder_steps", "final_accuracy")
    ax = fig.axes[0]
    assert [line.get_color() for line in ax.get_lines()] == [style.color("act"), style.color("pondernet")]
    assert [len(c.get_offsets()) for c in ax.collections] == [4, 4]  # 2 caps x 2 seeds per method
    assert ax.get_xlabel() and ax.get_ylabel() and "2 seeds" in ax.get_title()
    shades = [matplotlib.colors.to_hex(c) for c in ax.collections[0].get_facecolor()]
    assert set(shades) == set(style.seed_colors("act", 2))  # one shade of the method's colour per seed
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "ACT: each seed (dots), mean of 2 seeds (line)", "PonderNet: each seed (dots), mean of 2 seeds (line)"
    ]
    assert style.shown_width(fig) <= style.SHOWN_WIDTH
    assert [t.get_text() for t in ax.get_xticklabels()] == ["3", "4"]  # a tick at each value, no others
    with pytest.raises(ValueError, match="metric='accuracy' is not measured"):
        plot_sweep(reference.records, "max_ponder_steps", "accuracy")
    with pytest.raises(ValueError, match="the runs differ in 'max_ponder_steps'"):
        plot_sweep(reference.records, "n_elems", "final_accuracy")


# --- executors -------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_pool_gives_the_same_runs(tmp_path, reference):
    report = sweep("parity", GRID, SEEDS, tmp_path / "runs.jsonl", fixed=TINY, executor="pool", workers=2, progress=False)
    assert report.finished == RUNS
    assert_same_runs(report.records, reference.records)
    assert {r["summary"]["torch_threads"] for r in report.records} == {1}


def assert_same_runs(records, expected):
    got, want = measured(records), measured(expected)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-6), key


@pytest.mark.slow
def test_a_pool_worker_killed_mid_sweep_loses_no_finished_run(tmp_path, monkeypatch, killer):
    marker = tmp_path / "kill"
    marker.touch()
    monkeypatch.setenv(CRASH, str(marker))
    results = tmp_path / "runs.jsonl"
    with pytest.raises(SweepIncomplete) as failure:
        sweep(killer, GRID, SEEDS, results, fixed=TINY, executor="pool", workers=2, progress=False)
    report = failure.value.report
    assert ({"method": "pondernet", "max_ponder_steps": 4}, 1) in [(point, seed) for point, seed, _ in report.failed]
    assert all("BrokenProcessPool" in error for _, _, error in report.failed)
    assert report.finished >= 1 and report.finished + len(report.failed) == RUNS
    assert len(load_results(results)) == report.finished  # every finished run is on disk
    assert "run the same sweep again" in str(failure.value) and "\n" not in str(failure.value)

    marker.unlink()
    resumed = sweep(killer, GRID, SEEDS, results, fixed=TINY, executor="pool", workers=2, progress=False)
    assert (resumed.skipped, resumed.finished) == (report.finished, RUNS - report.finished)
    assert len(load_results(results)) == RUNS


@pytest.mark.slow
@needs_ray
def test_ray_gives_the_same_runs_on_its_own_local_cluster_and_on_a_running_one(tmp_path, reference, ray_cluster):
    address, _ = ray_cluster
    local = sweep("parity", GRID, SEEDS, tmp_path / "local.jsonl", fixed=TINY, executor="ray", workers=2, progress=False)
    assert_same_runs(local.records, reference.records)
    assert not ray.is_initialized()  # the sweep stopped the cluster it started
    remote = sweep("parity", GRID, SEEDS, tmp_path / "remote.jsonl", fixed=TINY, executor="ray", address=address, progress=False)
    assert_same_runs(remote.records, reference.records)
    assert {r["summary"]["torch_threads"] for r in remote.records} == {1}


@pytest.mark.slow
@needs_ray
def test_a_ray_worker_killed_mid_sweep_loses_no_finished_run(tmp_path, ray_cluster, killer):
    address, marker = ray_cluster
    marker.touch()
    results = tmp_path / "runs.jsonl"
    with pytest.raises(SweepIncomplete) as failure:  # Ray retries the run on a new worker, which dies too
        sweep(killer, GRID, SEEDS, results, fixed=TINY, executor="ray", address=address, progress=False)
    report = failure.value.report
    assert [(point, seed) for point, seed, _ in report.failed] == [({"method": "pondernet", "max_ponder_steps": 4}, 1)]
    assert "WorkerCrashedError" in report.failed[0][2]
    assert report.finished == RUNS - 1 and len(load_results(results)) == RUNS - 1

    marker.unlink()
    resumed = sweep(killer, GRID, SEEDS, results, fixed=TINY, executor="ray", address=address, progress=False)
    assert (resumed.skipped, resumed.finished) == (RUNS - 1, 1)
    assert len(load_results(results)) == RUNS
