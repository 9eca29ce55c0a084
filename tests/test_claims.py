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
