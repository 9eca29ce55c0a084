"""Additive attention by hand; pointer decoding: masking, permutations, batching, beam search,
loss, metrics, a short training run, and the ``train sorting`` CLI."""

import itertools
import json
import math

import pytest
import torch
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from ponderlib.mechanisms.attention import AdditiveAttention, context, masked_log_softmax
from ponderlib.mechanisms.decoding import beam_search, greedy_decode
from ponderlib.mechanisms.pointer import DECODERS, DecoderOutput, PointerNetwork, pointer_step
from ponderlib.tasks.sorting import (
    SortConfig,
    evaluate_sort,
    exact_match_by_length,
    sort_loss,
    sort_metrics,
    train_sort,
)
from ponderlib.tasks.sorting_data import sort_batch, sort_batch_from_arrays, sort_teacher

pytestmark = pytest.mark.usefixtures("one_thread")


def small_model(decoder: str = "pointer", seed: int = 0, bidirectional: bool = True) -> PointerNetwork:
    torch.manual_seed(seed)
    return PointerNetwork(decoder, hidden=16, attention_dim=8, bidirectional=bidirectional, max_positions=8).eval()


# --- additive attention, eq. 3.1-3.3 -------------------------------------------------------------


def test_additive_attention_by_hand():
    # e_1 = (1, 0), e_2 = (0, 1), e_3 = (0, 0); W_1 = W_2 = I; v = (1, 1); d = (0.5, 0).
    attention = AdditiveAttention.from_matrices(torch.eye(2), torch.eye(2), torch.tensor([1.0, 1.0]))
    keys = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])
    query = torch.tensor([[0.5, 0.0]])
    u, a, c = attention(keys, query)
    # u_j = tanh(e_j1 + 0.5) + tanh(e_j2 + 0)
    expected_u = [math.tanh(1.5), math.tanh(0.5) + math.tanh(1.0), math.tanh(0.5)]
    assert u[0].tolist() == pytest.approx(expected_u, abs=1e-6)
    assert u[0].tolist() == pytest.approx([0.905148, 1.223711, 0.462117], abs=1e-6)
    z = sum(math.exp(x) for x in expected_u)
    assert a[0].tolist() == pytest.approx([math.exp(x) / z for x in expected_u], abs=1e-6)
    assert c[0].tolist() == pytest.approx([a[0, 0].item(), a[0, 1].item()], abs=1e-6)
    # Masking e_3 (padding) leaves it exactly zero weight and renormalises the rest.
    _, a_masked, _ = attention(keys, query, torch.tensor([[True, True, False]]))
    assert a_masked[0, 2].item() == 0.0
    assert a_masked[0, :2].sum().item() == pytest.approx(1.0)


def test_context_is_weighted_sum():
    weights = torch.tensor([[0.25, 0.75]])
    keys = torch.tensor([[[4.0, 0.0], [0.0, 4.0]]])
    assert context(weights, keys).tolist() == [[1.0, 3.0]]


def test_masked_log_softmax_fully_masked_row_is_finite_in_backward():
    scores = torch.randn(2, 4, requires_grad=True)
    mask = torch.tensor([[True, False, True, False], [False, False, False, False]])
    log_p = masked_log_softmax(scores, mask)
    assert torch.all(log_p[0, ~mask[0]] == float("-inf"))
    assert log_p[0, mask[0]].exp().sum().item() == pytest.approx(1.0)
    assert torch.all(log_p[1] == float("-inf"))
    log_p[0, mask[0]].sum().backward()
    assert torch.isfinite(scores.grad).all()


