"""Issue 40, third round: what the second probe found. Products of counts (each within its own bound)
that size one tensor or one loop are bounded up front; extreme-but-allowed values give the right limit or a
named refusal, never NaN; every public function checks its arguments where they enter, naming them; the
CLI takes each option once and turns any failed allocation into its one line."""

from __future__ import annotations

import itertools
import json
import math
import shutil

import pytest
import torch
from torch import nn

from ponderlib.cli import _out_of_memory
from ponderlib.core.records import Curve
from ponderlib.mechanisms.act import ACT, ACTRNN
from ponderlib.mechanisms.halting import geometric_prior
from ponderlib.mechanisms.losses import kl_optimal_halting
from ponderlib.mechanisms.pondernet import PonderNet
from ponderlib.mechanisms.universal_transformer import UniversalTransformer
from ponderlib.tasks.convex_hull import HullConfig
from ponderlib.tasks.parity import ParityConfig
from ponderlib.tasks.parity_data import ParityBatch, parity_batch
from ponderlib.tasks.parity_eval import evaluate_by_difficulty, evaluate_parity, predict_parity, step_profile
from ponderlib.tasks.parity_models import PonderStep, act_parity_model, pondernet_parity_model
from ponderlib.tasks.sequence_parity import SequenceConfig
from ponderlib.tasks.sorting import SortConfig
from tests.cli_runner import ROOT
from tests.refusals import assert_refused
from tests.test_hostile_limits import assert_one_line_exit_2, run_capped

NAN = float("nan")
INF = float("inf")

# --- 1. products of counts, each count within its bound -------------------------------------------

PRODUCT_CASES = [
    (ParityConfig, dict(n_elems=10_000, max_ponder_steps=2, hidden=4, batch_size=4, eval_size=4), "difficulty_eval_size"),
    (ParityConfig, dict(n_elems=4, difficulty_eval_size=1_000_000), "difficulty_eval_size"),
    (ParityConfig, dict(n_elems=10_000, batch_size=1_000_000, difficulty_eval_size=1), "batch_size"),
    (ParityConfig, dict(n_elems=10_000, eval_size=1_000_000, difficulty_eval_size=1), "eval_size"),
    (ParityConfig, dict(n_elems=4, max_ponder_steps=10_000, hidden=4_096, batch_size=1_000), "hidden"),
    (ParityConfig, dict(n_elems=1_000, max_ponder_steps=10_000, difficulty_eval_size=1, hidden=4), "max_ponder_steps"),
    (ParityConfig, dict(n_elems=1_000, max_ponder_steps=2, eval_max_ponder_steps=10_000, difficulty_eval_size=1, hidden=4),
     "eval_max_ponder_steps"),
    (SequenceConfig, dict(seq_len=10_000, max_ponder_steps=10_000, hidden=1, n_elems=2), "max_ponder_steps"),
    (SequenceConfig, dict(seq_len=10_000, n_elems=10_000, batch_size=2, eval_size=2), "batch_size"),
    (SequenceConfig, dict(seq_len=1_000, n_elems=2, max_ponder_steps=100, hidden=4_096, batch_size=10), "hidden"),
    (HullConfig, dict(test_max_points=10_000, test_size=2, beam_width=1_000), "test_max_points"),
    (HullConfig, dict(test_max_points=500, test_size=100, beam_width=1_000), "beam_width"),
    (SortConfig, dict(test_max_len=10_000, test_size=2), "test_max_len"),
    (SortConfig, dict(max_len=5_000, min_len=5, batch_size=100), "batch_size"),
]


@pytest.mark.parametrize("config_class, fields, name", PRODUCT_CASES, ids=[f"{c.__name__}-{n}-{i}" for i, (c, _, n) in enumerate(PRODUCT_CASES)])
def test_a_product_of_counts_in_bounds_is_refused_up_front_naming_a_count(config_class, fields, name):
    config = config_class(**fields)
    with pytest.raises(ValueError, match=f"^{name} must be at most"):
        config.validate()


@pytest.mark.parametrize(
    "args, name",
    [
        (["parity", "--n-elems", "10000", "--max-ponder-steps", "2", "--hidden", "4", "--batch-size", "4", "--eval-size", "4"],
         "difficulty_eval_size"),
        (["parity", "--n-elems", "4", "--difficulty-eval-size", "1000000"], "difficulty_eval_size"),
        (["sequence_parity", "--seq-len", "10000", "--max-ponder-steps", "10000", "--hidden", "1", "--n-elems", "2",
          "--halting-bias-init", "-100"], "max_ponder_steps"),
        (["convex_hull", "--test-max-points", "10000", "--test-size", "2", "--beam-width", "1000"], "test_max_points"),
        (["sorting", "--test-max-len", "10000", "--test-size", "2"], "test_max_len"),
    ],
    ids=["parity-difficulties", "parity-profile-batch", "sequence-loop", "hull-beams", "sorting-lengths"],
)
def test_the_cli_refuses_a_product_before_training_in_one_line(args, name):
    proc = run_capped("train", *args, "--max-updates", "1", timeout=60)
    assert_one_line_exit_2(proc, name)


@pytest.mark.parametrize(
    "message",
    ["std::bad_alloc", "could not create a primitive", "DefaultCPUAllocator: not enough memory: you tried to allocate 4 GB",
     "CUDA out of memory. Tried to allocate", "[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory"],
)
def test_the_cli_reads_every_allocation_failure_as_out_of_memory(message):
    assert _out_of_memory(RuntimeError(message))
    assert not _out_of_memory(RuntimeError("mat1 and mat2 shapes cannot be multiplied"))


@pytest.mark.parametrize(
    "args, flag",
    [
        (["train", "parity", "--checkpoint", "best", "--checkpoint", "final"], "--checkpoint"),
        (["train", "parity", "--n-elems", "4", "--n-elems", "5"], "--n-elems"),
        (["train", "sorting", "--bidirectional", "--no-bidirectional"], "bidirectional"),
        (["sweep", "parity", "--results", "a.jsonl", "--results", "b.jsonl"], "--results"),
    ],
    ids=["choice", "int", "bool", "sweep-results"],
)
def test_an_option_given_twice_is_refused_in_one_line(args, flag):
    proc = run_capped(*args, "--max-updates", "1", timeout=60) if args[0] == "train" else run_capped(*args, timeout=60)
    line = assert_one_line_exit_2(proc)
    if flag is not None:
        assert flag in line and "twice" in line, line


# --- 2. builders bounded, not only configs ---------------------------------------------------------

HUGE_BUILDS = [
    (lambda: act_parity_model(10**9, hidden=2), "n_elems"),
    (lambda: act_parity_model(4, hidden=10**6), "hidden"),
    (lambda: pondernet_parity_model(10**9, hidden=2), "n_elems"),
    (lambda: pondernet_parity_model(4, hidden=10**6), "hidden"),
    (lambda: PonderStep(10**9, 2), "input_size"),
    (lambda: ACT(nn.Identity(), nn.Identity(), hidden_size=10**12), "hidden_size"),
    (lambda: PonderNet(nn.Identity(), hidden_size=10**12), "hidden_size"),
    (lambda: UniversalTransformer(d_model=4, heads=2, d_transition=10**9), "d_transition"),
    (lambda: UniversalTransformer(d_model=10**6, heads=2, d_transition=4), "d_model"),
    (lambda: parity_batch(10**6, 10**4), "batch_size"),
]


@pytest.mark.parametrize("build, name", HUGE_BUILDS, ids=[n + str(i) for i, (_, n) in enumerate(HUGE_BUILDS)])
def test_a_builder_refuses_a_huge_size_by_name(build, name):
    with pytest.raises(ValueError, match=name):
        build()


def test_actrnn_bounds_the_sequence_and_its_ponder_steps():
    act = act_parity_model(3, hidden=4, max_ponder_steps=2)
    with pytest.raises(ValueError, match="inputs"):
        ACTRNN(act)(torch.zeros(1, 10_001, 3))
    with pytest.raises(ValueError, match="max_ponder_steps"):
        ACTRNN(act_parity_model(3, hidden=4, max_ponder_steps=10_000))(torch.zeros(1, 1_000, 3))


