"""The papers' sweeps at their scale or near it, the chapters' runs at convergence, and the ablations
(:data:`PAPER_PRESETS`, :data:`THINKING_TIME_PRESETS`): the evidence a reproduction report reads besides
the lessons' live settings (:mod:`ponderlib.sweep.live_presets`), with the papers' own settings they are
built from.
"""

from __future__ import annotations

from dataclasses import replace

from ponderlib.experiments.settings import (
    CHAPTER_2_PARITY,
    CHAPTER_3_CONVERGED_UPDATES,
    CHAPTER_3_DECODERS,
    CHAPTER_3_HULL_256,
    CHAPTER_3_LR_DECAY,
    CHAPTER_4_CHAINS,
    CHAPTER_4_CONVERGED_UPDATES,
    CHAPTER_4_MODELS,
    LIVE_SEEDS,
)
from ponderlib.mechanisms.losses import step_price
from ponderlib.sweep.spec import Preset

GRAVES_TAUS = sorted({round(i * 10.0**-j, 12) for i in range(1, 11) for j in range(1, 5)})
"""Graves' time penalties for parity (sec. 3: "tau = i x 10^-j for all integers i in 1..10 and j in 1..4"):
37 distinct values, 1e-4 to 1 (i = 10 repeats i = 1 one decade up, except 10 x 10^-1 = 1)."""

PAPER_PARITY = {"n_elems": 64, "hidden": 128, "batch_size": 128, "target_accuracy": None, "eval_every": 1000}
"""What the three parity presets share: 64-element vectors, 128 units, 128 vectors per training
update, the whole budget trained (no early stop), held-out accuracy every 1000 training updates."""

BANINO_PARITY = {**PAPER_PARITY, "lr": 3e-4, "beta": 0.01, "max_ponder_steps": 20}
"""What Banino et al.'s two parity sweeps add: Adam at lr 3e-4, beta 0.01, at most 20 ponder steps."""

GRAVES_FIG_6_TAUS = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]
"""Seven of Graves' time penalties, a half-decade apart over his whole range (1e-4 to 1e-1): Figs. 4-6 redrawn."""

GRAVES_16 = {
    "method": "act", "n_elems": 16, "hidden": 128, "cell": "tanh", "batch_size": 128, "lr": 3e-3, "eps": 0.01,
    "halting_bias_init": 1.0, "max_ponder_steps": 100, "target_accuracy": None, "eval_every": 2500, "eval_size": 2048,
    "difficulty_eval_size": 512,
}
"""Graves' parity network at 16 elements: his cell (a simple RNN of 128 tanh units), batch 128, eps 0.01,
b_h = 1, at most M = 100 ponder steps; Adam at 3e-3 instead of his 1e-4 (a million iterations on 16
threads are out of a CPU's reach: at 3e-3 a probe, tau 1e-3, seed 0, was at 0.996 held-out accuracy
after 25,000 updates and 1.0 from 37,500 on); the whole budget trained, accuracy every 2,500 updates."""

GRAVES_PAPER = {**GRAVES_16, "n_elems": 64, "lr": 1e-4, "eval_every": 10_000}
"""Graves' parity setting as his sec. 3 and 3.1 give it: 64-element vectors, a simple RNN of 128 tanh units,
batch 128, Adam at 1e-4, eps 0.01, b_h = 1, M = 100 (accuracy every 10,000 updates)."""

GRAVES_32 = {**GRAVES_16, "n_elems": 32}
"""Graves' parity network at 32 elements, the largest size at which a probe learnt within 200,000 updates
(issue 38; seed 0, tau 1e-3, accuracy on 2,048 held-out vectors). At 32 elements, Adam at 3e-3 (the learning
rate of ``GRAVES_16``): 0.97 at 75,000 updates, 1.0 from 95,000 on. At 48, 3e-3 rose from 0.52 at 50,000
updates to 0.71 at 120,000 and stayed between 0.71 and 0.75 up to 200,000 (1e-3: 0.48 at 110,000). At 64, no
probe rose above 0.53: 3e-4 and 1e-3 in 115,000 and 110,000 updates, 3e-3 in 55,000. Everything else as
``GRAVES_16``."""

