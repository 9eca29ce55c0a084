"""The lessons' live settings over 20 seeds (:data:`LIVE_PRESETS`): what each lesson trains live, run over
seeds 0-19, where the claims about its live runs were first counted (:mod:`ponderlib.experiments.claims`;
their confirmation sets, seeds 20-39, are made from these by :func:`~ponderlib.sweep.presets.confirmation`).
Each is built from its chapter's own setting (:mod:`ponderlib.experiments.settings`).
"""

from __future__ import annotations

from ponderlib.experiments.settings import (
    CHAPTER_1_PARITY,
    CHAPTER_1_SEQUENCE,
    CHAPTER_2_PARITY,
    CHAPTER_2_SMALL,
    CHAPTER_3_DECODERS,
    CHAPTER_3_HULL,
    CHAPTER_3_SORT,
    CHAPTER_4_CHAINS,
    CHAPTER_4_LIVE_UPDATES,
    CHAPTER_4_MODELS,
    DEEP_START,
    LIVE_SEEDS,
)
from ponderlib.sweep.spec import Preset

LIVE_PRESETS: dict[str, Preset] = {
    "act-parity-live": Preset(
        description=(
            "Chapter 1's live runs over 20 seeds (the chapter trains seeds 0-2): ACT on 8-element parity, "
            "a GRU cell of 64 units, batch 256, Adam at lr 5e-3, tau 0.01, 5,000 training updates, with "
            "the halting unit's initial bias b_h = 1 (Graves' value: the chapter's live runs) and 3 (the "
            "second edition's, picked by a probe for the sign it gave; the chapter reports both). Each run "
            "reports accuracy and ponder steps at every difficulty and their correlation."
        ),
        task="parity",
        grid={"halting_bias_init": [3.0, 1.0]},
        fixed=CHAPTER_1_PARITY,
        seeds=LIVE_SEEDS,
        max_updates=5_000,
    ),
    "pondernet-parity-live": Preset(
        description=(
            "Chapter 2's live runs over 20 seeds (the chapter trains seeds 0-2): PonderNet with the paper's "
            "and the reverse KL (lambda_p 0.3, beta 0.01) and ACT (tau 0.01) on 8-element parity trained on "
            "1 to 6 non-zero entries, a GRU cell of 64 units, at most 20 ponder steps, batch 128, 2,000 "
            "training updates. ACT has no KL: its two kl_direction rows are the same runs twice, a check that "
            "a run repeats exactly on one machine. Each run reports accuracy and ponder steps (executed and "
            "expected) at every difficulty, and interpolation and extrapolation accuracy."
        ),
        task="parity",
        grid={"method": ["pondernet", "act"], "kl_direction": ["paper", "reverse"]},
        fixed=CHAPTER_2_PARITY,
        seeds=LIVE_SEEDS,
        max_updates=2_000,
    ),
    "act-parity-tau-live": Preset(
        description=(
            "The second edition's chapter-1 tau grid over 20 seeds: 8-element parity (b_h = 3) at tau = 0.001, "
            "0.01, 0.03 and 0.1, 2,000 training updates each; error, ponder steps and their correlation with "
            "difficulty, and the learning curve (accuracy every 50 updates). The third edition draws the tau "
            "figures from graves-parity-16 instead and no longer reads this set."
        ),
        task="parity",
        grid={"tau": [1e-3, 1e-2, 3e-2, 1e-1]},
        fixed={**{k: v for k, v in CHAPTER_1_PARITY.items() if k != "tau"}, "halting_bias_init": 3.0},
        seeds=LIVE_SEEDS,
        max_updates=2_000,
    ),
    "act-sequence-live": Preset(
        description=(
            "Chapter 1's sequence task over 20 seeds: ACT inside an RNN on 5 time steps of 6-element parity, "
            "tau 0.01, b_h = 3, batch 128, 2,000 training updates; accuracy and N(t) at every difficulty on "
            "512 test sequences, and their correlation."
        ),
        task="sequence_parity",
        grid={"tau": [1e-2]},
        fixed=CHAPTER_1_SEQUENCE,
        seeds=LIVE_SEEDS,
        max_updates=2_000,
    ),
    "pondernet-parity-prior-live": Preset(
        description=(
            "Chapter 2's prior runs over 20 seeds: PonderNet on 6-element parity (its smaller setting), 500 "
            "training updates, lambda_p = 0.1, 0.2, 0.4, 0.8, the geometric prior truncated at 20 steps either "
            "way (its tail on the last step, or normalised); the mean halting distribution p_n of each run."
        ),
        task="parity",
        grid={"lambda_p": [0.1, 0.2, 0.4, 0.8], "prior_truncation": ["last", "normalised"]},
        fixed={**{k: v for k, v in CHAPTER_2_SMALL.items() if k != "lambda_p"}, "method": "pondernet"},
        seeds=LIVE_SEEDS,
        max_updates=500,
    ),
    "pondernet-parity-kl-live": Preset(
        description=(
            "Chapter 2's KL directions over 20 seeds: PonderNet on 6-element parity, lambda_p 0.5, beta 0.1, "
            "1,000 training updates, KL(p || p_G) as the paper and the reverse; the mean halting distribution."
        ),
        task="parity",
        grid={"kl_direction": ["paper", "reverse"]},
        fixed={**CHAPTER_2_SMALL, "method": "pondernet", "lambda_p": 0.5, "beta": 0.1},
        seeds=LIVE_SEEDS,
        max_updates=1_000,
    ),
    "act-parity-small-tau-live": Preset(
        description=(
            "Chapter 2's ACT runs over 20 seeds: ACT on 6-element parity (its smaller setting), 500 training "
            "updates, tau = 0.001, 0.01, 0.03, 0.1."
        ),
        task="parity",
        grid={"tau": [1e-3, 1e-2, 3e-2, 1e-1]},
        fixed={**{k: v for k, v in CHAPTER_2_SMALL.items() if k != "tau"}, "method": "act"},
        seeds=LIVE_SEEDS,
        max_updates=500,
    ),
    "pointer-sort-live": Preset(
        description=(
            "Chapter 3's sorting runs over 20 seeds: a pointer network sorts reals in descending order, trained "
            "on 5 to 10 for 600 updates (batch 128, an LSTM of 64 units, attention of 256), exact match at every "
            "length from 5 to 20."
        ),
        task="sorting",
        grid={"decoder": ["pointer"]},
        fixed=CHAPTER_3_SORT,
        seeds=LIVE_SEEDS,
        max_updates=600,
    ),
    "pointer-sort-decoders-live": Preset(
        description=(
            "Chapter 3's decoders over 20 seeds: seq2seq, seq2seq with Bahdanau's attention and the pointer "
            "network sort integers 0..9 of length 5 to 10, 200 training updates each; exact match on 1,024 arrays."
        ),
        task="sorting",
        grid={"decoder": ["seq2seq", "bahdanau", "pointer"]},
        fixed=CHAPTER_3_DECODERS,
        seeds=LIVE_SEEDS,
        max_updates=200,
    ),
    "pointer-hull-live": Preset(
        description=(
            "Chapter 3's convex hulls over 20 seeds: a pointer network with an end pointer trained on 5 to 10 "
            "points for 300 updates; accuracy, area coverage and invalid outputs at 5 to 20 points, and the "
            "learning curve."
        ),
        task="convex_hull",
        grid={"hidden": [64]},
        fixed={k: v for k, v in CHAPTER_3_HULL.items() if k != "hidden"},
        seeds=LIVE_SEEDS,
        max_updates=300,
    ),
    "ut-chains-live": Preset(
        description=(
            "Chapter 4's live runs over 20 seeds: the Universal Transformer with ACT (tau 0.01), PonderNet "
            "(lambda_p 0.3) and a fixed depth of 3 on shuffled assignment chains, 800 training updates, the "
            "halting unit's bias starting at 1 (Graves) or at -3 (a deep start); accuracy and ponder steps at "
            "every required depth, on longer programs and on deeper chains than trained."
        ),
        task="chains",
        grid=CHAPTER_4_MODELS,
        fixed=CHAPTER_4_CHAINS,
        seeds=LIVE_SEEDS,
        max_updates=CHAPTER_4_LIVE_UPDATES,
    ),
    "ut-chains-tau-live": Preset(
        description=(
            "Chapter 4's tau runs over 20 seeds: the Universal Transformer with ACT (a deep start) at tau = "
            "0.001, 0.01, 0.05."
        ),
        task="chains",
        grid={"tau": [1e-3, 1e-2, 5e-2]},
        fixed={**CHAPTER_4_CHAINS, "method": "act", "halting_bias_init": DEEP_START},
        seeds=LIVE_SEEDS,
        max_updates=CHAPTER_4_LIVE_UPDATES,
    ),
}
"""The lessons' live settings by name, in the chapters' order (a setting's evidence is ``evidence/NAME.jsonl``)."""