# --- 3. evaluate_by_difficulty, predict_parity, evaluate_parity, step_profile ---------------------

@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    return act_parity_model(4, hidden=8, max_ponder_steps=3), pondernet_parity_model(4, hidden=8, max_ponder_steps=3)


@pytest.mark.parametrize(
    "difficulties, error, name",
    [
        ([1] * 10**6, ValueError, "difficulties"),
        (itertools.count(1), TypeError, "difficulties"),
        (3, TypeError, "difficulties"),
        ("12", TypeError, "difficulties"),
        ([0], ValueError, "difficulties"),
        ([2, 2], ValueError, "difficulties"),
        ([], ValueError, "difficulties"),
    ],
    ids=["million", "endless", "int", "str", "zero", "twice", "empty"],
)
def test_evaluate_by_difficulty_checks_its_difficulties(models, difficulties, error, name):
    with pytest.raises(error, match=name):
        evaluate_by_difficulty(models[1], 4, difficulties, samples_per_difficulty=1, seed=0)


@pytest.mark.parametrize("which", [0, 1], ids=["act", "pondernet"])
def test_evaluation_checks_halting_rule_and_generator_for_either_method(models, which):
    model, batch = models[which], parity_batch(5, 4)
    with pytest.raises(ValueError, match="halting_rule"):
        predict_parity(model, batch.inputs, halting_rule="bogus")
    for generator in ("abc", 3):
        with pytest.raises(TypeError, match="generator"):
            predict_parity(model, batch.inputs, generator=generator)
    with pytest.raises(ValueError, match="halting_rule"):
        evaluate_parity(model, batch, halting_rule="nope")
    with pytest.raises(ValueError, match="halting_rule"):
        evaluate_by_difficulty(model, 4, samples_per_difficulty=2, seed=0, halting_rule="bogus")


def test_evaluate_by_difficulty_refuses_a_model_without_parameters_by_name():
    with pytest.raises(ValueError, match="model"):
        evaluate_by_difficulty(PonderNet(nn.Identity(), 3), 4, samples_per_difficulty=2, seed=0)


def test_a_correlation_over_one_value_is_refused_by_name(models):
    evaluation = evaluate_by_difficulty(models[1], 4, [2], samples_per_difficulty=1, seed=0)
    with pytest.raises(ValueError, match="difficulties"):
        evaluation.correlation_on([2])


def _targets(batch, kind):
    return {
        "twos": batch.targets * 2, "nan": batch.targets * NAN, "column": batch.targets[:, None],
        "one": batch.targets[:1], "two of five": batch.targets[:2], "list": batch.targets.tolist(),
    }[kind]


@pytest.mark.parametrize("kind", ["twos", "nan", "column", "one", "two of five", "list"])
@pytest.mark.parametrize("use", ["evaluate_parity", "step_profile"])
def test_a_parity_batch_with_bad_targets_is_refused_naming_targets(models, kind, use):
    batch = parity_batch(5, 4)
    bad = ParityBatch(batch.inputs, _targets(batch, kind), batch.difficulty)
    with pytest.raises((ValueError, TypeError), match="targets"):
        if use == "evaluate_parity":
            evaluate_parity(models[1], bad)
        else:
            step_profile(models[1], bad, None, 0.01)


def test_step_profile_refuses_a_prior_that_is_not_a_tensor(models):
    with pytest.raises(TypeError, match="prior"):
        step_profile(models[1], parity_batch(5, 4), [0.5, 0.3, 0.2], 0.01)


# --- 4. kl_optimal_halting: the right limit or a named refusal, never NaN --------------------------

PRIOR = geometric_prior(0.2, 4)


@pytest.mark.parametrize(
    "losses, beta",
    [
        (torch.rand(3, 4) + 0.1, 1e-300),
        (torch.rand(3, 4) + 0.1, 1e-45),
        (torch.tensor([[-3e38, 0.0, 0.0, 0.0]]), 1e-3),
        (torch.rand(3, 4).half() * 1000, 1e-3),
        (torch.rand(3, 4), 1e6),
    ],
    ids=["beta-1e-300", "beta-1e-45", "huge-negative-loss", "float16", "beta-max"],
)
def test_kl_optimal_halting_is_a_distribution_at_extreme_allowed_values(losses, beta):
    p = kl_optimal_halting(losses, PRIOR, beta)
    assert p.dtype == losses.dtype and torch.isfinite(p).all()
    assert torch.allclose(p.double().sum(-1), torch.ones(len(losses), dtype=torch.float64), atol=1e-3)


def test_kl_optimal_halting_tends_to_the_least_loss_as_beta_tends_to_zero():
    losses = torch.tensor([[0.3, 0.1, 0.2, 0.4], [0.5, 0.5, 0.1, 0.1]])
    p = kl_optimal_halting(losses, PRIOR, 1e-300)
    expected = torch.tensor([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, PRIOR[2] / (PRIOR[2] + PRIOR[3]), PRIOR[3] / (PRIOR[2] + PRIOR[3])]])
    assert torch.allclose(p, expected, atol=1e-6)
    assert torch.allclose(kl_optimal_halting(losses, PRIOR, 0.01), torch.softmax(PRIOR.log() - losses / 0.01, -1), atol=1e-6)


@pytest.mark.parametrize(
    "losses, name",
    [
        (torch.ones(2, 4, dtype=torch.long), "step_losses"),
        (torch.ones(2, 4, dtype=torch.bool), "step_losses"),
        (torch.rand(0, 4), "step_losses"),
        (torch.rand(2, 4, device="meta"), "step_losses"),
    ],
    ids=["int", "bool", "empty", "meta"],
)
def test_kl_optimal_halting_refuses_what_holds_no_losses(losses, name):
    with pytest.raises(ValueError, match=name):
        kl_optimal_halting(losses, PRIOR, 0.01)


def test_step_profile_at_a_tiny_beta_is_finite(models):
    profile = step_profile(models[1], parity_batch(5, 4), geometric_prior(0.2, 3), 1e-300)
    assert torch.isfinite(profile.kl_optimal_halting_distribution).all()


# --- 5. models: state, meta tensors, a step function that is not one --------------------------------

@pytest.mark.parametrize("state", [torch.zeros(3, 8), torch.zeros(8)], ids=["other-batch", "rank-1"])
def test_act_names_a_state_of_the_wrong_shape(models, state):
    with pytest.raises(ValueError, match="state"):
        models[0](parity_batch(5, 4).inputs, state=state)


@pytest.mark.parametrize(
    "call",
    [
        lambda: act_parity_model(4, hidden=8).to("meta")(torch.zeros(5, 4, device="meta")),
        lambda: pondernet_parity_model(4, hidden=8).to("meta")(torch.zeros(5, 4, device="meta")),
        lambda: pondernet_parity_model(4, hidden=8).to("meta").infer(torch.zeros(5, 4, device="meta")),
    ],
    ids=["act", "pondernet", "pondernet-infer"],
)
def test_a_meta_input_is_refused_naming_x(call):
    with pytest.raises(ValueError, match="x"):
        call()


def test_halting_and_losses_refuse_meta_tensors_by_name():
    from ponderlib.mechanisms.halting import pondernet_halting
    from ponderlib.mechanisms.losses import reconstruction_loss

    with pytest.raises(ValueError, match="lambdas"):
        pondernet_halting(torch.rand(2, 3, device="meta"))
    with pytest.raises(ValueError, match="halting_probs"):
        reconstruction_loss(torch.ones(2, 3, device="meta"), torch.ones(2, 3, device="meta") / 3)


@pytest.mark.parametrize(
    "build, name",
    [
        (lambda: PonderNet("step", 4), "step"),
        (lambda: ACT("cell", nn.Identity(), 4), "cell"),
        (lambda: ACT(nn.Identity(), "out", 4), "output_layer"),
        (lambda: ACTRNN("act"), "act"),
    ],
    ids=["pondernet-step", "act-cell", "act-output", "actrnn"],
)
def test_a_step_function_that_is_not_callable_is_a_type_error(build, name):
    with pytest.raises(TypeError, match=name):
        build()