# --- masking and permutations --------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    decoder=st.sampled_from(DECODERS),
    seed=st.integers(0, 10_000),
    min_len=st.integers(1, 8),
    teacher_forcing=st.sampled_from([0.0, 0.5, 1.0]),
    values=st.sampled_from(["int", "float"]),
)
def test_outputs_are_permutations_and_padding_gets_no_probability(decoder, seed, min_len, teacher_forcing, values):
    model = small_model(decoder, seed % 3)
    batch = sort_batch(16, min_len, 8, values, generator=torch.Generator().manual_seed(seed))
    output = model(batch.inputs, batch.lengths, sort_teacher(batch.inputs, "asc"), teacher_forcing,
                   torch.Generator().manual_seed(seed))
    probs = output.log_probs.exp()  # (B, T, N)
    T = probs.shape[1]
    step_valid = torch.arange(T) < batch.lengths.unsqueeze(1)  # (B, T)
    assert torch.all(probs.masked_fill(batch.mask.unsqueeze(1), 0.0) == 0)  # padded positions: exactly 0
    assert torch.all(probs[~step_valid] == 0)  # padded steps: no probability anywhere
    assert torch.allclose(probs[step_valid].sum(dim=-1), torch.ones(int(step_valid.sum())), atol=1e-5)
    # A position chosen at an earlier step gets exactly zero probability afterwards.
    for row in range(16):
        n = batch.lengths[row].item()
        pointers = output.pointers[row]
        assert sorted(pointers[:n].tolist()) == list(range(n))
        assert torch.all(pointers[n:] == -1)
        for step in range(1, n):
            assert torch.all(probs[row, step, pointers[:step]] == 0)
    beam, _ = beam_search(model, batch.inputs, batch.lengths, beam_width=3)
    for row in range(16):
        n = batch.lengths[row].item()
        assert sorted(beam[row, :n].tolist()) == list(range(n)) and torch.all(beam[row, n:] == -1)


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_batched_equals_per_sample(decoder, bidirectional):
    model = small_model(decoder, 1, bidirectional)
    batch = sort_batch(6, 2, 8, "float", generator=torch.Generator().manual_seed(3))
    together = greedy_decode(model, batch.inputs, batch.lengths)
    for row in range(6):
        n = batch.lengths[row].item()
        alone = greedy_decode(model, batch.inputs[row : row + 1, :n], batch.lengths[row : row + 1])
        assert torch.equal(alone.pointers[0], together.pointers[row, :n])
        assert torch.allclose(alone.log_probs[0, :n, :n], together.log_probs[row, :n, :n], atol=1e-5)


