"""The committed evidence (``evidence/NAME.jsonl``) is what its preset in code would run: a preset that
changed fails here until its evidence is run again (``make evidence PRESET=NAME``)."""

from pathlib import Path

import pytest

from ponderlib.sweep import PRESETS, load_results, make_spec, run_key

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