@pytest.mark.parametrize("use", ["forward", "infer"])
def test_a_step_whose_lambda_is_not_one_per_sample_is_named(use):
    model = PonderNet(lambda x, h: (x.sum(1), h, torch.full((x.shape[0], 2), 0.5)), 4)
    with pytest.raises(ValueError, match="lambda"):
        getattr(model, use)(parity_batch(5, 4).inputs)


# --- 6. fit: its arguments once at entry, a missing metric at the first evaluation, no NaN -----------

def _fit(config=None, loss=None, evaluate=None, target_metric="accuracy", model=None, next_batch=None, on_evaluate=None):
    from ponderlib.core.config import TrainConfig
    from ponderlib.core.engine import fit

    model = nn.Linear(2, 1) if model is None else model
    x = torch.randn(8, 2)
    next_batch = (lambda: x) if next_batch is None else next_batch
    loss = (lambda model, batch: model(batch).pow(2).mean()) if loss is None else loss
    evaluate = (lambda model: {"accuracy": 0.5}) if evaluate is None else evaluate
    config = TrainConfig(max_updates=2, progress=False) if config is None else config
    return fit(model, next_batch, loss, evaluate, config, target_metric=target_metric, desc="t", on_evaluate=on_evaluate)


def _config(**fields):
    from ponderlib.core.config import TrainConfig

    return TrainConfig(**{"max_updates": 2, "progress": False, **fields})


def _parity_config(**fields):
    return ParityConfig(**{"max_updates": 2, "progress": False, **fields})


FIT_CASES = [
    (dict(config=_config(max_updates=0)), ValueError, "max_updates"),
    (dict(config=_config(max_updates=-5)), ValueError, "max_updates"),
    (dict(config=_config(eval_every=0)), ValueError, "eval_every"),
    (dict(config="cfg"), TypeError, "config"),
    (dict(config={"max_updates": 1}), TypeError, "config"),
    (dict(config=_config(target_accuracy=0.9), target_metric="nope"), ValueError, "nope"),
    (dict(config=_parity_config(checkpoint="best-beyond", max_nonzero=3)), ValueError, "extrapolation_accuracy"),
    (dict(config=_parity_config(checkpoint="best"), evaluate=lambda m: {"accuracy": None}), ValueError, "accuracy"),
    (dict(config=_parity_config(checkpoint="best"), evaluate=lambda m: {"accuracy": "0.5"}), ValueError, "accuracy"),
    (dict(evaluate=lambda m: [0.5]), TypeError, "evaluate"),
    (dict(evaluate="abc"), TypeError, "evaluate"),
    (dict(loss=lambda m, b: torch.ones(3, requires_grad=True)), ValueError, "loss_fn"),
    (dict(loss=lambda m, b: 1.0), TypeError, "loss_fn"),
    (dict(loss="abc"), TypeError, "loss_fn"),
    (dict(loss=lambda m, b: torch.tensor(NAN, requires_grad=True)), ValueError, "loss_fn"),
    (dict(next_batch=[1, 2]), TypeError, "next_batch"),
    (dict(on_evaluate="x"), TypeError, "on_evaluate"),
    (dict(model="m"), TypeError, "model"),
    (dict(model=nn.Identity()), ValueError, "model"),
    (dict(target_metric=3), TypeError, "target_metric"),
]


@pytest.mark.parametrize("kwargs, error, name", FIT_CASES, ids=[f"{n}-{i}" for i, (_, _, n) in enumerate(FIT_CASES)])
def test_fit_checks_its_arguments_by_name(kwargs, error, name):
    with pytest.raises(error, match=name):
        _fit(**kwargs)


def test_a_nan_loss_stops_fit_at_its_training_update():
    model = nn.Linear(2, 1)
    calls = iter(range(100))

    def loss(model, batch):
        return model(torch.ones(4, 2)).mean() * (NAN if next(calls) == 2 else 1.0)

    with pytest.raises(ValueError, match="training update 3"):
        _fit(config=_config(max_updates=10), loss=loss, model=model)


def test_a_checkpoint_metric_nan_at_every_evaluation_keeps_the_final_network():
    result = _fit(config=_parity_config(checkpoint="best", eval_every=1), evaluate=lambda m: {"accuracy": NAN})
    assert result.checkpoint_update is None and result.updates == 2


def test_a_checkpoint_skips_nan_evaluations():
    values = iter([NAN, 0.4, NAN, 0.3])
    result = _fit(config=_parity_config(checkpoint="best", eval_every=1, max_updates=4), evaluate=lambda m: {"accuracy": next(values)})
    assert result.checkpoint_update == 2


# --- 7. small entry points: setup_chapter, a train function's on_evaluate ------------------------------------------------

@pytest.mark.parametrize("seed, error", [(-1, ValueError), ("0", ValueError), (2**64, ValueError), (NAN, ValueError), (True, ValueError)])
def test_setup_chapter_checks_its_seed(seed, error):
    from ponderlib.core.engine import setup_chapter

    with pytest.raises(error, match="seed"):
        setup_chapter(seed)


def test_on_evaluate_refuses_what_is_not_callable():
    from ponderlib.tasks.parity import train_parity

    with pytest.raises(TypeError, match="on_evaluate must be callable as on_evaluate\\(update, model\\), got str"):
        train_parity(_parity_config(), on_evaluate="x")


# --- 8. evidence: a record's point is its config's, its cost is a cost ------------------------------

def _tampered(tmp_path, change):
    source = ROOT / "evidence" / "act-parity-live.jsonl"
    lines = source.read_text().splitlines()
    record = json.loads(lines[0])
    change(record)
    lines[0] = json.dumps(record)
    path = tmp_path / "act-parity-live.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


TAMPERED = {
    "point-mismatch": (lambda r: r["point"].update(halting_bias_init=-r["point"]["halting_bias_init"]), "point"),
    "point-extra": (lambda r: r["point"].update(zzz=1), "point"),
    "seconds-nan": (lambda r: r["summary"].update(seconds=NAN), "seconds"),
    "seconds-negative": (lambda r: r["summary"].update(seconds=-3.0), "seconds"),
    "seconds-str": (lambda r: r["summary"].update(seconds="3"), "seconds"),
    "threads-zero": (lambda r: r["summary"].update(torch_threads=0), "torch_threads"),
    "updates-missing": (lambda r: r["summary"].pop("updates"), "updates"),
    "updates-str": (lambda r: r["summary"].update(updates="5000"), "updates"),
    "source-str": (lambda r: r.update(source="abc"), "source"),
}