EXTRAPOLATION_16 = {
    "method": "pondernet", "n_elems": 16, "min_nonzero": 1, "max_nonzero": 8, "hidden": 128, "cell": "gru",
    "batch_size": 128, "lr": 1e-3, "beta": 0.01, "lambda_p": 0.2, "max_ponder_steps": 20, "target_accuracy": None,
    "eval_every": 2000, "eval_size": 1024, "difficulty_eval_size": 512,
}
"""PonderNet's extrapolation at 16 elements (Banino et al.: 96, trained on 1 to 48 non-zero entries): trained
on 1 to 8 non-zero entries, tested on 9 to 16; a GRU cell of 128 units, batch 128, beta 0.01, lambda_p 0.2,
at most 20 ponder steps; Adam at 1e-3 instead of the paper's 3e-4 (a probe, seed 0: at 3e-4 held-out
accuracy was 0.58 after 6,000 updates, at 1e-3 0.997 after 5,000); the whole budget trained, held-out
accuracy in and beyond the trained range every 2,000 updates."""

PRICED_TAU = round(step_price(EXTRAPOLATION_16["lambda_p"], EXTRAPOLATION_16["beta"]), 5)
"""ACT's time penalty priced like PonderNet's ponder step in :data:`EXTRAPOLATION_16` (beta 0.01, lambda_p
0.2): the KL to a geometric prior charges ``beta * -log(1 - lambda_p)`` = 0.00223 nats per expected step
(:func:`~ponderlib.mechanisms.losses.step_price`)."""

