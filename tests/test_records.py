"""One run type: a live run's summary and a record read back are one RunSummary; a Curve answers alike."""

import json

import pytest

from ponderlib.core.engine import History
from ponderlib.core.records import Curve, RunSummary
from ponderlib.sweep.evidence import Evidence
from ponderlib.tasks.parity import train_parity

TINY = dict(n_elems=4, hidden=8, batch_size=16, eval_size=32, difficulty_eval_size=8, max_updates=4, eval_every=2,
            target_accuracy=None, progress=False)

CURVE = {"update": [500, 1000, 1500, 2000], "loss": [0.7, 0.5, 0.4, 0.35], "exact_match": [0.6, 0.96, 0.9, 0.97]}


def test_a_curve_answers_worked_by_hand():
    curve = Curve.of(CURVE)
    assert curve.reach("exact_match", 0.95) == 1000  # the first evaluation at or above
    assert curve.reach("exact_match", 0.99) is None
    assert curve.gain_since("exact_match", 1500) == pytest.approx(0.07)
    assert curve.rising_at_end("exact_match")  # 0.97 > values[4 // 2] = 0.9
    assert not Curve.of({**CURVE, "exact_match": [0.6, 0.96, 0.97, 0.97]}).rising_at_end("exact_match")
    assert curve.to_json() == CURVE and Curve.of(curve) is curve


def test_a_live_history_and_its_json_give_one_curve_to_four_decimals():
    history = History()
    for update, value in [(2, 0.512345), (4, 0.75)]:
        history.record(update, 0.0, 0.1, {"accuracy": value})
    live, stored = Curve.of(history), Curve.of(history.curve())
    assert live.update == stored.update == (2, 4) and "loss" in stored.metrics and "loss" not in live.metrics
    assert live.values("accuracy") == [0.512345, 0.75] and stored.values("accuracy") == [0.5123, 0.75]
    assert live.reach("accuracy", 0.7) == stored.reach("accuracy", 0.7) == 4


@pytest.mark.parametrize("bad, error, match", [
    (3, TypeError, "curve must be a History"),
    ({"accuracy": [0.5]}, ValueError, "'update'"),
])
def test_a_curve_refuses_what_is_not_one(bad, error, match):
    with pytest.raises(error, match=match):
        Curve.of(bad)


def test_a_curve_names_what_it_recorded_when_asked_for_another_metric():
    with pytest.raises(ValueError, match=r"metric must be one the curve recorded \('loss', 'exact_match'\); got 'nope'"):
        Curve.of(CURVE).reach("nope", 0.5)
    with pytest.raises(ValueError, match="update must be one the curve evaluated"):
        Curve.of(CURVE).gain_since("exact_match", 700)
    with pytest.raises(ValueError, match="NaN"):
        Curve.of({**CURVE, "exact_match": [0.6, float("nan"), 0.9, 0.97]}).reach("exact_match", 0.5)


def test_a_live_run_and_its_record_read_back_are_one_summary():
    result = train_parity(**TINY)
    live = result.summary()
    assert isinstance(live, RunSummary) and RunSummary.of(result) == live
    read_back = RunSummary.from_json(json.loads(json.dumps(live)))
    assert read_back == live and type(read_back) is RunSummary and read_back.to_json() == dict(live)
    assert (live.task, live.seed, live.config["n_elems"]) == ("parity", 0, 4)
    assert live.curve.update == (2, 4) == tuple(result.history.update)


def test_the_evidence_reads_back_summaries():
    runs = Evidence.load("pondernet-lambda-16-unroll").summaries()
    assert runs and all(isinstance(run, RunSummary) for run in runs)
    assert runs[0].curve.values("accuracy")[-1] == runs[0]["final_accuracy"]


@pytest.mark.parametrize("bad, error", [(3, ValueError), ("summary", ValueError)])
def test_a_run_summary_refuses_what_is_no_run(bad, error):
    with pytest.raises(error, match="run must be a trained result or its summary"):
        RunSummary.of(bad)
    with pytest.raises(TypeError, match="run's summary must be a mapping"):
        RunSummary.from_json(bad)
