"""The lessons' live claims (ponderlib.experiments.claims) and their confirmation sets' presets."""

import pytest

from ponderlib.experiments.claims import LIVE_CLAIMS, LiveClaims
from ponderlib.sweep.evidence import Evidence
from ponderlib.sweep.presets import CONFIRMATION_SEEDS, LIVE_SEEDS, PRESETS, confirmation


@pytest.mark.parametrize("name", sorted(LIVE_CLAIMS))
def test_every_claim_reads_every_seed_of_its_evidence(name):
    claims = LIVE_CLAIMS[name]
    evidence = Evidence.load(claims.preset)
    for claim in claims.claims.values():
        rate = evidence.rate(claim, **claims.point) if claims.point else evidence.rate_by_seed(claim)
        assert rate.runs == len(LIVE_SEEDS)


@pytest.mark.parametrize("name", sorted(LIVE_CLAIMS))
def test_a_confirmation_set_is_its_live_setting_at_seeds_20_to_39(name):
    claims = LIVE_CLAIMS[name]
    live, confirm = PRESETS[claims.preset], PRESETS[claims.confirmation]
    assert confirm.seeds == CONFIRMATION_SEEDS and not set(confirm.seeds) & set(live.seeds)
    assert (confirm.task, confirm.fixed, confirm.max_updates) == (live.task, live.fixed, live.max_updates)
    for field, values in confirm.grid.items():
        assert set(values) <= set(live.grid[field])
    for field, value in (claims.point or {}).items():
        assert value in confirm.grid[field]
    point = {field: values[0] for field, values in confirm.grid.items()}
    assert confirm.config(20, **point) == live.config(20, **point)


def test_a_confirmation_grid_must_narrow_the_live_grid():
    with pytest.raises(ValueError, match="grid must narrow"):
        confirmation(PRESETS["act-parity-live"], halting_bias_init=[2.0])
    with pytest.raises(ValueError, match="grid must narrow"):
        confirmation(PRESETS["act-parity-live"], tau=[0.01])


def test_live_claims_need_a_live_preset_with_a_confirmation_set():
    with pytest.raises(ValueError, match="preset must be a live preset"):
        LiveClaims(preset="graves-parity-16", claims={})


def _records(preset, seeds, summary):
    """Records of ``preset`` at ``seeds`` whose summaries are ``summary(seed)`` plus the run's config."""
    records = []
    for seed in seeds:
        point = {name: values[0] for name, values in preset.grid.items()}
        config = preset.config(seed, **point).to_dict()
        records.append({"task": preset.task, "point": point, "seed": seed, "config": config,
                        "summary": {**summary(seed), "seed": seed, "config": config, "seconds": 1.0, "updates": 10},
                        "source": {"git_commit": "a" * 40, "git_dirty": False}})
    return records


