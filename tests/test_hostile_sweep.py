"""The sweep command used as a hostile (or careless) user would (issue 26, items 1 to 5): one test per
case, each checking the exact exit status, that the message is one line naming what is wrong, and
that every file is byte for byte as it was (no file appears, none changes) unless a run finished.

1. a results file is never damaged; 2. one writer per results file; 3. nothing hangs; 4. everything is
checked before the first run; 5. no silent change of a request. Most calls run the command in this
process (``cli.main``, no torch start-up); those that could hang, or need a real Ctrl-C, run
``python -m ponderlib`` in a process of its own with a time limit.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import ROOT, run_cli

from ponderlib import cli
from ponderlib.core.config import PROGRESS_VARIABLE
from ponderlib.core.device import ENV_VAR as DEVICE_VARIABLE
from ponderlib.core.seeds import SEED_MAX
from ponderlib.sweep import load_results
from ponderlib.sweep.executors import RAY_CONNECT_SECONDS
from ponderlib.sweep.results import ResultsAppender
from ponderlib.sweep.spec import MAX_RUNS, SPEC_MAX_BYTES
from ponderlib.tasks.parity import ParityConfig
from ponderlib.tasks.registry import TASKS, Task

try:
    import ray
except ImportError:
    ray = None

needs_ray = pytest.mark.skipif(
    ray is None and os.environ.get("CI") != "true",
    reason="ray is not installed (pip install 'ponderlib[ray]'); under CI=true these tests run, and fail without it",
)

TINY = ["--grid=lambda_p=0.1", "--set=n_elems=3", "--set=hidden=8", "--set=max_updates=2", "--set=eval_size=16", "--set=batch_size=8",
        "--set=difficulty_eval_size=8"]
"""A grid of one point of parity runs that train in a fraction of a second."""

PREFIX = "python -m ponderlib: error: "
NOTES = "my notes, one line, no newline at its end"


def command(capsys, *args: str) -> tuple[int, str]:
    """``python -m ponderlib ARGS`` in this process: its exit status and its stderr."""
    try:
        status = cli.main(list(args))
    except SystemExit as exit_:
        status = exit_.code
    return status, capsys.readouterr().err


def assert_refused(status: int, err: str, *names: str) -> None:
    """Exit status 2 and one line, ``python -m ponderlib: error: ...``, naming each of ``names``."""
    assert status == 2, err[-2000:]
    assert err.startswith(PREFIX) and err.count("\n") == 1 and err.endswith("\n"), err[-2000:]
    assert "Traceback" not in err and len(err) < 700, err[-2000:]
    for name in names:
        assert name in err, (name, err)


def files(folder: Path) -> dict[str, bytes | str]:
    """Every file under ``folder``: its bytes (a link: where it points), to compare before and after."""
    return {
        str(path.relative_to(folder)): os.readlink(path) if path.is_symlink() else path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_symlink() or path.is_file()
    }


@pytest.fixture
def notes(tmp_path) -> Path:
    """A file that is not a results file: one line of text without a newline."""
    path = tmp_path / "notes.txt"
    path.write_text(NOTES)
    return path


@pytest.fixture
def failing(monkeypatch) -> str:
    """A task whose every run raises, registered for this test only."""

    def always_fails(config: ParityConfig):
        raise RuntimeError("this run fails")

    monkeypatch.setitem(TASKS, "parity-fails", Task(ParityConfig, always_fails, "parity whose every run fails"))
    return "parity-fails"


@pytest.fixture
def one_record(tmp_path, capsys) -> Path:
    """A results file holding one finished run (seed 0)."""
    path = tmp_path / "runs.jsonl"
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(path), "--quiet", *TINY)
    assert status == 0, err
    return path


# --- 1. a results file is never damaged by a call --------------------------------------------


def test_notes_with_a_bogus_ray_address_are_refused_and_kept(tmp_path, capsys, notes):
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(notes), "--quiet",
                          "--executor", "ray", "--address", "bogus", *TINY)
    assert_refused(status, err, "notes.txt", "not a sweep record")
    assert files(tmp_path) == before


def test_notes_with_a_grid_whose_every_run_fails_are_refused_and_kept(tmp_path, capsys, notes, failing):
    before = files(tmp_path)
    status, err = command(capsys, "sweep", failing, "--seeds", "0-2", "--results", str(notes), "--quiet", *TINY)
    assert_refused(status, err, "notes.txt", "line 1")
    assert files(tmp_path) == before


def test_a_last_line_that_merely_begins_with_a_brace_is_not_taken_for_a_record_cut_short(tmp_path, capsys):
    results = tmp_path / "runs.jsonl"
    results.write_text("{my notes")
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(results), "--quiet", *TINY)
    assert_refused(status, err, "runs.jsonl", "line 1")
    assert results.read_text() == "{my notes"


def test_a_record_cut_short_stays_while_every_run_fails(tmp_path, capsys, monkeypatch, one_record, failing):
    whole = one_record.read_bytes()
    one_record.write_bytes(whole + whole[: len(whole) // 3])  # a second record, its writer killed mid-line
    before = files(tmp_path)
    # parity's runs fail: a results file holds one task's runs, so the failing task must be parity itself
    monkeypatch.setitem(TASKS, "parity", TASKS[failing])
    status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet", *TINY)
    assert status == 1 and "1 of 1 runs failed" in err and err.count("\n") == 1
    assert files(tmp_path) == before  # nothing finished: nothing dropped


def test_a_record_cut_short_stays_when_the_ray_address_is_bogus(tmp_path, capsys, one_record):
    whole = one_record.read_bytes()
    one_record.write_bytes(whole + whole[: len(whole) // 3])
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet",
                          "--executor", "ray", "--address", "bogus", *TINY)
    assert_refused(status, err, "Ray")  # not a Ray address, or no Ray installed: checked before a run
    assert files(tmp_path) == before


def test_a_record_cut_short_is_dropped_once_a_run_finishes(capsys, one_record):
    whole = one_record.read_bytes()
    one_record.write_bytes(whole + whole[: len(whole) // 3])
    status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet", *TINY)
    assert status == 0, err
    assert one_record.read_bytes().startswith(whole) and [r["seed"] for r in load_results(one_record)] == [0, 1]


def test_a_record_whose_fields_have_the_wrong_types_is_refused(tmp_path, capsys, one_record):
    record = json.loads(one_record.read_text())
    one_record.write_text(json.dumps({**record, "seed": "zero"}) + "\n")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet", *TINY)
    assert_refused(status, err, "runs.jsonl", "line 1", "seed, an integer")
    assert files(tmp_path) == before


# --- 2. one writer per results file ----------------------------------------------------------


def test_a_second_sweep_on_a_file_another_sweep_writes_is_refused(tmp_path, capsys, one_record):
    before = files(tmp_path)
    holder = ResultsAppender(one_record).open()  # another sweep, in the middle of its runs
    try:
        status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet", *TINY)
    finally:
        holder.close()
    assert_refused(status, err, "runs.jsonl", "being written by another sweep")
    assert files(tmp_path) == before


def test_a_sweep_that_creates_the_file_and_finishes_nothing_leaves_no_file(tmp_path, capsys, failing):
    status, err = command(capsys, "sweep", failing, "--seeds", "0", "--results", str(tmp_path / "new.jsonl"), "--quiet", *TINY)
    assert status == 1 and "runs failed" in err
    assert files(tmp_path) == {}  # no results file, and no lock file beside it


# The race of two real processes on one results file: tests/test_results_file.py.


# --- 3. nothing hangs ------------------------------------------------------------------------


def test_a_spec_that_is_a_pipe_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "spec.yaml")  # opening it to read would wait for a writer forever
    proc = run_cli("sweep", "--spec", str(tmp_path / "spec.yaml"), "--results", str(tmp_path / "runs.jsonl"), timeout=60)
    assert_refused(proc.returncode, proc.stderr, "spec.yaml", "not a regular file")
    assert set(files(tmp_path)) == set()


def test_a_results_file_that_is_a_pipe_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "runs.jsonl")
    proc = run_cli("sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY, timeout=60)
    assert_refused(proc.returncode, proc.stderr, "runs.jsonl", "not a regular file")


def test_summary_of_a_pipe_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "runs.jsonl")
    proc = run_cli("sweep", "--summary", str(tmp_path / "runs.jsonl"), timeout=60)
    assert_refused(proc.returncode, proc.stderr, "runs.jsonl", "not a regular file")


def test_a_spec_over_the_size_limit_is_refused_unread(tmp_path, capsys):
    spec = tmp_path / "big.yaml"
    spec.write_text("task: parity\ngrid: {lambda_p: [0.1]}\nseeds: [0]\n" + "#" * SPEC_MAX_BYTES)
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "big.yaml", f"at most {SPEC_MAX_BYTES}")


def test_a_billion_laughs_spec_is_refused_without_expanding_it(tmp_path, capsys):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi")]
    spec = tmp_path / "laughs.yaml"
    spec.write_text("\n".join([*lines, "task: *i", "grid: {lambda_p: [0.1]}", "seeds: [0]", ""]))
    assert spec.stat().st_size < 600  # 9**9 strings once expanded
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "laughs.yaml", "YAML alias")


@pytest.mark.parametrize("name", ["deep.json", "deep.yaml"])
def test_a_spec_nested_100000_levels_deep_is_one_line(tmp_path, capsys, name):
    spec = tmp_path / name
    spec.write_text('{"task": ' + "[" * 100_000 + "]" * 100_000 + "}")
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, name)


def test_a_results_file_nested_100000_levels_deep_is_one_line(tmp_path, capsys):
    results = tmp_path / "runs.jsonl"
    results.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(results), "--quiet", *TINY)
    assert_refused(status, err, "runs.jsonl", "line 1")
    status, err = command(capsys, "sweep", "--summary", str(results))
    assert_refused(status, err, "runs.jsonl", "line 1")
    assert files(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--grid", "method=" + "x" * 100_000, "--seeds", "0"], "method must be one of"),
        (["--set", "n_elems=" + "9" * 100_000, "--seeds", "0"], "--set n_elems must be an integer"),
        (["--grid", "lambda_p=0.1", "--seeds", "0," + "x" * 100_000], "--seeds"),
    ],
    ids=["a long choice", "a long number", "long seeds"],
)
def test_an_error_never_prints_an_unbounded_value(tmp_path, capsys, args, name):
    status, err = command(capsys, "sweep", "parity", *args, "--results", str(tmp_path / "runs.jsonl"), "--quiet")
    assert_refused(status, err, name)
    assert files(tmp_path) == {}


def test_a_spec_whose_values_are_huge_gives_a_short_message(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"task": "parity", "grid": {"method": ["x" * 500_000]}, "seeds": [0]}))
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "method")


@needs_ray
def test_a_ray_address_where_nothing_listens_fails_within_the_bound(tmp_path, capsys, notes):
    start = time.perf_counter()
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"),
                          "--quiet", "--executor", "ray", "--address", "127.0.0.1:1", *TINY)
    assert_refused(status, err, "address='127.0.0.1:1'", "no Ray cluster there")
    assert time.perf_counter() - start < RAY_CONNECT_SECONDS + 5
    assert files(tmp_path) == {"notes.txt": NOTES.encode()}


@needs_ray
def test_a_ray_address_that_never_answers_fails_within_the_bound(tmp_path, capsys):
    with socket.create_server(("0.0.0.0", 0)) as silent:  # accepts connections, says nothing (Ray dials the node's IP)
        port = silent.getsockname()[1]
        start = time.perf_counter()
        status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"),
                              "--quiet", "--executor", "ray", "--address", f"127.0.0.1:{port}", *TINY)
    assert_refused(status, err, f"address='127.0.0.1:{port}'", f"no answer within {RAY_CONNECT_SECONDS:g} s")
    assert time.perf_counter() - start < RAY_CONNECT_SECONDS + 5
    assert files(tmp_path) == {}


@needs_ray
@pytest.mark.slow
@pytest.mark.parametrize("when", [0.5, 8.0], ids=["while-ray-starts", "while-training"])
def test_ctrl_c_ends_a_sweep_on_ray_promptly_and_stops_its_cluster(tmp_path, when):
    results = tmp_path / "runs.jsonl"
    endless = [flag for flag in TINY if "max_updates" not in flag] + ["--set=max_updates=10000000", "--set=target_accuracy=none"]
    args = [sys.executable, "-m", "ponderlib", "sweep", "parity", "--seeds", "0-3", "--results", str(results), "--quiet",
            "--executor", "ray", "--workers", "1", *endless]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu", "RAY_AUTH_MODE": "token"}
    # As in a terminal: Ctrl-C's default action, even where this test runs with SIGINT ignored (a job
    # started in the background without job control ignores it, and its children inherit that).
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not results.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(when)  # 0.5 s: Ray starting its daemons; 8 s: the runs training
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    start = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's whole process group, Ray's daemons too
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"still running 30 s after Ctrl-C; its stderr ends:\n{err[-3000:]}")
    assert proc.returncode == 130 and "interrupted: the finished runs are in" in err, err[-2000:]
    assert time.monotonic() - start < 15
    assert not results.exists()  # no run finished: the file it created is gone
    for _ in range(100):  # the cluster it started is stopped: no process of its group is left
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("processes of the interrupted sweep's Ray cluster were still running 10 s after it ended")


# --- 4. everything is checked before the first run -------------------------------------------


def test_a_grid_value_the_model_cannot_take_fails_before_any_run(tmp_path, capsys):
    status, err = command(capsys, "sweep", "chains", "--grid", "heads=2,3", "--seeds", "0", "--set=max_updates=1",
                          "--results", str(tmp_path / "runs.jsonl"), "--quiet")
    assert_refused(status, err, "heads", "{'heads': 3}")
    assert files(tmp_path) == {}  # heads=2 did not train first


@pytest.mark.parametrize("where", ["grid: {bidirectional: ['no']}", "grid: {lr: [0.1]}\nfixed: {bidirectional: 'no'}"])
def test_a_bool_field_given_a_string_in_a_spec_fails_before_any_run(tmp_path, capsys, where):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"task: sorting\n{where}\nseeds: [0]\n")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "bidirectional must be true or false", "'no'")
    assert files(tmp_path) == before


def test_a_seed_beyond_torchs_range_fails_before_any_run(tmp_path, capsys):
    status, err = command(capsys, "sweep", "parity", "--seeds", "18446744073709551616",
                          "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY)
    assert_refused(status, err, "--seeds", str(SEED_MAX))
    assert files(tmp_path) == {}


def test_a_huge_seed_range_is_refused_with_its_limit_at_once(tmp_path, capsys):
    start = time.perf_counter()
    status, err = command(capsys, "sweep", "parity", "--seeds", "0-100000000000",
                          "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY)
    assert_refused(status, err, "--seeds", f"{MAX_RUNS:,}")
    assert time.perf_counter() - start < 5 and files(tmp_path) == {}


def test_a_grid_of_too_many_points_is_refused_with_its_limit(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    grid = {"tau": [i / 1000 for i in range(1000)], "lambda_p": [i / 1000 for i in range(1, 1000)]}
    spec.write_text(json.dumps({"task": "parity", "grid": grid, "seeds": [0, 1]}))
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, f"at most {MAX_RUNS:,} runs", "1,998,000")
    assert files(tmp_path) == before


def test_a_huge_n_names_is_refused_with_its_limit(tmp_path, capsys):
    status, err = command(capsys, "sweep", "chains", "--grid", "method=act", "--set=n_names=1000000000000", "--seeds", "0",
                          "--set=max_updates=1", "--results", str(tmp_path / "runs.jsonl"), "--quiet")
    assert_refused(status, err, "n_names", "10000")
    assert files(tmp_path) == {}


# --- 5. no silent change of a request --------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [["--grid", "tau=0.1", "--grid", "tau=0.01"], ["--set", "tau=0.1", "--set", "tau=0.01"],
     ["--set", "tau=0.1", "--grid", "tau=0.01,0.1"]],
    ids=["two --grid", "two --set", "--set and --grid"],
)
def test_a_field_given_twice_on_the_command_line_is_an_error(tmp_path, capsys, options):
    status, err = command(capsys, "sweep", "parity", *options, "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"), "--quiet")
    assert_refused(status, err, "tau is given twice")
    assert files(tmp_path) == {}


def test_a_spec_with_a_key_given_twice_is_an_error(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("task: parity\ngrid: {lambda_p: [0.1]}\nseeds: [0]\nseeds: [1]\n")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "--spec", str(spec), "--results", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "spec.yaml", "'seeds' twice")
    assert files(tmp_path) == before


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: None, "no such results file"),
        (lambda path: path.mkdir(), "not a regular file"),
        (lambda path: path.write_text("garbage"), "line 1: not a sweep record"),
        (lambda path: path.write_text('{"task": 1, "point": 2, "seed": "x", "config": {}, "summary": {}}\n'), "line 1"),
        (lambda path: path.symlink_to(path.parent / "gone.jsonl"), "link to a missing file"),
    ],
    ids=["missing", "a folder", "garbage", "wrong types", "a dangling link"],
)
def test_summary_of_what_is_not_a_results_file_is_an_error(tmp_path, capsys, make, message):
    make(tmp_path / "runs.jsonl")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "--summary", str(tmp_path / "runs.jsonl"))
    assert_refused(status, err, "runs.jsonl", message)
    assert files(tmp_path) == before


@pytest.mark.parametrize("value", ["false", "OFF", "No", "0"])
def test_progress_variable_false_turns_the_bars_off(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv(PROGRESS_VARIABLE, value)
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"), *TINY)
    assert status == 0 and err == ""  # no --quiet, yet no bar


@pytest.mark.parametrize("args", [["sweep", "--summary", "runs.jsonl"], ["train", "parity", "--max-updates", "1"]])
def test_a_progress_value_it_does_not_know_is_an_error_naming_the_variable(tmp_path, capsys, monkeypatch, args):
    monkeypatch.setenv(PROGRESS_VARIABLE, "sometimes")
    monkeypatch.chdir(tmp_path)
    status, err = command(capsys, *args)
    assert_refused(status, err, PROGRESS_VARIABLE, "'sometimes'")
    assert files(tmp_path) == {}


def test_a_device_variable_it_cannot_use_is_an_error_naming_the_variable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(DEVICE_VARIABLE, "meta")
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY)
    assert_refused(status, err, DEVICE_VARIABLE, "'meta'")
    assert files(tmp_path) == {}


@pytest.mark.parametrize("device", ["mps", "meta"])
def test_a_device_it_cannot_use_is_an_error_naming_the_option(tmp_path, capsys, device):
    status, err = command(capsys, "sweep", "parity", "--set", f"device={device}", "--seeds", "0",
                          "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY)
    assert_refused(status, err, "device", repr(device))
    status, err = command(capsys, "train", "parity", "--device", device, "--max-updates", "1", "--quiet")
    assert_refused(status, err, "device", repr(device))
    assert files(tmp_path) == {}


def test_a_results_file_that_is_a_dangling_link_is_an_error_and_stays_a_link(tmp_path, capsys):
    (tmp_path / "runs.jsonl").symlink_to(tmp_path / "gone.jsonl")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"), "--quiet", *TINY)
    assert_refused(status, err, "runs.jsonl", "link to a missing file")
    assert files(tmp_path) == before  # the link's target was not created


def test_a_read_only_results_file_is_an_error(tmp_path, capsys, one_record):
    one_record.chmod(0o444)
    if os.access(one_record, os.W_OK):
        pytest.skip("running as a user who may write a read-only file (root)")
    before = files(tmp_path)
    status, err = command(capsys, "sweep", "parity", "--seeds", "1", "--results", str(one_record), "--quiet", *TINY)
    assert_refused(status, err, "runs.jsonl", "cannot be opened for writing")
    assert files(tmp_path) == before