@pytest.mark.parametrize("decoder", DECODERS)
def test_beam_width_one_is_greedy(decoder):
    model = small_model(decoder, 2)
    batch = sort_batch(32, 3, 8, "float", generator=torch.Generator().manual_seed(5))
    greedy = greedy_decode(model, batch.inputs, batch.lengths)
    beam, log_p = beam_search(model, batch.inputs, batch.lengths, beam_width=1)
    assert torch.equal(beam, greedy.pointers)
    step_valid = greedy.pointers >= 0
    greedy_log_p = greedy.log_probs.gather(2, greedy.pointers.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(log_p, torch.where(step_valid, greedy_log_p, 0.0).sum(dim=1), atol=1e-5)


def permutation_log_prob(model: PointerNetwork, inputs: torch.Tensor, permutation: list[int]) -> float:
    """log p of one whole output permutation, stepping the decoder by hand (one sample)."""
    lengths = torch.tensor([inputs.shape[1]])
    encoded = model.encode(inputs, lengths)
    keys = model.attention.project_keys(encoded.states) if model.decoder != "seq2seq" else None
    previous, state = model.start.expand(1, -1), encoded.initial
    chosen = torch.zeros(1, inputs.shape[1], dtype=torch.bool)
    total = 0.0
    for position in permutation:
        log_probs, _, state = model.step(encoded, keys, previous, state, encoded.mask & ~chosen)
        total += log_probs[0, position].item()
        chosen[0, position] = True
        previous = encoded.embedded[:, position]
    return total


@torch.no_grad()
def test_full_width_beam_finds_the_most_likely_permutation():
    model = small_model("pointer", 4)
    inputs = torch.tensor([[0.3, 0.9, 0.1, 0.5]])
    scores = {p: permutation_log_prob(model, inputs, list(p)) for p in itertools.permutations(range(4))}
    best = max(scores, key=scores.get)
    pointers, log_p = beam_search(model, inputs, torch.tensor([4]), beam_width=24)
    assert tuple(pointers[0].tolist()) == best
    assert log_p.item() == pytest.approx(scores[best], abs=1e-5)


def test_seq2seq_baselines_cannot_point_past_their_vocabulary():
    model = small_model("seq2seq")
    with pytest.raises(ValueError, match="max_positions=8"):
        greedy_decode(model, torch.zeros(1, 9), torch.tensor([9]))
    # The pointer has no vocabulary: any width works.
    pointer = small_model("pointer")
    assert greedy_decode(pointer, torch.rand(1, 20), torch.tensor([20])).pointers.shape == (1, 20)


# --- the decoders as their papers write them -----------------------------------------------------


@torch.no_grad()
def test_bahdanau_scores_with_the_previous_state_and_feeds_the_context_into_the_update():
    model = small_model("bahdanau", 5)
    inputs = torch.tensor([[0.3, 0.9, 0.1, 0.5]])
    encoded = model.encode(inputs, torch.tensor([4]))
    s_prev = encoded.initial  # s_0
    y_prev = model.start.expand(1, -1)  # E y_0
    keys = model.attention.project_keys(encoded.states)
    log_probs, alpha, (s_i, _) = model.step(encoded, keys, y_prev, s_prev, encoded.mask)
    # e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j), by hand from the weights (appendix A.1.2).
    U_a, W_a, v_a = model.attention.W1.weight, model.attention.W2.weight, model.attention.v.weight[0]
    h = encoded.states[0]  # (4, E)
    e = torch.stack([v_a @ torch.tanh(W_a @ s_prev[0][0] + U_a @ h[j]) for j in range(4)])
    assert torch.allclose(alpha[0], torch.softmax(e, dim=0), atol=1e-6)  # eq. 6
    c = (alpha[0].unsqueeze(1) * h).sum(dim=0)  # eq. 5
    # s_i = f(s_{i-1}, y_{i-1}, c_i): the LSTM cell reads [y_{i-1}; c_i].
    expected_s, _ = model.cell(torch.cat([y_prev[0], c]).unsqueeze(0), s_prev)
    assert torch.allclose(s_i, expected_s, atol=1e-6)
    # p(y_i | ...) = g(y_{i-1}, s_i, c_i), eq. 4: softmax of a linear readout of the three.
    logits = model.out(torch.cat([y_prev[0], s_i[0], c]))[:4]
    assert torch.allclose(log_probs[0], torch.log_softmax(logits, dim=0), atol=1e-6)


def first_decoder_step(decoder: str, seed: int):
    """A small model's first decoder step on one array of three values: the model, its encoding, the
    projected keys, the decoder's first input, and what ``step`` returns."""
    model = small_model(decoder, seed)
    encoded = model.encode(torch.tensor([[0.3, 0.9, 0.1]]), torch.tensor([3]))
    keys = model.attention.project_keys(encoded.states)
    y_prev = model.start.expand(1, -1)
    return model, encoded, keys, y_prev, model.step(encoded, keys, y_prev, encoded.initial, encoded.mask)


@torch.no_grad()
def test_luong_variant_scores_with_the_new_state_and_reads_out_from_it():
    model, encoded, keys, y_prev, (log_probs, weights, (d_i, _)) = first_decoder_step("luong", 6)
    expected_d, _ = model.cell(y_prev, encoded.initial)  # the context never enters the update
    assert torch.allclose(d_i, expected_d, atol=1e-6)
    assert torch.allclose(weights, torch.softmax(model.attention.scores(keys, d_i), dim=-1), atol=1e-6)
    c = context(weights, encoded.states)
    assert torch.allclose(log_probs, torch.log_softmax(model.out(torch.cat([d_i, c], dim=-1))[:, :3], dim=-1), atol=1e-6)


@torch.no_grad()
def test_the_pointer_output_is_the_attention_softmax():
    model, encoded, keys, y_prev, (log_probs, attention, (d_i, _)) = first_decoder_step("pointer", 7)
    u = model.attention.scores(keys, d_i)  # u^i_j = v^T tanh(W_1 e_j + W_2 d_i), Vinyals eq. 3
    assert torch.allclose(log_probs, torch.log_softmax(u, dim=-1), atol=1e-6)
    assert torch.allclose(attention, log_probs.exp())


# --- the end pointer: outputs of variable length --------------------------------------------------


def end_model(decoder: str = "pointer", seed: int = 0) -> PointerNetwork:
    torch.manual_seed(seed)
    return PointerNetwork(decoder, hidden=16, attention_dim=8, max_positions=8, input_size=2, end_pointer=True).eval()


def test_pointer_step_is_the_pointer_networks_decoder_step():
    """pointer_step on the scores a PointerNetwork's decoder step computes gives that step's log p(C_i = j),
    and its choice is the position greedy decoding emits."""
    net = small_model("pointer")
    inputs, lengths = torch.tensor([[0.3, 0.9, 0.1, 0.5, 0.7], [0.2, 0.4, 0.6, 0.0, 0.0]]), torch.tensor([5, 3])
    with torch.no_grad():
        decoded = net(inputs, lengths)
        encoded = net.encode(inputs, lengths)
        keys = net.attention.project_keys(encoded.states)
        log_p, _, (d_1, _) = net.step(encoded, keys, net.start.expand(2, -1), encoded.initial, decoded.available[:, 0])
        step = pointer_step(net.attention.scores(keys, d_1), decoded.available[:, 0])
    assert torch.allclose(step.log_probs, log_p) and torch.equal(step.log_probs, decoded.log_probs[:, 0])
    assert torch.equal(step.choice, decoded.pointers[:, 0])
    finished = pointer_step(torch.zeros(1, 3), torch.zeros(1, 3, dtype=torch.bool))
    assert finished.choice.tolist() == [-1] and finished.probs.tolist() == [[0.0, 0.0, 0.0]]


@settings(max_examples=20, deadline=None)
@given(decoder=st.sampled_from(DECODERS), seed=st.integers(0, 10_000), min_len=st.integers(1, 8))
def test_end_pointer_outputs_end_once_and_never_repeat_a_position(decoder, seed, min_len):
    model = end_model(decoder, seed % 3)
    generator = torch.Generator().manual_seed(seed)
    lengths = torch.randint(min_len, 9, (12,), generator=generator)
    inputs = torch.rand(12, 8, 2, generator=generator)
    output = greedy_decode(model, inputs, lengths)
    B, T, width = output.log_probs.shape
    assert width == 9 and T <= 9
    for row in range(B):
        real = [j for j in output.pointers[row].tolist() if j >= 0]
        assert real[-1] == 8 and real.count(8) == 1  # ends exactly once, at its last real step
        assert len(set(real)) == len(real) and all(j < lengths[row] for j in real[:-1])
        assert torch.all(output.pointers[row, len(real):] == -1)
    beam, _ = beam_search(model, inputs, lengths, beam_width=3)
    for row in range(B):
        real = [j for j in beam[row].tolist() if j >= 0]
        assert real[-1] == 8 and real.count(8) == 1
        assert len(set(real)) == len(real) and all(j < lengths[row] for j in real[:-1])
        assert torch.all(beam[row, len(real):] == -1)


def sequence_log_prob(model: PointerNetwork, inputs: torch.Tensor, lengths: torch.Tensor,
                      pointers: torch.Tensor) -> torch.Tensor:
    """``log p`` of whole outputs ``pointers (B, T)`` (-1 after the end), the decoder fed each output
    (teacher forcing): ``(B,)``, the sum over real steps of ``log p(C_i = pointers[:, i])``."""
    def teacher(available):  # the first wanted position still available
        open_ = available.gather(1, pointers.clamp(min=0)) & (pointers >= 0)
        return pointers.gather(1, open_.int().argmax(dim=1, keepdim=True)).squeeze(1)

    output = model(inputs, lengths, teacher, teacher_forcing=1.0)
    assert torch.equal(output.pointers, pointers[:, : output.pointers.shape[1]])
    step_log_p = output.log_probs.gather(2, output.pointers.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (B, T)
    return torch.where(output.pointers >= 0, step_log_p, 0.0).sum(dim=1)


@pytest.mark.parametrize("decoder", DECODERS)
@torch.no_grad()
def test_end_pointer_beam_of_1_is_greedy_and_a_beam_scores_what_it_returns(decoder):
    model = end_model(decoder, 2)
    generator = torch.Generator().manual_seed(5)
    inputs, lengths = torch.rand(64, 8, 2, generator=generator), torch.randint(3, 9, (64,), generator=generator)
    greedy = greedy_decode(model, inputs, lengths)
    greedy_log_p = sequence_log_prob(model, inputs, lengths, greedy.pointers)
    one, one_log_p = beam_search(model, inputs, lengths, beam_width=1)
    assert torch.equal(one, greedy.pointers) and torch.allclose(one_log_p, greedy_log_p, atol=1e-5)
    beam, log_p = beam_search(model, inputs, lengths, beam_width=3)
    assert torch.allclose(log_p, sequence_log_prob(model, inputs, lengths, beam), atol=1e-5)  # its own score
    # Not a theorem (a beam can drop the greedy prefix and end below it), but on this batch of every
    # decoder no beam of 3 ends below greedy decoding, and some end above.
    assert bool((log_p >= greedy_log_p - 1e-5).all()) and bool((log_p > greedy_log_p + 1e-3).any())


@torch.no_grad()
def test_full_width_beam_finds_the_most_likely_output_with_an_end():
    model = end_model("pointer", 3)
    inputs, lengths = torch.tensor([[[0.1, 0.2], [0.8, 0.3], [0.4, 0.9]]]), torch.tensor([3])
    # Every output: an ordered subset of the 3 points, then the end (index 3): 1 + 3 + 6 + 6 = 16.
    outputs = [list(p) + [3] for k in range(4) for p in itertools.permutations(range(3), k)]
    padded = torch.tensor([o + [-1] * (4 - len(o)) for o in outputs])  # (16, 4)
    scores = sequence_log_prob(model, inputs.expand(16, 3, 2), lengths.expand(16), padded)
    best = int(scores.argmax())
    pointers, log_p = beam_search(model, inputs, lengths, beam_width=16)
    assert [j for j in pointers[0].tolist() if j >= 0] == outputs[best]
    assert log_p.item() == pytest.approx(scores[best].item(), abs=1e-5)


def test_end_pointer_follows_the_teacher():
    model = end_model()
    inputs = torch.rand(2, 5, 2, generator=torch.Generator().manual_seed(0))
    lengths = torch.tensor([5, 4])
    wanted = torch.tensor([[3, 1, 5, -1], [0, 2, 1, 5]])

    def teacher(available):  # the first wanted position still available
        open_ = available.gather(1, wanted.clamp(min=0)) & (wanted >= 0)
        return wanted.gather(1, open_.int().argmax(dim=1, keepdim=True)).squeeze(1)

    output = model(inputs, lengths, teacher, teacher_forcing=1.0)
    assert output.pointers.tolist() == wanted.tolist()


# --- loss and metrics ----------------------------------------------------------------------------


def test_loss_counts_every_copy_of_a_duplicate():
    batch = sort_batch_from_arrays([[2.0, 1.0, 1.0]])
    model = small_model()
    output = model(batch.inputs, batch.lengths, sort_teacher(batch.inputs), teacher_forcing=1.0)
    # Step 0: the right value 1 sits at positions 1 and 2, so -log(p_1 + p_2).
    p = output.log_probs[0, 0].exp()
    step0 = -math.log(p[1].item() + p[2].item())
    # Step 1 (after position 1 was fed): only position 2; step 2: only position 0.
    step1 = -output.log_probs[0, 1, 2].item()
    step2 = -output.log_probs[0, 2, 0].item()
    assert sort_loss(output, batch.inputs, batch.lengths).item() == pytest.approx((step0 + step1 + step2) / 3, abs=1e-5)


def test_sort_loss_on_fixed_numbers():
    # One array x = (0.2, 0.7), ascending; log p given by hand at two decoder steps.
    inputs, lengths = torch.tensor([[0.2, 0.7]]), torch.tensor([2])
    log_probs = torch.tensor([[[math.log(0.8), math.log(0.2)], [float("-inf"), 0.0]]])  # (B=1, T=2, N=2)
    available = torch.tensor([[[True, True], [False, True]]])
    output = DecoderOutput(log_probs, torch.tensor([[0, 1]]), log_probs.exp(), available)
    # -(log 0.8 + log 1) / 2 = 0.1116
    assert sort_loss(output, inputs, lengths).item() == pytest.approx(-math.log(0.8) / 2, abs=1e-6)
    assert sort_loss(output, inputs, lengths).item() == pytest.approx(0.1116, abs=1e-4)


def test_metrics_by_hand():
    batch = sort_batch_from_arrays([[3, 1, 2], [5, 5, 4], [9, 8]])
    pointers = torch.tensor([
        [1, 2, 0],  # 1 2 3: right
        [2, 1, 0],  # 4 5 5: right (either copy of 5 may come first)
        [0, 1, -1],  # 9 8: both places wrong
    ])
    metrics = sort_metrics(pointers, batch)
    assert metrics.exact_match == pytest.approx(2 / 3)
    assert metrics.element_accuracy == pytest.approx(6 / 8)


# --- training ------------------------------------------------------------------------------------


def test_pointer_learns_small_integer_sorting():
    result = train_sort(hidden=32, attention_dim=32, batch_size=64, min_len=3, max_len=6, target_accuracy=0.95,
                        max_updates=150, max_seconds=20, eval_every=10, eval_size=256, test_size=512,
                        seed=0, device="cpu", progress=False)
    # Chance exact match of a random permutation is at most 1/3! = 0.17 here, far less for longer arrays.
    assert result.test.exact_match >= 0.8, result.test
    assert result.history.update and result.history.metrics["exact_match"][-1] >= 0.8
    by_length = exact_match_by_length(result.model, range(3, 13), samples_per_length=64, seed=0, device="cpu")
    assert set(by_length) == set(range(3, 13)) and all(0.0 <= v <= 1.0 for v in by_length.values())
    beam = evaluate_sort(result.model, sort_batch(256, 3, 6, generator=torch.Generator().manual_seed(9)), beam_width=3)
    assert beam.exact_match >= 0.8


def test_training_is_seeded():
    kwargs = dict(hidden=8, attention_dim=8, batch_size=16, max_updates=3, target_accuracy=None, eval_every=10,
                  eval_size=32, test_size=32, device="cpu", progress=False)
    a, b = train_sort(seed=1, **kwargs), train_sort(seed=1, **kwargs)
    for pa, pb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(pa, pb)
    assert a.history.loss == b.history.loss


def test_ctrl_c_returns_the_model_trained_so_far(monkeypatch):
    import ponderlib.tasks.sorting as sorting_module

    calls = {"n": 0}
    real_loss = sorting_module.sort_loss

    def interrupting_loss(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real_loss(*args, **kwargs)

    monkeypatch.setattr(sorting_module, "sort_loss", interrupting_loss)
    result = train_sort(hidden=8, attention_dim=8, batch_size=16, max_updates=100, eval_every=50, eval_size=32,
                        test_size=32, device="cpu", progress=False)
    assert result.fit.interrupted and result.fit.updates == 3
    assert result.history.update == [3] and 0.0 <= result.test.exact_match <= 1.0


def test_time_budget_stops_training():
    result = train_sort(hidden=8, attention_dim=8, batch_size=16, target_accuracy=1.0, max_seconds=0.5, eval_every=5,
                        eval_size=32, test_size=32, values="float", device="cpu", progress=False)
    assert result.fit.seconds < 5 and not result.fit.interrupted
    assert result.summary()["reached_target"] == (result.summary()["seconds_to_target"] is not None)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"min_len": 0}, "min_len must be an integer in [1, 10000], got 0"),
        ({"min_len": 7, "max_len": 6}, "max_len must be an integer in [min_len = 7, 10000], got 6"),
        ({"order": "random"}, "order must be one of 'asc', 'desc'; got 'random'"),
        ({"values": "str"}, "values must be one of 'int', 'float'; got 'str'"),
        ({"decoder": "transformer"}, "decoder must be one of 'pointer', 'seq2seq', 'bahdanau', 'luong'"),
        ({"teacher_forcing": 1.5}, "teacher_forcing must be in [0, 1], got 1.5"),
        ({"threads": 0}, "threads must be an integer in [1, 1024], got 0"),
        ({"target_accuracy": None, "max_updates": None, "max_seconds": None}, "training never stops"),
    ],
)
def test_bad_config(overrides, message):
    with pytest.raises(ValueError) as info:
        SortConfig(**overrides).validate()
    assert message in str(info.value)