def _write(folder, name, records):
    import json

    (folder / f"{name}.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))


@pytest.fixture
def one_claim(tmp_path, monkeypatch):
    """A LiveClaims on act-parity-live at b_h = 1, and evidence folders to write its two sets into."""
    monkeypatch.setenv("PONDERLIB_EVIDENCE", str(tmp_path))
    claims = LiveClaims("act-parity-live", {"accuracy at least 0.95": lambda run: run["final_accuracy"] >= 0.95},
                        point={"halting_bias_init": 1.0})
    live, confirm = PRESETS["act-parity-live"], PRESETS["act-parity-live-confirm"]
    # act-parity-live's grid has two biases: give it only b_h = 1, as the claims need
    live_records = _records(confirmation(live, halting_bias_init=[1.0]), LIVE_SEEDS, lambda seed: {"final_accuracy": 0.99})
    return claims, tmp_path, live_records, confirm


def _live_run(accuracy, seed=0):
    config = PRESETS["act-parity-live"].config(seed, halting_bias_init=1.0).to_dict()
    return {"final_accuracy": accuracy, "seed": seed, "config": config}


def test_a_claim_that_held_in_all_20_confirmation_seeds_is_asserted(one_claim):
    from ponderlib.experiments.claims import check_live_claims

    claims, folder, live_records, confirm = one_claim
    _write(folder, "act-parity-live", live_records)
    _write(folder, "act-parity-live-confirm", _records(confirm, CONFIRMATION_SEEDS, lambda seed: {"final_accuracy": 0.97}))
    check = check_live_claims(claims, [_live_run(0.96)])
    assert check.asserted == ["accuracy at least 0.95"]
    assert (str(check.first["accuracy at least 0.95"]), str(check.confirmed["accuracy at least 0.95"])) == (
        "20 of 20 seeds", "20 of 20 seeds")
    assert "| accuracy at least 0.95 | 20 of 20 seeds | 20 of 20 seeds | yes |" in check.markdown()
    with pytest.raises(AssertionError, match="not in the live run of seed 3"):
        check_live_claims(claims, [_live_run(0.96), _live_run(0.90, seed=3)])


def test_a_claim_that_failed_once_in_the_confirmation_set_is_only_reported(one_claim):
    from ponderlib.experiments.claims import check_live_claims

    claims, folder, live_records, confirm = one_claim
    _write(folder, "act-parity-live", live_records)
    _write(folder, "act-parity-live-confirm",
           _records(confirm, CONFIRMATION_SEEDS, lambda seed: {"final_accuracy": 0.90 if seed == 33 else 0.97}))
    check = check_live_claims(claims, [_live_run(0.5)])  # fails, but is not held to it
    assert check.asserted == [] and str(check.confirmed["accuracy at least 0.95"]) == "19 of 20 seeds"
    assert "no: reported only" in check.markdown()


def test_a_confirmed_claim_that_fails_in_a_replayed_seed_is_only_reported(one_claim):
    # held in all 20 confirmation seeds, but not in seed 0 of the committed runs, which the live run replays
    from ponderlib.experiments.claims import check_live_claims

    claims, folder, _, confirm = one_claim
    live = confirmation(PRESETS["act-parity-live"], halting_bias_init=[1.0])
    _write(folder, "act-parity-live", _records(live, LIVE_SEEDS, lambda seed: {"final_accuracy": 0.9 if seed == 0 else 0.99}))
    _write(folder, "act-parity-live-confirm", _records(confirm, CONFIRMATION_SEEDS, lambda seed: {"final_accuracy": 0.97}))
    check = check_live_claims(claims, [_live_run(0.9, seed=0), _live_run(0.99, seed=1)])
    assert check.asserted == [] and check.replayed_failures == {"accuracy at least 0.95": [0]}
    assert "no: it fails in the committed run of seed 0, which the live runs replay" in check.markdown()
    assert check_live_claims(claims, [_live_run(0.99, seed=1)]).asserted == ["accuracy at least 0.95"]


def test_nothing_is_asserted_before_the_confirmation_set_is_complete(one_claim):
    from ponderlib.experiments.claims import check_live_claims

    claims, folder, live_records, confirm = one_claim
    _write(folder, "act-parity-live", live_records)
    assert check_live_claims(claims, [_live_run(0.5)]).asserted == []  # no confirmation file at all
    _write(folder, "act-parity-live-confirm", _records(confirm, CONFIRMATION_SEEDS[:19], lambda seed: {"final_accuracy": 0.97}))
    assert check_live_claims(claims, [_live_run(0.5)]).asserted == []  # 19 of its 20 seeds


def test_live_runs_of_another_setting_are_held_to_nothing(one_claim):
    from ponderlib.experiments.claims import check_live_claims

    claims, folder, live_records, confirm = one_claim
    _write(folder, "act-parity-live", live_records)
    _write(folder, "act-parity-live-confirm", _records(confirm, CONFIRMATION_SEEDS, lambda seed: {"final_accuracy": 0.97}))
    other = _live_run(0.5)
    other["config"] = {**other["config"], "max_updates": 10}
    check = check_live_claims(claims, [other])
    assert check.asserted == [] and "no: not this setting" in check.markdown()


def test_check_live_claims_names_its_bad_arguments():
    from ponderlib.experiments.claims import check_live_claims

    with pytest.raises(TypeError, match="claims must be a LiveClaims"):
        check_live_claims({"a": lambda run: True}, [])
    with pytest.raises(TypeError, match="live must be a sequence of runs"):
        check_live_claims(LIVE_CLAIMS["ch1-parity"], "runs")
    with pytest.raises(ValueError, match="live must hold at least one run"):  # never a table of nothing checked
        check_live_claims(LIVE_CLAIMS["ch1-parity"], [])


def test_the_ledger_says_which_claims_a_lesson_may_assert(one_claim):
    from ponderlib.experiments.claims import claim_ledger

    claims, folder, live_records, confirm = one_claim
    _write(folder, "act-parity-live", live_records)
    assert "not yet: 0 of 20 confirmation runs" in claim_ledger(claims)
    _write(folder, "act-parity-live-confirm",
           _records(confirm, CONFIRMATION_SEEDS, lambda seed: {"final_accuracy": 0.90 if seed == 39 else 0.97}))
    assert "| accuracy at least 0.95 | 20 of 20 seeds | 19 of 20 seeds | no |" in claim_ledger(claims)
    with pytest.raises(TypeError, match="claims must be a LiveClaims"):
        claim_ledger("ch1-parity")