PAPER_PRESETS: dict[str, Preset] = {
    "ut-chains-depth": Preset(
        description=(
            "Chapter 4's evidence at convergence (2000 training updates), 10 seeds: ACT, PonderNet-style "
            "halting and a fixed depth of 3 on shuffled assignment chains (depth independent of position), "
            "the halting unit's bias starting at 1 (Graves) or -3 (a deep start); the distribution of ponder "
            "steps at every required depth, and PonderNet's correlation on executed and on expected steps."
        ),
        task="chains",
        grid=CHAPTER_4_MODELS,
        fixed=CHAPTER_4_CHAINS,
        seeds=list(range(10)),
        max_updates=CHAPTER_4_CONVERGED_UPDATES,
    ),
    "ut-chains-topological": Preset(
        description=(
            "Chapter 4's confound at convergence (2000 training updates), 10 seeds: ACT and PonderNet-style "
            "halting on assignment chains written in topological order (a position's depth at most its "
            "index), for the correlation of ponder steps with depth within each position."
        ),
        task="chains",
        grid={"method": ["act", "pondernet"]},
        fixed={**CHAPTER_4_CHAINS, "order": "topological"},
        seeds=list(range(10)),
        max_updates=CHAPTER_4_CONVERGED_UPDATES,
    ),
    "ut-chains-fixed-depths": Preset(
        description=(
            "Chapter 4's compute ablation at convergence (2000 training updates), 10 seeds: the fixed-depth "
            "Universal Transformer applying its block 1, 2, 4 or 6 times on shuffled assignment chains "
            "(3 times: ut-chains-depth), for accuracy at every required depth against compute per position."
        ),
        task="chains",
        grid={"fixed_depth": [1, 2, 4, 6]},
        fixed={**{k: v for k, v in CHAPTER_4_CHAINS.items() if k != "fixed_depth"}, "method": "fixed"},
        seeds=list(range(10)),
        max_updates=CHAPTER_4_CONVERGED_UPDATES,
    ),
    "graves-parity-tau": Preset(
        description=(
            "Graves 2016, sec. 3 and 3.1 (figs. 4-6), at the paper's own size: ACT with his network (a simple "
            "RNN of 128 tanh units, a sigmoid output) on 64-element parity, 1 to 64 non-zero entries, tau = i x "
            "10^-j for i = 1..10, j = 1..4 (37 values), 20 networks per tau, batch 128, Adam at lr 1e-4, eps "
            "0.01, b_h = 1, at most M = 100 ponder steps, 1,000,000 training updates (his iterations per "
            "thread). Where it differs: one synchronous Adam instead of 16 asynchronous Hogwild threads (a "
            "run sees 1/16 of his gradient steps), and gradients clipped at norm 1 (the engine's; not in the "
            "paper). About 630 CPU-hours at two ponder steps an update (more where it ponders longer): for a Ray cluster."
        ),
        task="parity",
        grid={"tau": GRAVES_TAUS},
        fixed=GRAVES_PAPER,
        seeds=list(range(20)),
        max_updates=1_000_000,
    ),
    "graves-parity-16": Preset(
        description=(
            "Graves 2016, figs. 4-6, at 16 elements: ACT with his cell (a simple RNN of 128 tanh units) on "
            "16-element parity, 1 to 16 non-zero entries, tau = 1e-4 to 1e-1 a half-decade apart, 5 seeds, "
            "batch 128, Adam at 3e-3, b_h = 1, M = 100, 60,000 training updates. Each run reports error and "
            "ponder time over all difficulties and at each of 1..16 non-zero entries, their correlation, and "
            "the learning curve."
        ),
        task="parity",
        grid={"tau": GRAVES_FIG_6_TAUS},
        fixed=GRAVES_16,
        seeds=list(range(5)),
        max_updates=60_000,
    ),
    "graves-parity-16-gru": Preset(
        description=(
            "graves-parity-16 with the book's GRU cell of 128 units in place of Graves' tanh RNN, at three of "
            "its time penalties (1e-4, 1e-3, 1e-2), 5 seeds, 60,000 training updates: what the cell changes."
        ),
        task="parity",
        grid={"tau": [1e-4, 1e-3, 1e-2]},
        fixed={**GRAVES_16, "cell": "gru"},
        seeds=list(range(5)),
        max_updates=60_000,
    ),
    "graves-parity-16-deep-start": Preset(
        description=(
            "graves-parity-16 at the time penalties where most of its runs stopped short of the task "
            "(1e-3, 3e-3, 1e-2), with the halting unit's initial bias b_h = -3 in place of Graves' 1: every "
            "vector starts with many ponder steps instead of about two. An ablation: does the time penalty, "
            "acting before the task is learnt, cause the failures?"
        ),
        task="parity",
        grid={"tau": [1e-3, 3e-3, 1e-2]},
        fixed={**GRAVES_16, "halting_bias_init": -3.0},
        seeds=list(range(5)),
        max_updates=60_000,
    ),
    "graves-parity-16-long": Preset(
        description=(
            "graves-parity-16 at two of the time penalties where most of its runs stopped short of the task "
            "(1e-3, where accuracy had levelled off, and 1e-2, where it was still rising at 60,000 updates), "
            "trained for 150,000 updates, 5 seeds. An ablation: is the budget what stands in the way?"
        ),
        task="parity",
        grid={"tau": [1e-3, 1e-2]},
        fixed=GRAVES_16,
        seeds=list(range(5)),
        max_updates=150_000,
    ),
    "graves-parity-16-no-act": Preset(
        description=(
            "graves-parity-16's network without ACT, as Graves compares it (sec. 3.1: without ACT 'the network "
            "reduced to a feedforward network with a single hidden layer'): one ponder step per vector "
            "(M = 1, so p_1 = 1 and the halting unit does nothing) and no time penalty, 5 seeds, 60,000 "
            "training updates; error overall and at each of 1..16 non-zero entries."
        ),
        task="parity",
        grid={"max_ponder_steps": [1]},
        fixed={**{k: v for k, v in GRAVES_16.items() if k != "max_ponder_steps"}, "tau": 0.0},
        seeds=list(range(5)),
        max_updates=60_000,
    ),
    "graves-parity-32": Preset(
        description=(
            "Graves 2016, figs. 4-6, at 32 elements: graves-parity-16's network and time penalties (tau = 1e-4 "
            "to 1e-1 a half-decade apart) on 32-element parity, 1 to 32 non-zero entries, 5 seeds, Adam at 3e-3, "
            "200,000 training updates; error and ponder time over all difficulties and at each of 1..32."
        ),
        task="parity",
        grid={"tau": GRAVES_FIG_6_TAUS},
        fixed=GRAVES_32,
        seeds=list(range(5)),
        max_updates=200_000,
    ),
    "graves-parity-32-no-act": Preset(
        description=(
            "graves-parity-32's network without ACT (one ponder step per vector, M = 1, no time penalty), "
            "5 seeds, 200,000 training updates: Graves' baseline at 32 elements."
        ),
        task="parity",
        grid={"max_ponder_steps": [1]},
        fixed={**{k: v for k, v in GRAVES_32.items() if k != "max_ponder_steps"}, "tau": 0.0},
        seeds=list(range(5)),
        max_updates=200_000,
    ),
    "pondernet-extrapolation-16": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (extrapolation), at 16 elements: PonderNet with the paper's and the "
            "reverse KL, trained on 1 to 8 non-zero entries and tested on 9 to 16, the target the parity of the "
            "+1 entries (the papers') or of all non-zero entries; a GRU cell of 128 units, lambda_p 0.2, beta "
            "0.01, at most 20 ponder steps, batch 128, Adam at 1e-3, 40,000 training updates, 5 seeds. Each run "
            "reports interpolation and extrapolation accuracy, ponder steps at every difficulty, and both "
            "accuracies every 2,000 updates."
        ),
        task="parity",
        grid={"kl_direction": ["paper", "reverse"], "label": ["ones", "nonzero"]},
        fixed=EXTRAPOLATION_16,
        seeds=list(range(5)),
        max_updates=40_000,
    ),
    "pondernet-extrapolation-16-tanh": Preset(
        description=(
            "pondernet-extrapolation-16 with the paper's cell, a simple RNN of 128 tanh units, in place of the "
            "GRU: both KLs, the papers' label, 5 seeds, 40,000 training updates."
        ),
        task="parity",
        grid={"kl_direction": ["paper", "reverse"]},
        fixed={**EXTRAPOLATION_16, "cell": "tanh", "label": "ones"},
        seeds=list(range(5)),
        max_updates=40_000,
    ),
    "act-extrapolation-16": Preset(
        description=(
            "pondernet-extrapolation-16 with ACT in place of PonderNet (b_h = 1, eps 0.01, at most 20 ponder "
            "steps), the book's GRU and the paper's tanh cell, at tau = 0, 2e-4 and 2e-2 (the ends of the "
            "paper's grid, [2e-4, 2e-2] and 0) and at 0.00223, the price of PonderNet's ponder step there "
            "(beta * -log(1 - lambda_p)); the papers' label, 5 seeds, 40,000 training updates."
        ),
        task="parity",
        grid={"cell": ["gru", "tanh"], "tau": [0.0, 2e-4, PRICED_TAU, 2e-2]},
        fixed={**{k: v for k, v in EXTRAPOLATION_16.items() if k not in ("beta", "lambda_p", "cell")}, "method": "act"},
        seeds=list(range(5)),
        max_updates=40_000,
    ),
    "pondernet-parity-no-kl-live": Preset(
        description=(
            "pondernet-parity-live's PonderNet at beta = 0 (no KL at all: the reconstruction loss alone), 20 "
            "seeds, 2,000 training updates. An ablation: with the paper's KL, E[n] fell with difficulty in every "
            "seed; does it fall without any KL?"
        ),
        task="parity",
        grid={"beta": [0.0]},
        fixed={**{k: v for k, v in CHAPTER_2_PARITY.items() if k != "beta"}, "method": "pondernet"},
        seeds=LIVE_SEEDS,
        max_updates=2_000,
    ),
    "pondernet-parity-median-live": Preset(
        description=(
            "pondernet-parity-live's PonderNet (both KLs) halting at inference by the median of p_n instead of "
            "a sample, 20 seeds, 2,000 training updates: the same training as there (the halting rule only "
            "changes the scoring), so on one machine the same networks; run on another CPU, other trajectories "
            "of the same setting. For exercise 3 of chapter 2."
        ),
        task="parity",
        grid={"kl_direction": ["paper", "reverse"]},
        fixed={**CHAPTER_2_PARITY, "method": "pondernet", "halting_rule": "median"},
        seeds=LIVE_SEEDS,
        max_updates=2_000,
    ),
    "pondernet-lambda-16": Preset(
        description=(
            "Banino et al. 2021, fig. 2 (robustness to lambda_p), at 16 elements: pondernet-extrapolation-16's "
            "PonderNet (the paper's KL, the papers' label) at ten values of lambda_p from 0.05 to 0.9, 3 seeds, "
            "20,000 training updates; accuracy and the learned mean ponder steps against the prior's mean."
        ),
        task="parity",
        grid={"lambda_p": [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
        fixed={**{k: v for k, v in EXTRAPOLATION_16.items() if k != "lambda_p"}, "kl_direction": "paper"},
        seeds=list(range(3)),
        max_updates=20_000,
    ),
    "pondernet-lambda-16-unroll": Preset(
        description=(
            "Issue 37, the thinking-time gap, one setting at a time: pondernet-lambda-16 at lambda_p = 0.1 (the "
            "paper's 'roughly 3 steps'), with the book's N (unroll to 99.9 % halted, the prior cut at 20 steps) "
            "or the paper's (sec. 2.3: each sample's N the smallest n with cumulative p > 1 - 0.05, p and the "
            "prior cut there), and either truncation, 5 seeds, 20,000 training updates; E[n] and sampled steps."
        ),
        task="parity",
        grid={"unroll": ["cap", "mass"], "prior_truncation": ["normalised", "last"]},
        fixed={**{k: v for k, v in EXTRAPOLATION_16.items() if k != "lambda_p"}, "kl_direction": "paper", "lambda_p": 0.1},
        seeds=list(range(5)),
        max_updates=20_000,
    ),
    "pondernet-bayes-24": Preset(
        description=(
            "Issue 37, extrapolation beside a public reproduction: thesofakillers/ponder-bayes's setting (their "
            "report: 24 elements, trained on 1 to 12 non-zero entries and tested on 13 to 24, a GRU of 128, "
            "lambda_p 0.2, beta 0.01, Adam at 3e-4, gradient norm clipped at 1, batch 128, 80,000 updates, "
            "'the model with the highest validation halted step accuracy'; they report 0.908 +- 0.076 over 5 "
            "seeds). Their validation set in extrapolation is drawn like their test set, so the network kept is "
            "the one most accurate beyond the trained range on 25,600 held-out vectors there, evaluated every "
            "1,000 updates (their epoch of 128,000 samples); it is then tested on 2,048 fresh vectors at each "
            "difficulty. Both labels, 5 seeds. The final network's accuracy beyond the range is the learning "
            "curve's last point."
        ),
        task="parity",
        grid={"label": ["ones", "nonzero"]},
        fixed={
            "method": "pondernet", "n_elems": 24, "min_nonzero": 1, "max_nonzero": 12, "hidden": 128, "cell": "gru",
            "batch_size": 128, "lr": 3e-4, "grad_clip": 1.0, "beta": 0.01, "lambda_p": 0.2, "max_ponder_steps": 20,
            "kl_direction": "paper", "target_accuracy": None, "eval_every": 1000, "eval_size": 25_600,
            "difficulty_eval_size": 2048, "checkpoint": "best-beyond",
        },
        seeds=list(range(5)),
        max_updates=80_000,
    ),
    "pondernet-parity-interpolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (interpolation): PonderNet on 64-element parity, 1 to 64 "
            "non-zero entries in training and test, over the prior's lambda_p = 0.1..0.9, beta 0.01, "
            "at most 20 ponder steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units."
        ),
        task="parity",
        grid={"lambda_p": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
        fixed={**BANINO_PARITY, "method": "pondernet"},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
    "pondernet-parity-extrapolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (extrapolation): ACT (tau 1e-3) and PonderNet (lambda_p 0.1, "
            "beta 0.01) on 96-element parity trained on 1 to 48 non-zero entries, at most 20 ponder "
            "steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units. Each run reports "
            "interpolation_accuracy (1 to 48 entries), extrapolation_accuracy (49 to 96) and accuracy "
            "and ponder steps at every difficulty."
        ),
        task="parity",
        grid={"method": ["act", "pondernet"]},
        fixed={**BANINO_PARITY, "n_elems": 96, "min_nonzero": 1, "max_nonzero": 48, "tau": 1e-3, "lambda_p": 0.1},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
    "pointer-hull-256": Preset(
        description=(
            "Vinyals et al. 2015, Table 1 (convex hulls), near the paper's setting: a pointer network "
            "with an end pointer, an LSTM of 256 units (one of the paper's two widths) and attention of 256, "
            "Adam at 1e-3 decaying by 0.9 every 1,000 updates, trained on 5 to 10 points for 20,000 updates, "
            "3 seeds; tested with a beam of 3 on 5 to 20 points (twice the trained size): exact-sequence and "
            "polygon accuracy, area coverage and invalid outputs at every count, and the held-out learning "
            "curve (greedy). The evidence for chapter 3's hull claims against the paper's rows, where the "
            "live setting (64 units, 300 updates) was still improving."
        ),
        task="convex_hull",
        grid={"hidden": [256]},
        fixed=CHAPTER_3_HULL_256,
        seeds=list(range(3)),
        max_updates=CHAPTER_3_CONVERGED_UPDATES,
    ),
    "pointer-sort-decoders-converged": Preset(
        description=(
            "Chapter 3's decoders at one large equal budget, 5 seeds: seq2seq, seq2seq with Bahdanau's "
            "attention, with Luong-style attention, and the pointer network sort integers 0..9 of length 5 "
            "to 10 (the live comparison's task), 20,000 training updates each, Adam at 1e-2 decaying by 0.9 "
            "every 1,000 updates; exact match on 1,024 arrays and the learning curve every 500 updates. At "
            "the live 200 updates the baselines were still improving, so the comparison measured how fast "
            "each learns; this one measures what each can reach (the paper's order: seq2seq below attention "
            "below the pointer)."
        ),
        task="sorting",
        grid={"decoder": ["seq2seq", "bahdanau", "luong", "pointer"]},
        fixed={**CHAPTER_3_DECODERS, "lr_decay": CHAPTER_3_LR_DECAY, "eval_every": 500},
        seeds=list(range(5)),
        max_updates=CHAPTER_3_CONVERGED_UPDATES,
    ),
}
"""The papers' sweeps, the chapters' runs at convergence and the ablations by name (a set's evidence is
``evidence/NAME.jsonl``)."""