# --- CLI -----------------------------------------------------------------------------------------


def run_sorting(*args: str):
    return run_cli("train", "sorting", *args)


def test_cli_json():
    proc = run_sorting("--values", "float", "--order", "desc", "--min-len", "3", "--max-len", "4", "--hidden", "8",
                   "--max-updates", "5", "--seed", "2", "--threads", "1", "--test-max-len", "8", "--test-size", "16", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["task"] == "sorting" and summary["values"] == "float" and summary["order"] == "desc"
    assert summary["seed"] == 2 and summary["device"] == "cpu" and summary["updates"] <= 5
    assert summary["reached_target"] == (summary["seconds_to_target"] is not None)
    assert 0.0 <= summary["exact_match"] <= 1.0 and 0.0 <= summary["element_accuracy"] <= 1.0
    assert list(summary["exact_match_by_length"]) == [str(n) for n in range(3, 9)]


def test_test_max_len_below_max_len_is_refused():
    with pytest.raises(ValueError, match="test_max_len must be"):
        SortConfig(min_len=3, max_len=6, test_max_len=5).validate()
    assert run_sorting("--max-len", "6", "--test-max-len", "5").returncode == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--min-len", "0"], "min_len must be an integer in [1, 10000], got 0"),
        (["--min-len", "9", "--max-len", "4"], "max_len must be an integer in [min_len = 9, 10000], got 4"),
        (["--order", "sideways"], "invalid choice: 'sideways'"),
        (["--values", "str"], "invalid choice: 'str'"),
    ],
)
def test_cli_bad_arguments_one_line(args, message):
    proc = run_sorting("--json", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
