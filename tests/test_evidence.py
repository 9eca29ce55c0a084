"""The committed evidence (``evidence/NAME.jsonl``) is what its preset in code would run: a preset that
changed fails here until its evidence is run again (``make evidence PRESET=NAME``). And reading it back
(:mod:`ponderlib.sweep.evidence`)."""

import json
from pathlib import Path

import pytest

from ponderlib.sweep import PRESETS, load_results, make_spec, run_key
from ponderlib.sweep.evidence import EVIDENCE_VARIABLE, Evidence, Rate, evidence_folder, metric

EVIDENCE = Path(__file__).resolve().parents[1] / "evidence"
FILES = sorted(EVIDENCE.glob("*.jsonl"))


def test_every_evidence_file_is_named_after_a_preset():
    assert {path.stem for path in FILES} <= set(PRESETS), sorted({path.stem for path in FILES} - set(PRESETS))


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_record_is_a_run_of_its_preset_as_it_stands(path):
    spec = PRESETS[path.stem].spec()
    planned = {run.key for run in make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs}
    records = load_results(path)
    keys = [run_key(record["task"], record["config"]) for record in records]
    assert len(set(keys)) == len(keys), "a run is in the file twice"
    stale = [record["seed"] for record, key in zip(records, keys) if key not in planned]
    assert not stale, f"{len(stale)} records are not runs of the preset {path.stem!r} as it stands: run its evidence again"


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_record_says_where_and_from_what_it_ran(path):
    for record in load_results(path):
        summary, source = record["summary"], record["source"]
        assert summary["device_name"] and summary["torch_version"] and summary["torch_threads"] >= 1
        assert summary["cpu_capability"] and summary["ponderlib_version"]
        assert len(source["git_commit"]) == 40 and source["git_dirty"] is False, source


# Reading evidence back (ponderlib.sweep.evidence), on a results file made by hand.


def hand_made(folder: Path, name: str = "act-parity-tau-live", seeds=(0, 1, 2)) -> Path:
    """Records of ``name`` (grid tau) with made-up summaries: mean ponder steps fall with tau except in seed 2."""
    path = folder / f"{name}.jsonl"
    lines = []
    for seed in seeds:
        for tau in PRESETS[name].grid["tau"]:
            steps = 3.0 - 10 * tau if seed != 2 else 2.0 + tau
            summary = {"seed": seed, "updates": 2000, "seconds": 30.0, "torch_threads": 1, "device_name": "AMD EPYC",
                       "torch_version": "2.13.0+cpu", "ponderlib_version": "0.3.0", "mean_ponder_steps": steps,
                       "accuracy_by_difficulty": {"8": 0.5 + seed / 10}}
            config = PRESETS[name].config(seed, tau=tau).to_dict()  # a run of the preset: Evidence.load checks it
            lines.append({"task": "parity", "point": {"tau": tau}, "seed": seed, "config": config,
                          "summary": summary, "source": {"git_commit": "a" * 40, "git_dirty": False}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_rates_count_the_seeds_a_claim_holds_in(tmp_path):
    hand_made(tmp_path)
    evidence = Evidence.load("act-parity-tau-live", tmp_path)
    assert not evidence.complete and len(evidence.records) == 12
    assert evidence.values("accuracy_by_difficulty.8", tau=0.1) == [0.5, 0.6, 0.7]
    summaries = evidence.summaries()
    assert len(summaries) == 12 and summaries[0] is evidence.records[0]["summary"]
    rate = evidence.rate(lambda run: run["accuracy_by_difficulty"]["8"] > 0.55, tau=0.1)
    assert (rate.holds, rate.runs, str(rate)) == (2, 3, "2 of 3 seeds")
    falls = evidence.rate_by_seed(lambda row: row[0.001]["mean_ponder_steps"] > row[0.1]["mean_ponder_steps"])
    assert falls == Rate(2, 3)
    assert set(evidence.by_seed()[0]) == set(PRESETS["act-parity-tau-live"].grid["tau"])
    cost = evidence.cost()
    assert cost["runs"] == 12 and cost["cpu_minutes"] == 6.0 and cost["commits"] == ["aaaaaaa"]
    assert "`make evidence PRESET=act-parity-tau-live`: 12 of its 80 runs so far (tau in" in evidence.describe()


def test_bad_requests_name_what_is_wrong(tmp_path, monkeypatch):
    hand_made(tmp_path)
    evidence = Evidence.load("act-parity-tau-live", tmp_path)
    with pytest.raises(ValueError, match="name must be one of the presets"):
        Evidence.load("no-such-preset", tmp_path)
    with pytest.raises(FileNotFoundError, match="make evidence PRESET=act-sequence-live"):
        Evidence.load("act-sequence-live", tmp_path)
    with pytest.raises(ValueError, match=r"point must name the grid fields \['tau'\]"):
        evidence.runs(lambda_p=0.1)
    with pytest.raises(ValueError, match="no run of 'act-parity-tau-live' at"):
        evidence.runs(tau=0.5)
    with pytest.raises(KeyError, match="metric 'accuracy_by_difficulty.9'"):
        metric(evidence.runs(tau=0.1)[0], "accuracy_by_difficulty.9")
    monkeypatch.setenv(EVIDENCE_VARIABLE, str(tmp_path))
    assert evidence_folder() == tmp_path and Evidence.load("act-parity-tau-live").records == evidence.records
    monkeypatch.delenv(EVIDENCE_VARIABLE)
    assert evidence_folder() == EVIDENCE


def test_a_presets_config_is_a_run_of_its_evidence():
    preset = PRESETS["ut-chains-live"]
    config = preset.config(3, method="fixed", halting_bias_init=1.0)
    planned = make_spec(preset.spec().task, preset.grid, preset.seeds, preset.spec().fixed).runs
    assert run_key("chains", config.to_dict()) in {run.key for run in planned}
    with pytest.raises(ValueError, match=r"point must name the grid fields \['halting_bias_init', 'method'\]"):
        preset.config(0, method="fixed")
    with pytest.raises(ValueError, match="method must be one of the grid's values"):
        preset.config(0, method="lstm", halting_bias_init=1.0)


def test_finished_says_whether_every_seed_of_a_point_is_in(tmp_path, monkeypatch):
    monkeypatch.setenv(EVIDENCE_VARIABLE, str(tmp_path))
    hand_made(tmp_path, seeds=range(19))  # seeds 0..18 of the preset's 0..19
    partial = Evidence.load("act-parity-tau-live")
    assert not partial.finished(tau=1e-3) and not partial.complete
    hand_made(tmp_path, seeds=range(20))
    assert Evidence.load("act-parity-tau-live").finished(tau=1e-3)
    with pytest.raises(ValueError, match="grid fields"):
        partial.finished(lambda_p=0.1)


def test_evidence_table_lists_each_set_with_its_cost_and_machine():
    from ponderlib.presentation.tables import evidence_table

    table = evidence_table([Evidence.load("graves-parity-16"), Evidence.load("act-parity-live")])
    lines = table.splitlines()
    assert lines[0] == "| evidence set | runs | updates per run | CPU-minutes | ran on | commit |"
    assert lines[2].startswith("| `graves-parity-16` | 35 | 60,000 | ")
    assert lines[3].startswith("| `act-parity-live` | 40 | 5,000 | ")
    with pytest.raises(ValueError, match="sets must hold at least one evidence set"):
        evidence_table([])