THINKING_TIME_SETTINGS = {
    "cell": ("tanh", "the paper's cell (app. B.1: 'a simple RNN with a single hidden layer containing 128 tanh units')"),
    "lr": (3e-4, "the paper's learning rate (app. B.1: Adam 'with learning rate fixed to 0.0003')"),
    "grad_clip": (1e6, "no gradient clipping (the paper states none; a global norm of 1e6, the largest allowed, "
                       "leaves every update as it is unless a gradient explodes)"),
}
"""Issue 37's thinking-time gap, one ledger setting at a time: field -> (the paper's value, why), each
changed alone from ``pondernet-lambda-16-unroll``'s book setting (unroll ``cap``, the normalised prior)."""

THINKING_TIME_PRESETS: dict[str, Preset] = {}
"""``pondernet-lambda-16-unroll`` with one of :data:`THINKING_TIME_SETTINGS` changed, by name."""

for _field, (_value, _why) in THINKING_TIME_SETTINGS.items():
    THINKING_TIME_PRESETS[f"pondernet-lambda-16-{_field.replace('_', '-')}"] = replace(
        PAPER_PRESETS["pondernet-lambda-16-unroll"],
        description=(
            f"Issue 37, the thinking-time gap, one setting at a time: pondernet-lambda-16-unroll's book setting "
            f"(lambda_p 0.1, unroll cap, the normalised prior) with {_why}; 5 seeds, 20,000 training updates; "
            "E[n] and sampled steps against the book setting's."
        ),
        grid={_field: [_value]},
        fixed={**{k: v for k, v in PAPER_PRESETS["pondernet-lambda-16-unroll"].fixed.items() if k != _field},
               "unroll": "cap", "prior_truncation": "normalised"},
    )