@pytest.mark.parametrize("case", list(TAMPERED))
def test_evidence_refuses_a_tampered_record_and_leaves_the_file(tmp_path, case):
    from ponderlib.sweep.evidence import Evidence

    change, name = TAMPERED[case]
    path = _tampered(tmp_path, change)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=name):
        Evidence.load("act-parity-live", folder=tmp_path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("case", ["point-mismatch", "point-extra"])
def test_sweep_summary_refuses_a_record_whose_point_is_not_its_config(tmp_path, case):
    path = _tampered(tmp_path, TAMPERED[case][0])
    proc = run_capped("sweep", "--summary", str(path), timeout=60)
    assert_one_line_exit_2(proc, "point")


def test_evidence_names_a_bad_metric_and_a_bad_folder(tmp_path):
    from ponderlib.sweep.evidence import Evidence

    shutil.copy(ROOT / "evidence" / "act-parity-live.jsonl", tmp_path)
    evidence = Evidence.load("act-parity-live", folder=tmp_path)
    with pytest.raises(TypeError, match="name"):
        evidence.values(123, halting_bias_init=1.0)
    with pytest.raises(ValueError, match="nope"):
        evidence.values("nope", halting_bias_init=1.0)
    for folder in (123, b"/tmp"):
        with pytest.raises(TypeError, match="folder"):
            Evidence.load("act-parity-live", folder=folder)


# --- 9. the thinking-time figure ------------------------------------------------------------------

class _Run:
    def __init__(self, expected, sampled):
        self.expected_ponder_steps, self.mean_ponder_steps = expected, sampled


RUNS = [_Run(3.0, 2.5), _Run(4.0, 3.0)]
FIGURE_CASES = [
    (([RUNS], 5.0), {}, TypeError, "groups"),
    (("abc", 5.0), {}, TypeError, "groups"),
    (({"a": "xyz"}, 5.0), {}, TypeError, "groups"),
    (({"a": [{"expected_ponder_steps": 1.0, "mean_ponder_steps": 1.0}]}, 5.0), {}, TypeError, "groups"),
    (({"a": RUNS}, NAN), {}, ValueError, "prior_mean"),
    (({"a": RUNS}, math.inf), {}, ValueError, "prior_mean"),
    (({"a": RUNS}, -3.0), {}, ValueError, "prior_mean"),
    (({"a": RUNS}, "5"), {}, ValueError, "prior_mean"),
    (({"a": RUNS}, None), {}, ValueError, "prior_mean"),
    (({"a": RUNS}, 5.0), {"paper": NAN}, ValueError, "paper"),
    (({"a": RUNS}, 5.0), {"paper": "3"}, ValueError, "paper"),
    (({"a": RUNS}, 5.0), {"title": 3}, TypeError, "title"),
    (({"a": [_Run(NAN, 2.0)]}, 5.0), {}, ValueError, "expected_ponder_steps"),
    (({"a": [_Run(3.0, -2.0)]}, 5.0), {}, ValueError, "mean_ponder_steps"),
    (({"a": [_Run("3", 2.0)]}, 5.0), {}, ValueError, "expected_ponder_steps"),
]


@pytest.mark.parametrize("args, kwargs, error, name", FIGURE_CASES, ids=[f"{n}-{i}" for i, (*_, n) in enumerate(FIGURE_CASES)])
def test_the_thinking_time_figure_refuses_by_name(args, kwargs, error, name):
    import matplotlib.pyplot as plt

    from ponderlib.figures.pondernet import plot_thinking_time_by_setting

    before = plt.get_fignums()
    with pytest.raises(error, match=name):
        plot_thinking_time_by_setting(*args, **kwargs)
    assert plt.get_fignums() == before


# --- 10. live claims -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def live_claims():
    from ponderlib.experiments.claims import LIVE_CLAIMS
    from ponderlib.sweep.evidence import Evidence

    with_point = next(c for c in LIVE_CLAIMS.values() if c.point is not None)
    without_point = next(c for c in LIVE_CLAIMS.values() if c.point is None)
    good = Evidence.load(with_point.preset).runs(**with_point.point)[0]
    return with_point, without_point, good


def _live_cases(good):
    return {
        "seed-huge": ("point", [{**good, "seed": 2**70}], ValueError, "seed"),
        "seed-str": ("point", [{**good, "seed": "0"}], ValueError, "seed"),
        "twice": ("point", [good, good], ValueError, "twice"),
        "no-seed": ("point", [{k: v for k, v in good.items() if k != "seed"}], ValueError, "seed"),
        "no-config": ("point", [{k: v for k, v in good.items() if k != "config"}], ValueError, "config"),
        "config-none": ("point", [{**good, "config": None}], ValueError, "config"),
        "row-empty": ("row", [{}], ValueError, "live"),
        "row-of-empty": ("row", [{"a": {}}], ValueError, "config"),
    }


@pytest.mark.parametrize("case", ["seed-huge", "seed-str", "twice", "no-seed", "no-config", "config-none", "row-empty", "row-of-empty"])
def test_check_live_claims_checks_each_live_run(live_claims, case):
    from ponderlib.experiments.claims import check_live_claims

    with_point, without_point, good = live_claims
    kind, live, error, name = _live_cases(good)[case]
    with pytest.raises(error, match=name):
        check_live_claims(with_point if kind == "point" else without_point, live)


def test_live_claims_check_preset_and_point_when_built(live_claims):
    from ponderlib.experiments.claims import LiveClaims, claim_rates

    with_point = live_claims[0]
    claims = {"x": lambda run: True}
    with pytest.raises(TypeError, match="preset"):
        LiveClaims(["a"], claims)
    for point in ("abc", [1]):
        with pytest.raises(TypeError, match="point"):
            LiveClaims(with_point.preset, claims, point=point)
    with pytest.raises(ValueError, match="point"):
        LiveClaims(with_point.preset, claims, point={"bogus": 1})
    with pytest.raises(TypeError, match="evidence"):
        claim_rates(with_point, "x")


# --- 7. the fourth probe (issue 40, round 4): sweep and evidence, claims, tables, figures, summaries ---------

HUGE_INT = 10**400  # a JSON integer float() overflows


def _huge_record(**summary):
    from ponderlib.sweep.evidence import Evidence

    record = Evidence.load("act-parity-live", ROOT / "evidence").records[0]
    return {**record, "summary": {**record["summary"], **summary}}


def _fourth_probe_cases():
    """``(id, call, kind, message)``: each call must raise ``kind`` with a one-line message matching ``message``
    (which names the parameter), where it raised an OverflowError, a KeyError, an AttributeError, a
    ZeroDivisionError, torch's or matplotlib's own error, or returned a wrong or silent result."""
    from ponderlib.experiments.claims import CH1_PARITY, CH2_KL, LiveClaims, claim_rates
    from ponderlib.figures.sweep import plot_sweep
    from ponderlib.presentation.tables import evidence_table
    from ponderlib.sweep import Evidence, load_results, sweep
    from ponderlib.sweep.summary import run_metrics, summarize

    evidence = Evidence.load("act-parity-live", ROOT / "evidence")
    claims = {"x": lambda run: True}
    cases = [
        ("claim_rates-another-presets-evidence",
         lambda: claim_rates(CH2_KL, Evidence.load("pondernet-parity-median-live", ROOT / "evidence")), ValueError,
         r"^evidence must be 'pondernet-parity-kl-live''s or its confirmation set's"),
        ("claim_rates-another-grid", lambda: claim_rates(CH1_PARITY, Evidence.load("pondernet-parity-kl-live", ROOT / "evidence")),
         ValueError, "^evidence must be"),
        ("finished-off-grid", lambda: evidence.finished(halting_bias_init=2.0), ValueError,
         r"^halting_bias_init must be one of the grid's values \[3.0, 1.0\] of 'act-parity-live'"),
        ("LiveClaims-point-off-grid", lambda: LiveClaims("act-parity-live", claims, {"halting_bias_init": 99.0}), ValueError,
         "^halting_bias_init must be one of the grid's values"),
        ("LiveClaims-point-off-confirmation-grid", lambda: LiveClaims("act-parity-live", claims, {"halting_bias_init": 3.0}),
         ValueError, r"^halting_bias_init must be one of the grid's values \[1.0\] of 'act-parity-live-confirm'"),
        ("sweep-results_path-none", lambda: sweep("parity", {"lambda_p": [0.1]}, [0], None), TypeError, "^results_path must be a path"),
        ("sweep-results_path-bytes", lambda: sweep("parity", {"lambda_p": [0.1]}, [0], b"runs.jsonl"), TypeError, "^results_path"),
        ("sweep-address-int", lambda: sweep("parity", {"tau": [0.1]}, [0], "runs.jsonl", executor="ray", address=123),
         TypeError, "^address must be a Ray cluster's address"),
        ("load_results-none", lambda: load_results(None), TypeError, "^path must be a path"),
        ("summarize-none", lambda: summarize(None), TypeError, "^records must be an iterable"),
        ("run_metrics-none", lambda: run_metrics(None), TypeError, "^summary must be a run's summary"),
        ("plot_sweep-none", lambda: plot_sweep(None, "tau", "final_accuracy"), TypeError, "^records must be a list"),
        ("plot_sweep-not-records", lambda: plot_sweep([1], "tau", "final_accuracy"), TypeError, r"^records\[0\]: not a sweep record"),
        ("plot_sweep-where-str", lambda: plot_sweep(evidence.records, "halting_bias_init", "final_accuracy", where="x"),
         TypeError, "^where must be a mapping"),
        ("evidence_table-none", lambda: evidence_table(None), TypeError, "^sets must be a collection"),
        ("evidence_table-not-evidence", lambda: evidence_table([1]), TypeError, r"^sets\[0\] must be a Evidence"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _fourth_probe_cases())
def test_the_fourth_probe_is_refused_naming_the_parameter(call, kind, message):
    assert_refused(call, kind, message)


@pytest.mark.parametrize("entry", ["seconds", "updates", "final_accuracy"])
def test_an_integer_too_large_for_a_float_in_a_results_file_is_named_or_left_out(tmp_path, capsys, entry):
    from ponderlib import cli
    from ponderlib.sweep import Evidence
    from ponderlib.sweep.summary import summarize

    record = _huge_record(**{entry: HUGE_INT})
    (tmp_path / "act-parity-live.jsonl").write_text(json.dumps(record) + "\n")
    if entry in ("seconds", "updates"):  # a run's cost: refused by name (was OverflowError)
        with pytest.raises(ValueError, match=f"entry '{entry}' must be a number in"):
            Evidence.load("act-parity-live", tmp_path)
    else:  # a metric: not measured, as an infinity is (was OverflowError, in the CLI a traceback)
        assert summarize([record])[0]["metrics"][entry]["n"] == 0
        assert cli.main(["sweep", "--summary", str(tmp_path / "act-parity-live.jsonl")]) == 0
        assert "final_accuracy" in capsys.readouterr().out


def test_a_claim_reading_a_grid_point_a_live_row_lacks_is_named():
    from ponderlib.experiments.claims import CH2_KL, check_live_claims
    from ponderlib.sweep import Evidence

    run = Evidence.load("pondernet-parity-kl-live", ROOT / "evidence").runs(kl_direction="paper")[0]
    with pytest.raises(ValueError, match=r"^live\[0\] holds no 'reverse', which the claim"):
        check_live_claims(CH2_KL, [{"paper": run}])


def _fourth_probe_table_cases():
    """The fourth probe's tables, figures and summaries: ``(id, call, kind, message)`` as
    :func:`_fourth_probe_cases`; each printed ``nan`` or ``inf``, dropped a seed, divided by zero, or raised a
    KeyError, an AttributeError or a format error naming nothing."""
    import matplotlib

    matplotlib.use("Agg")
    from ponderlib.experiments.act import TauEvidence
    from ponderlib.experiments.parity import HaltingSummary
    from ponderlib.experiments.pondernet import DifficultySummary
    from ponderlib.experiments.transformer import StepsDistribution, accuracy_against_compute, pooled_steps
    from ponderlib.figures import pondernet as figures
    from ponderlib.presentation import act, pointer, pondernet, tables, transformer
    from ponderlib.sweep import Evidence

    evidence = ROOT / "evidence"
    tau = TauEvidence.from_summaries(Evidence.load("act-parity-tau-live", evidence).summaries())
    curves = tau.curves(0)
    run = Evidence.load("pondernet-parity-live", evidence).runs(method="pondernet", kl_direction="paper")[0]
    chains = Evidence.load("ut-chains-live", evidence).runs(method="fixed", halting_bias_init=1.0)[:2]
    halting = HaltingSummary(0.9, 2.0, torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64))
    by_lambda = {0.2: [halting, halting]}
    hulls = {"accuracy": {5: [0.5]}, "area_coverage": {5: [0.9]}, "invalid": {5: [0.0]}}
    cases = [
        ("mean_range-inf", lambda: tables.mean_range([INF, -INF]), ValueError, "^values must hold no NaN or infinity"),
        ("mean_sd-inf", lambda: tables.mean_sd([INF, 1.0]), ValueError, "^values must hold no NaN or infinity"),
        ("mean_range-str", lambda: tables.mean_range(["a"]), TypeError, "^values must hold numbers"),
        ("mean_range-none", lambda: tables.mean_range(None), TypeError, "^values must be a collection"),
        ("mean_range-digits", lambda: tables.mean_range([1.0], -1), ValueError, r"^digits must be an integer in \[0, 17\]"),
        ("range_mean-digits-huge", lambda: tables.range_mean([1.0], 10**9), ValueError, "^digits must be an integer"),
        ("signed-digits", lambda: act.signed(0.5, 1.5), ValueError, "^digits must be an integer"),
        ("signed-str", lambda: act.signed("a"), TypeError, "^r must be a number"),
        ("per_seed_table-inf", lambda: pointer.per_seed_table([0, 1], {"a": [INF, -INF]}), ValueError, r"^columns\['a'\] must hold no NaN"),
        ("per_seed_table-digits", lambda: pointer.per_seed_table([0], {"a": [1.0]}, -1), ValueError, "^digits"),
        ("sort_length_table-nan", lambda: pointer.sort_length_table({0: {5: NAN}}, [5]), ValueError,
         "^by_length's exact match at length 5 must hold no NaN"),
        ("sort_length_table-no-length", lambda: pointer.sort_length_table({0: {5: 1.0}}, []), ValueError, "^lengths must hold"),
        ("hull_table-nan-area", lambda: pointer.hull_table({**hulls, "area_coverage": {5: [NAN]}}, [5]), ValueError,
         r"^metrics\['area_coverage'\]\[5\] must hold no NaN"),
        ("hull_table-seeds-differ", lambda: pointer.hull_table({**hulls, "accuracy": {5: [0.5, 0.6]}}, [5]), ValueError,
         "^metrics must hold one value per seed"),
        ("hull_table-no-point-count", lambda: pointer.hull_table(hulls, []), ValueError, "^point_counts must hold"),
        ("prior_table-empty", lambda: pondernet.prior_table([], 5), ValueError, "^lambda_ps must hold"),
        ("lambda_table-solved-nan", lambda: pondernet.lambda_table(by_lambda, 3, solved=NAN), ValueError, r"^solved must be in \[0, 1\]"),
        ("lambda_table-other-cap", lambda: pondernet.lambda_table(by_lambda, 5), ValueError, "^max_ponder_steps must be the runs' cap, 3"),
        ("lambda_table-lambda-str", lambda: pondernet.lambda_table({"x": [halting]}, 3), ValueError, "^lambda_p must be in"),
        ("tail_table-smaller-cap", lambda: pondernet.tail_table(by_lambda, 2), ValueError, "^max_ponder_steps must be the runs' cap, 3"),
        ("tail_table-larger-cap", lambda: pondernet.tail_table(by_lambda, 50), ValueError, "^max_ponder_steps must be the runs' cap"),
        ("tail_table-not-a-summary", lambda: pondernet.tail_table({0.2: [1]}, 3), TypeError, r"^runs\[0.2\]\[0\] must be a HaltingSummary"),
        ("act-seed_table-nan", lambda: act.seed_table(curves, [NAN] * len(curves.seeds)), ValueError, r"^accuracy\[0\] must be in \[0, 1\]"),
        ("act-seed_table-above-one", lambda: act.seed_table(curves, [2.0] * len(curves.seeds)), ValueError, r"^accuracy\[0\]"),
        ("act-seed_table-curves", lambda: act.seed_table(None, [0.5]), TypeError, "^curves must be a SeedCurves"),
        ("growing-nan", lambda: tau.growing(NAN), ValueError, "^minimum_slope must be a finite number"),
        ("tau_evidence_table-slope", lambda: act.tau_evidence_table(tau, NAN, 1000), ValueError, "^minimum_slope"),
        ("transformer-seed_table-deepest", lambda: transformer.seed_table({0: {"fixed": chains[0]}}, 99), ValueError,
         "^deepest must be a depth a run of by_seed scored"),
        ("transformer-setting_table-deepest", lambda: transformer.setting_table({"fixed": chains}, 99), ValueError,
         r"^deepest must be a depth settings\['fixed'\] scored"),
        ("accuracy_against_compute-deepest", lambda: accuracy_against_compute(chains, 99), ValueError, r"^deepest must be a depth summaries\[0\]"),
        ("StepsDistribution-no-position", lambda: StepsDistribution((0, 0)), ValueError, "^counts must count at least one position"),
        ("StepsDistribution-negative", lambda: StepsDistribution((-1, 2)), ValueError, "^counts must be a tuple of integers >= 0"),
        ("pooled_steps-no-position", lambda: pooled_steps([{"ponder_steps_histogram_by_depth": {"1": [0, 0]}}]), ValueError, "^counts"),
        ("distribution_table-no-common-depth", lambda: transformer.distribution_table(
            {"fixed": {1: StepsDistribution((1,))}, "act": {2: StepsDistribution((1,))}}), ValueError, "^distributions must share"),
        ("DifficultySummary-no-config", lambda: DifficultySummary.of({}), ValueError, "must have the entry 'config'"),
        ("DifficultySummary-nan", lambda: DifficultySummary.of({**run, "accuracy_by_difficulty": {**run["accuracy_by_difficulty"], "1": NAN}}),
         ValueError, "entry 'accuracy_by_difficulty' must be a non-empty mapping of numbers"),
        ("DifficultySummary-missing-difficulty", lambda: DifficultySummary.of({**run, "accuracy_by_difficulty": {"1": 1.0}}), ValueError,
         "entry 'accuracy_by_difficulty' must score every difficulty; it has none at 2"),
        ("plot_sensitivity-empty", lambda: figures.plot_sensitivity({}, {}), ValueError, "^act_runs must hold"),
        ("plot_sensitivity-seed-dropped", lambda: figures.plot_sensitivity({0.1: [halting, halting], 0.2: [halting]}, by_lambda),
         ValueError, r"^act_runs must hold one run per seed at every value: act_runs\[0.1\] holds 2, act_runs\[0.2\] 1"),
        ("plot_sensitivity-nan",
         lambda: figures.plot_sensitivity(by_lambda, {0.1: [HaltingSummary(NAN, 2.0, halting.halting_distribution)]}),
         ValueError, r"^pondernet_runs\[0.1\]\[0\].interpolation_accuracy must be a finite number"),
        ("plot_lambda_robustness-empty", lambda: figures.plot_lambda_robustness({}, {}, 0.9), ValueError, "^runs must hold"),
        ("plot_lambda_robustness-solved", lambda: figures.plot_lambda_robustness(by_lambda, {0.2: 3.0}, NAN), ValueError, "^solved"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _fourth_probe_table_cases())
def test_the_fourth_probe_tables_and_figures_refuse_naming_the_parameter(call, kind, message):
    assert_refused(call, kind, message)


@pytest.mark.parametrize("lambda_p", [1e-300, 1e-17, 1e-12, 1e-9, 1e-5])
@pytest.mark.parametrize(("truncation", "limit"), [("normalised", 5.5), ("last", 10.0)])
def test_prior_mean_at_a_tiny_lambda_p_tends_to_its_limit(lambda_p, truncation, limit):
    """The closed forms cancelled to noise (1e-12: -22 million; 1e-17: a ZeroDivisionError); as lambda_p -> 0 the
    normalised prior is uniform over N = 10 steps (mean 5.5) and the other halts on the last (mean 10)."""
    from ponderlib.experiments.pondernet import prior_mean

    assert prior_mean(lambda_p, 10, truncation) == pytest.approx(limit, rel=1e-4)
    with pytest.raises(ValueError, match=r"^max_ponder_steps must be an integer in \[1, 10000\]"):
        prior_mean(lambda_p, 10**18, truncation)


def test_prior_mean_is_continuous_where_it_starts_summing():
    from ponderlib.experiments.pondernet import SUMMED_BELOW, prior_mean

    for truncation in ("normalised", "last"):
        below, above = prior_mean(SUMMED_BELOW / 10 * 0.999, 10, truncation), prior_mean(SUMMED_BELOW / 10 * 1.001, 10, truncation)
        assert below == pytest.approx(above, abs=1e-5)  # lambda_p moves by 2e-7: the mean by about 8 times that


# --- 8. the fifth probe (issue 40, round 5): figures, experiments, tables, sweep ---------------------------------


@pytest.mark.parametrize("executor", ["pool", "ray"])
def test_a_sweep_bounds_its_workers_before_any_executor_starts(tmp_path, monkeypatch, executor):
    import sys

    from ponderlib.sweep.runner import sweep

    monkeypatch.setitem(sys.modules, "ray", None)  # importing Ray would fail: the check must come first
    with pytest.raises(ValueError, match=r"^workers must be an integer in \[1, 1024\], got 1000000000000$"):
        sweep("parity", {"tau": [0.1]}, [0], tmp_path / "runs.jsonl", executor=executor, workers=10**12, progress=False)
    assert not (tmp_path / "runs.jsonl").exists()


def test_the_cli_bounds_workers_in_one_line(tmp_path, monkeypatch, capsys):
    import sys

    from ponderlib.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(SystemExit) as exit_:
        main(["sweep", "parity", "--grid", "tau=0.1", "--seeds", "0", "--results", str(tmp_path / "runs.jsonl"),
              "--executor", "ray", "--workers", str(10**12)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(lines) == 1 and "workers must be an integer in [1, 1024]" in lines[0]


def _fifth_probe_cases():
    """The fifth probe: ``(id, call, kind, message)`` as :func:`_fourth_probe_cases`; each raised an error from
    inside torch, matplotlib or Python (IndexError, KeyError, AttributeError, RuntimeError, a format error,
    OverflowError), returned NaN, drew an empty figure, or was accepted."""
    import types

    import matplotlib

    matplotlib.use("Agg")
    from ponderlib.experiments import pointer as pointer_experiments
    from ponderlib.experiments.act import TauEvidence
    from ponderlib.experiments.parity import HaltingSummary, distribution_mean, mean_of
    from ponderlib.experiments.pondernet import DifficultySummary, ExtrapolationCurve
    from ponderlib.figures import act as act_figures
    from ponderlib.figures import pondernet as figures
    from ponderlib.presentation import pointer, pondernet, tables, transformer
    from ponderlib.sweep import PRESETS, Evidence
    from ponderlib.sweep.evidence import check_preset_records
    from ponderlib.sweep.summary import format_summary

    evidence = ROOT / "evidence"
    curves = TauEvidence.from_summaries(Evidence.load("act-parity-tau-live", evidence).summaries()).curves(0)
    run = Evidence.load("pondernet-parity-live", evidence).runs(method="pondernet", kl_direction="paper")[0]
    chains = Evidence.load("ut-chains-live", evidence).runs(method="fixed", halting_bias_init=1.0)[:2]
    halting = HaltingSummary(0.9, 2.0, torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64))
    short = HaltingSummary(0.9, 2.0, torch.tensor([0.5, 0.5], dtype=torch.float64))
    one_difficulty = {**run, "accuracy_by_difficulty": {"1": 1.0}, "expected_ponder_steps_by_difficulty": {"1": 2.0}}
    curve = {"update": [1, 2], "accuracy": [0.5, 0.6]}
    no_seed = {**run, "config": {k: v for k, v in run["config"].items() if k != "seed"},
               "curve": {"update": [1], "accuracy": [0.5], "extrapolation_accuracy": [0.5]}}
    sorted_run = types.SimpleNamespace(test=types.SimpleNamespace(exact_match=0.5, element_accuracy=0.9))
    cases = [
        ("plot_halting_vs_prior-empty", lambda: figures.plot_halting_vs_prior([], [0.5, 0.5], 0.5), ValueError,
         "^halting_distribution must hold at least one p_n"),
        ("plot_halting_vs_prior-lengths", lambda: figures.plot_halting_vs_prior([0.5, 0.5], [1.0], 0.5), ValueError,
         r"^halting_distribution must hold one p_n per step of prior \(1\), got 2"),
        ("plot_halting_vs_prior-nan-prior", lambda: figures.plot_halting_vs_prior([0.5, 0.5], [NAN, 0.5], 0.5), ValueError,
         "^prior must hold no NaN"),
        ("plot_halting_vs_prior-no-label", lambda: figures.plot_halting_vs_prior({}, [0.5, 0.5], 0.5), ValueError,
         "^halting_distribution must hold at least one distribution"),
        ("plot_halting_vs_prior-lambda-str", lambda: figures.plot_halting_vs_prior([0.5, 0.5], [0.5, 0.5], "a"), ValueError,
         r"^lambda_p must be in \(0, 1\]"),
        ("plot_halting_tails-lengths", lambda: figures.plot_halting_tails({0.2: [halting, short]}), ValueError,
         r"^runs\[0.2\]\[1\] must have as many steps as runs\[0.2\]\[0\], 3; got 2"),
        ("plot_halting_tails-str-key", lambda: figures.plot_halting_tails({"x": [halting]}), ValueError, "^lambda_p must be in"),
        ("plot_halting_tails-nan-key", lambda: figures.plot_halting_tails({NAN: [halting]}), ValueError, "^lambda_p must be in"),
        ("plot_halting_tails-list", lambda: figures.plot_halting_tails([halting]), TypeError, "^runs must be a mapping"),
        ("plot_halting_tails-not-a-summary", lambda: figures.plot_halting_tails({0.2: [1]}), TypeError,
         r"^runs\[0.2\]\[0\] must be a HaltingSummary"),
        ("plot_seeds_by_difficulty-empty", lambda: figures.plot_seeds_by_difficulty({}, {}), ValueError,
         "^evaluations must hold at least one entry"),
        ("plot_seeds_by_difficulty-empty-group", lambda: figures.plot_seeds_by_difficulty({"a": []}, {"a": "act"}), ValueError,
         r"^evaluations\['a'\] must hold at least one run"),
        ("plot_seeds_by_difficulty-mixed", lambda: figures.plot_seeds_by_difficulty({"a": [run, one_difficulty]}, {"a": "pondernet"}),
         ValueError, r"^evaluations\['a'\]\[1\] must score the difficulties of evaluations\['a'\]\[0\]"),
        ("plot_seed_curves-none", lambda: act_figures.plot_seed_curves(None, "t"), TypeError, "^curves must be a SeedCurves"),
        ("plot_seed_curves-ponder_max-nan", lambda: act_figures.plot_seed_curves(curves, "t", ponder_max=NAN), ValueError,
         "^ponder_max must be a finite number > 0"),
        ("plot_tau_evidence-none", lambda: act_figures.plot_tau_evidence(None), TypeError, "^evidence must be a TauEvidence"),
        ("plot_error_against_ponder-obj", lambda: act_figures.plot_error_against_ponder(curves), TypeError, "^evidence must be a TauEvidence"),
        ("plot_ponder_by_difficulty_per_tau-none", lambda: act_figures.plot_ponder_by_difficulty_per_tau(None), TypeError, "^evidence"),
        ("plot_tau_evidence_by_size-obj", lambda: act_figures.plot_tau_evidence_by_size({16: None}), TypeError,
         r"^by_size\[16\] must be a TauEvidence"),
        ("tau_pages-none", lambda: act_figures.tau_pages(None), TypeError, "^grid must be a TauGrid or TauEvidence"),
        ("plot_ponder_during_training-obj", lambda: act_figures.plot_ponder_during_training({"a": [1]}), TypeError,
         r"^groups\['a'\]\[0\] must be a TrackedRun"),
        ("plot_halting_sum-eps-2", lambda: act_figures.plot_halting_sum([[0.5, 0.5]], 2), ValueError, r"^eps must be in \[0, 1\)"),
        ("plot_halting_sum-eps-nan", lambda: act_figures.plot_halting_sum([[0.5, 0.5]], NAN), ValueError, r"^eps must be in \[0, 1\)"),
        ("plot_halting_sum-labels", lambda: act_figures.plot_halting_sum([[0.5, 0.5], [0.2, 0.8]], 0.01, ["a"]), ValueError,
         r"^labels must hold one title per sample \(2\)"),
        ("plot_halting_sum-none", lambda: act_figures.plot_halting_sum(None, 0.01), TypeError, "^halting_units must be a collection"),
        ("ExtrapolationCurve-lengths", lambda: ExtrapolationCurve.of(
            {"curve": {"update": [1, 2], "accuracy": [0.5], "extrapolation_accuracy": [0.5, 0.6]}}), ValueError,
         r"^run's curve must hold one accuracy and one extrapolation_accuracy per update \(2\), got 1 and 2"),
        ("ExtrapolationCurve-no-update", lambda: ExtrapolationCurve.of({"curve": {"accuracy": [0.5], "extrapolation_accuracy": [0.5]}}),
         ValueError, "^run's curve must have the entry 'update'"),
        ("ExtrapolationCurve-nan", lambda: ExtrapolationCurve.of(
            {"curve": {"update": [1], "accuracy": [NAN], "extrapolation_accuracy": [0.5]}}), ValueError, "^run's curve entry 'accuracy'"),
        ("Curve-nan", lambda: Curve.of({**curve, "accuracy": [NAN, 0.5]}).rising_at_end("accuracy"), ValueError,
         r"^curve\['accuracy'\] must hold no NaN"),
        ("Curve-none", lambda: Curve.of(None), TypeError, "^curve must be a History"),
        ("Curve-no-update", lambda: Curve.of({"accuracy": [0.5]}), ValueError, "^curve must have the entry 'update'"),
        ("Curve.reach-nan", lambda: Curve.of(curve).reach("accuracy", NAN), ValueError, "^threshold must be a finite number"),
        ("Curve.reach-str", lambda: Curve.of(curve).reach("accuracy", "a"), ValueError, "^threshold"),
        ("Curve.gain_since-bool", lambda: Curve.of(curve).gain_since("accuracy", True), ValueError, "^update must be an integer"),
        ("mean_of-obj", lambda: mean_of([1], "accuracy"), TypeError, r"^items\[0\] must be a result with the attribute 'accuracy'"),
        ("mean_of-nan", lambda: mean_of([HaltingSummary(NAN, 2.0, halting.halting_distribution)], "interpolation_accuracy"),
         ValueError, "^items' interpolation_accuracy must hold no NaN"),
        ("distribution_mean-list", lambda: distribution_mean([0.5, 0.5]), TypeError, "^halting_probs must be a torch.Tensor"),
        ("mean_and_half_range-nan", lambda: pointer_experiments.mean_and_half_range([NAN, 0.5]), ValueError, "^values must hold no NaN"),
        ("mean_curve-nan", lambda: pointer_experiments.mean_curve([{5: NAN}]), ValueError, r"^curves\[0\] must hold no NaN"),
        ("mean_curve-none", lambda: pointer_experiments.mean_curve([None]), TypeError, r"^curves\[0\] must be a Mapping"),
        ("markdown_table-str", lambda: tables.markdown_table("ab", [["x", "y"]]), TypeError, "^header must be a sequence of column names"),
        ("listed-str", lambda: tables.listed("abc"), TypeError, "^values must be a sequence of strings"),
        ("mean_sd-overflow", lambda: tables.mean_sd([1e308, -1e308]), ValueError, "^values must spread less than a float's range"),
        ("mean_range-sum-overflow", lambda: tables.mean_range([1e308, 1e308]), ValueError, "^values must sum to a finite number"),
        ("per_seed_table-repeated", lambda: pointer.per_seed_table([0, 0], {"a": [0.5, 0.5]}), ValueError, "^seeds must be distinct"),
        ("converged_decoder_table-str", lambda: pointer.converged_decoder_table({"a": [{}]}, "ab"), ValueError,
         r"^thresholds must be fractions in \(0, 1\]"),
        ("converged_decoder_table-bool", lambda: pointer.converged_decoder_table({"a": [{}]}, [True]), ValueError, "^thresholds must be"),
        ("decoder_table-missing-seed", lambda: pointer.decoder_table({"pointer": {0: sorted_run}, "seq2seq": {1: sorted_run}}), ValueError,
         r"^comparison\['seq2seq'\] must map the seeds \[0\]"),
        ("decoder_table-obj", lambda: pointer.decoder_table({"greedy": {0: 1}}), TypeError, r"^comparison\['greedy'\]\[0\] must be a sorting result"),
        ("transformer-seed_table-missing-model", lambda: transformer.seed_table(
            {0: {"fixed": chains[0], "act": chains[1]}, 1: {"fixed": chains[0]}}, 1), ValueError, r"^by_seed\[1\] must map the models"),
        ("tau_table-str-key", lambda: pondernet.tau_table({"a": [DifficultySummary.of(run)]}), ValueError, "^tau must be a finite number >= 0"),
        ("extrapolation_table-no-seed", lambda: pondernet.extrapolation_table({"a": [no_seed]}), ValueError,
         "^run's config must have the entry 'seed'"),
        ("check_preset_records-unknown", lambda: check_preset_records("nope", [], "x.jsonl"), ValueError, "^name must be one of the presets"),
        ("format_summary-empty-row", lambda: format_summary([{}]), ValueError, r"^rows\[0\] must have the entry 'task'"),
        ("Evidence-unknown", lambda: Evidence("nope", None, []), ValueError, "^name must be one of the presets"),
        ("Evidence-other-preset", lambda: Evidence("act-parity-live", PRESETS["pointer-sort-live"], []), ValueError,
         "^preset must be the preset named 'act-parity-live'"),
        ("Evidence-records", lambda: Evidence("act-parity-live", PRESETS["act-parity-live"], None), TypeError, "^records must be a list"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _fifth_probe_cases())
def test_the_fifth_probe_is_refused_naming_the_parameter(call, kind, message):
    assert_refused(call, kind, message)


def test_trend_table_says_in_words_where_r_is_undefined():
    """A seed whose E[n] is the same at every difficulty has no correlation: the table said "+nan to +nan"."""
    import dataclasses

    from ponderlib.experiments.pondernet import DifficultySummary
    from ponderlib.presentation.pondernet import trend_table
    from ponderlib.sweep import Evidence

    run = Evidence.load("pondernet-parity-live", ROOT / "evidence").runs(method="pondernet", kl_direction="paper")[0]
    measured = DifficultySummary.of(run)
    constant = dataclasses.replace(measured, expected_difficulty_correlation=NAN)
    table = trend_table({"constant": [constant, constant], "mixed": [measured, constant]}, 3)
    assert "nan" not in table
    assert "| undefined (constant $\\mathbb E[n]$) |" in table
    r = measured.expected_difficulty_correlation
    assert f"{r:+.2f} to {r:+.2f}; undefined in 1 of 2 (constant $\\mathbb E[n]$)" in table


# --- 9. the re-probe after round 5 (issue 40): what the fifth round's fixes left ---------------------------------


def _re_probe_cases():
    """Found by running the fourth probe's script again on main after round 5: ``(id, call, kind, message)``
    as :func:`_fourth_probe_cases`; each was accepted, drew NaN, or raised KeyError or AttributeError."""
    import matplotlib

    matplotlib.use("Agg")
    from ponderlib.experiments.parity import HaltingSummary
    from ponderlib.experiments.pondernet import DifficultySummary
    from ponderlib.experiments.transformer import pooled_steps
    from ponderlib.figures import act as act_figures
    from ponderlib.figures import pondernet as figures
    from ponderlib.figures import transformer as transformer_figures
    from ponderlib.presentation import act, pointer, pondernet, tables
    from ponderlib.sweep import PRESETS, Evidence
    from ponderlib.sweep.evidence import check_preset_records

    run = Evidence.load("pondernet-parity-live", ROOT / "evidence").runs(method="pondernet", kl_direction="paper")[0]
    halting = HaltingSummary(0.9, 2.0, torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64))
    cases = [
        ("Preset.config-seed-str", lambda: PRESETS["act-parity-live"].config("x", halting_bias_init=1.0), ValueError,
         r"^seed must be an integer in \[0, "),
        ("Preset.config-seed-bool", lambda: PRESETS["act-parity-live"].config(True, halting_bias_init=1.0), ValueError,
         r"^seed must be an integer in \[0, "),
        ("check_preset_records-record-empty", lambda: check_preset_records("act-parity-live", [{}], "x.jsonl"), ValueError,
         r"^results file 'x.jsonl', record 1 must have the entry 'task'"),
        ("per_seed_table-columns-list", lambda: pointer.per_seed_table([0], [("a", [1.0])]), TypeError, "^columns must be a mapping"),
        ("converged_decoder_table-no-seed", lambda: pointer.converged_decoder_table({"pointer": [{"exact_match": 1.0}]}),
         ValueError, r"^runs\['pointer'\]\[0\] must have the entry 'seed'"),
        ("trend_table-trained_max-str", lambda: pondernet.trend_table({"a": [DifficultySummary.of(run)]}, "x"), ValueError,
         r"^trained_max must be an integer in \[1, "),
        ("trend_table-not-a-summary", lambda: pondernet.trend_table({"a": [1]}, 6), TypeError,
         r"^groups\['a'\]\[0\] must be a DifficultySummary"),
        ("tau_evidence_table-none", lambda: act.tau_evidence_table(None, 0.1, 1000), TypeError, "^evidence must be a TauEvidence"),
        ("pooled_steps-no-histogram", lambda: pooled_steps([{}]), ValueError,
         r"^summaries\[0\] must have the entry 'ponder_steps_histogram_by_depth'"),
        ("plot_lambda_robustness-prior-nan", lambda: figures.plot_lambda_robustness({0.1: [halting]}, {0.1: NAN}, 0.9),
         ValueError, r"^prior_means\[0.1\] must be a finite number > 0"),
        ("plot_lambdas_to_halting-nan", lambda: figures.plot_lambdas_to_halting([NAN, 1.0], [0.5, 0.5]), ValueError,
         "^lambdas must hold no NaN"),
        ("plot_depth_by_position-order", lambda: transformer_figures.plot_depth_by_position({"fixed": [1.0, 2.0]}), ValueError,
         "^mean_depth's keys must be orders"),
        ("plot_depth_by_position-nan", lambda: transformer_figures.plot_depth_by_position({"shuffled": [NAN, 1.0]}), ValueError,
         r"^mean_depth\['shuffled'\] must hold no NaN"),
        ("plot_error_by_difficulty-empty-group", lambda: act_figures.plot_error_by_difficulty({"a": []}), TypeError,
         r"^groups\['a'\] must be a SeedCurves"),
        ("signed-inf", lambda: act.signed(INF), ValueError, r"^r must be a correlation in \[-1, 1\]"),
        ("mean_sd-text", lambda: tables.mean_sd(["1"]), TypeError, "^values must hold numbers"),
    ]
    return [pytest.param(call, kind, message, id=case) for case, call, kind, message in cases]


@pytest.mark.parametrize(("call", "kind", "message"), _re_probe_cases())
def test_the_re_probe_is_refused_naming_the_parameter(call, kind, message):
    assert_refused(call, kind, message)


def test_a_halting_distribution_must_sum_to_one_and_an_empty_set_says_it_has_not_run():
    from ponderlib.experiments.parity import HaltingSummary
    from ponderlib.presentation.tables import evidence_table
    from ponderlib.sweep import PRESETS, Evidence

    record = {"interpolation_accuracy": 0.99, "mean_ponder_steps": 3.0, "config": {"max_ponder_steps": 2},
              "halting_distribution": [0.25, 0.25]}
    with pytest.raises(ValueError, match="'halting_distribution' must sum to 1"):
        HaltingSummary.of(record)  # was read as a distribution, E[n] 0.75
    empty = Evidence("act-parity-live", PRESETS["act-parity-live"], [])
    assert evidence_table([empty]).splitlines()[2] == "| `act-parity-live` | 0 of 40 | 0 | 0 | (not run yet) | (none) |"  # was "; torch "
