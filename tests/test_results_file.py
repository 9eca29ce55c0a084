"""A results file is never damaged by a call, and one sweep writes to it at a time (issue 26, items 1
and 2): files that are not results files are refused and left byte for byte, a line cut short is dropped
only once a run finishes, and two real processes racing on one file lose no run and write none twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from cli_runner import ROOT

from ponderlib.sweep import load_results, sweep
from ponderlib.sweep.results import ResultsAppender
from ponderlib.tasks.parity import ParityConfig
from ponderlib.tasks.registry import TASKS, Task

TINY = {"n_elems": 3, "hidden": 8, "max_updates": 3, "eval_size": 16, "batch_size": 8, "difficulty_eval_size": 8}


def always_fails(config: ParityConfig):
    raise RuntimeError("this run fails")


@pytest.fixture
def failing(monkeypatch):
    monkeypatch.setitem(TASKS, "parity-fails", Task(ParityConfig, always_fails, "parity whose every run fails"))
    return "parity-fails"


@pytest.mark.parametrize("text", ["my notes, not a results file", "my notes\n", "{\"task\": \"parity\"}\n", "[1, 2]"])
def test_a_file_that_is_not_a_results_file_is_refused_and_left_as_it_was(tmp_path, text):
    notes = tmp_path / "notes.txt"
    notes.write_text(text)
    with pytest.raises(ValueError, match="not a sweep record"):
        sweep("parity", {"tau": [0.1]}, [0], notes, fixed=TINY, progress=False)
    assert notes.read_text() == text


def test_a_line_cut_short_is_dropped_only_when_a_run_finishes(tmp_path, failing):
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"tau": [0.1]}, [0], results, fixed=TINY, progress=False)
    whole = results.read_text()
    cut = whole + whole[: len(whole) // 2]  # a second record, cut short by a killed writer
    results.write_text(cut)
    with pytest.raises(RuntimeError, match="1 of 1 runs failed"):
        sweep(failing, {"tau": [0.1]}, [1], results, fixed=TINY, progress=False)
    assert results.read_text() == cut  # nothing finished: nothing written, nothing dropped
    sweep("parity", {"tau": [0.1]}, [1], results, fixed=TINY, progress=False)
    assert [record["seed"] for record in load_results(results)] == [0, 1]
    assert results.read_text().startswith(whole) and results.read_text().count("\n") == 2


def test_a_sweep_that_finishes_nothing_leaves_no_new_file(tmp_path, failing):
    results = tmp_path / "new.jsonl"
    with pytest.raises(RuntimeError, match="runs failed"):
        sweep(failing, {"tau": [0.1]}, [0], results, fixed=TINY, progress=False)
    assert not results.exists()


def test_a_pipe_or_a_folder_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        sweep("parity", {"tau": [0.1]}, [0], fifo, fixed=TINY, progress=False)
    with pytest.raises(ValueError, match="not a regular file"):
        load_results(fifo)


def test_a_second_sweep_on_a_locked_file_is_refused_and_changes_nothing(tmp_path):
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"tau": [0.1]}, [0], results, fixed=TINY, progress=False)
    before = results.read_bytes()
    holder = ResultsAppender(results).open()  # another sweep, writing
    try:
        with pytest.raises(ValueError, match="being written by another sweep"):
            sweep("parity", {"tau": [0.1]}, [1], results, fixed=TINY, progress=False)
    finally:
        holder.close()
    assert results.read_bytes() == before
    sweep("parity", {"tau": [0.1]}, [1], results, fixed=TINY, progress=False)  # free again once it ends
    assert [record["seed"] for record in load_results(results)] == [0, 1]


def _sweep_process(results, seeds: str) -> subprocess.CompletedProcess:
    flags = [f"--set={name}={value}" for name, value in TINY.items()]
    command = [sys.executable, "-m", "ponderlib", "sweep", "parity", "--grid", "tau=0.1", "--seeds", seeds,
               "--results", str(results), "--json", "--quiet", *flags]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu", "PONDERLIB_PROGRESS": "0"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(5))
def test_two_processes_racing_on_one_file_lose_no_run_and_write_none_twice(tmp_path, attempt):
    results = tmp_path / "runs.jsonl"
    with ThreadPoolExecutor(2) as pool:  # two real `python -m ponderlib sweep` processes, started together
        done = list(pool.map(lambda seeds: _sweep_process(results, seeds), ["0-5", "3-8"]))
    for process in done:
        refused = process.returncode == 2 and "being written by another sweep" in process.stderr
        assert process.returncode == 0 or refused, process.stderr[-2000:]
        assert refused or len(process.stderr.strip().splitlines()) <= 1
    seeds = [record["seed"] for record in load_results(results)]
    assert len(seeds) == len(set(seeds)), seeds  # none written twice
    finished = set()
    for process, wanted in zip(done, (range(0, 6), range(3, 9))):
        if process.returncode == 0:
            finished |= set(wanted)
    assert finished <= set(seeds)  # none lost
    assert json.loads(results.read_text().splitlines()[-1])  # the file ends with a whole record


def test_a_read_only_or_dangling_results_file_is_a_one_line_error(tmp_path):
    read_only = tmp_path / "read-only.jsonl"
    sweep("parity", {"tau": [0.1]}, [0], read_only, fixed=TINY, progress=False)
    before = read_only.read_bytes()
    read_only.chmod(0o444)
    try:
        if os.access(read_only, os.W_OK):
            pytest.skip("running as a user who may write a read-only file (root)")
        with pytest.raises(ValueError, match="cannot be opened for writing"):
            sweep("parity", {"tau": [0.1]}, [1], read_only, fixed=TINY, progress=False)
    finally:
        read_only.chmod(0o644)
    assert read_only.read_bytes() == before
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "missing-folder" / "runs.jsonl")
    with pytest.raises(ValueError, match="results_path must be a file in an existing folder|cannot be opened"):
        sweep("parity", {"tau": [0.1]}, [0], dangling, fixed=TINY, progress=False)
