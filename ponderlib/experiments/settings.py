"""The chapters' own settings: what each lesson trains live and what its evidence at convergence runs, as
the fields a preset fixes, and the seeds its live claims are counted and confirmed on.

Plain values, no code: :mod:`ponderlib.sweep.presets` builds the named sweeps from them, and the chapters
and :mod:`ponderlib.experiments.claims` read them. The papers' own settings (Graves' and Banino et al.'s
parity networks at their scale) are the sweeps', in :mod:`ponderlib.sweep.paper_presets`.
"""

from __future__ import annotations

LIVE_SEEDS = list(range(20))
"""A chapter's live setting is run over these seeds, where the claims about its live runs were first counted."""

CONFIRMATION_SEEDS = list(range(20, 40))
"""The seeds of a live setting's confirmation set: run after the claims about it were fixed
(:mod:`ponderlib.experiments.claims`); a lesson asserts only the claims that held in all 20."""

CHAPTER_1_PARITY = {
    "method": "act", "n_elems": 8, "hidden": 64, "batch_size": 256, "lr": 5e-3, "tau": 1e-2, "target_accuracy": None,
}
"""Chapter 1's live setting (``SETTING`` there): ACT on 8-element parity, a GRU cell of 64 units, 256
vectors per training update, Adam at 5e-3, tau 0.01, the whole budget trained."""

CHAPTER_1_SEQUENCE = {
    "n_elems": 6, "seq_len": 5, "max_ponder_steps": 8, "halting_bias_init": 3.0, "batch_size": 128,
    "target_accuracy": None, "eval_every": 100,
}
"""Chapter 1's sequence task (``SEQUENCE`` there): ACT inside an RNN on 5 time steps of 6-element parity,
at most 8 ponder steps per time step, b_h = 3, 128 sequences per training update, the whole budget trained."""

CHAPTER_2_PARITY = {
    "n_elems": 8, "max_nonzero": 6, "hidden": 64, "max_ponder_steps": 20, "batch_size": 128, "beta": 0.01,
    "lambda_p": 0.3, "tau": 0.01, "target_accuracy": None, "eval_every": 500, "eval_size": 1024,
    "difficulty_eval_size": 512,
}
"""Chapter 2's live setting (``MAIN`` there): 8-element parity trained on 1 to 6 non-zero entries, a GRU
cell of 64 units, at most 20 ponder steps, 128 vectors per training update, each method at its default
learning rate, the whole budget trained."""

CHAPTER_2_SMALL = {
    **CHAPTER_2_PARITY, "n_elems": 6, "max_nonzero": None, "eval_every": 250, "eval_size": 512, "difficulty_eval_size": 256,
}
"""Chapter 2's smaller runs (``SMALL`` there): its live setting on 6-element parity, every difficulty trained."""

CHAPTER_3_SORT = {
    "values": "float", "order": "desc", "min_len": 5, "max_len": 10, "hidden": 64, "attention_dim": 256,
    "target_accuracy": None, "eval_every": 600, "eval_size": 256, "test_size": 512, "test_max_len": 20,
}
"""Chapter 3's main sorting runs (``SORT_SETTING`` there): reals in descending order, trained on 5 to 10,
exact match on 512 arrays of every length up to 20."""

CHAPTER_3_DECODERS = {
    "values": "int", "min_len": 5, "max_len": 10, "target_accuracy": None, "eval_every": 50, "eval_size": 256,
    "test_size": 1024,
}
"""Chapter 3's comparison of decoders (``COMPARE`` there): integers 0..9, lengths 5 to 10."""

CHAPTER_3_HULL = {
    "min_points": 5, "max_points": 10, "test_max_points": 20, "hidden": 64, "attention_dim": 128, "eval_every": 50,
    "eval_size": 256, "test_size": 512,
}
"""Chapter 3's convex hulls (``HULL_SETTING`` there): trained on 5 to 10 points, scored on 5 to 20."""

CHAPTER_3_CONVERGED_UPDATES = 20_000
"""Chapter 3's budget for runs at convergence (issue 24), in training updates: 100 times the live decoders'
200 and 67 times the live hulls' 300, where every baseline and the hulls were still improving. Probes of
the first 400 updates, seed 0: pointer-hull-256's held-out accuracy 0.41, 0.50, 0.55, 0.61 every 100
updates; the seq2seq decoders' exact match 0.53 to 0.75 at 400, the pointer's 1.0 from 100 on. Each run's
learning curve shows whether it had stopped improving."""

CHAPTER_3_LR_DECAY = 0.9
"""The decay of chapter 3's runs at convergence: Adam's learning rate times 0.9 every 1,000 training
updates, a factor of 0.12 over :data:`CHAPTER_3_CONVERGED_UPDATES` (Vinyals et al. train with SGD at a
fixed 1.0; the book's runs at convergence use Adam, decaying)."""

CHAPTER_3_HULL_256 = {
    **{k: v for k, v in CHAPTER_3_HULL.items() if k != "hidden"}, "attention_dim": 256, "lr": 1e-3,
    "lr_decay": CHAPTER_3_LR_DECAY, "beam_width": 3, "target_accuracy": None, "eval_every": 1000, "eval_size": 1024,
    "test_size": 1024,
}
"""Chapter 3's hulls near the paper's setting (issue 24): an LSTM of 256 units, one of the paper's two
widths (256 or 512), and attention of 256; Adam at 1e-3, decaying (the paper: SGD at 1.0); a beam of 3 at
test; trained on 5 to 10 points, scored on 1,024 sets of every count from 5 to 20; held-out accuracy
every 1,000 updates."""

CHAPTER_4_CHAINS = {
    "max_depth": 4, "max_len": 10, "order": "shuffled", "max_ponder_steps": 6, "fixed_depth": 3, "batch_size": 128,
    "eval_every": 100, "eval_size": 256, "test_size": 512, "test_max_len": 20, "test_max_depth": 7,
}
"""Chapter 4's setting: programs of 4 to 10 assignments written in a random order (so a position's
required depth does not depend on where it stands) with chains of up to 4 hops, at most 6 ponder
steps (the fixed depth: 3 applications), scored after training on 512 programs as trained, up to 20
assignments, and up to 20 assignments with chains of up to 7 hops."""

DEEP_START = -3.0
"""The halting unit's initial bias of a *deep start* (Sapunov 2026): ``sigmoid(-3) = 0.05``, so before
training a position ponders up to the cap (Graves' bias of 1: about 2 steps), and the ponder cost
shortens it as it trains."""

CHAPTER_4_MODELS = {"method": ["act", "fixed", "pondernet"], "halting_bias_init": [1.0, DEEP_START]}
"""Chapter 4's grid: every method, and each with Graves' initial halting bias and a deep start (the
fixed depth has no halting unit: its two points are the same run twice, a check of determinism)."""

CHAPTER_4_LIVE_UPDATES = 800
"""Chapter 4's live budget, in training updates, on every device (a GPU runs these small models no
faster than a CPU core): where ACT with a deep start has learnt the task in most seeds."""

CHAPTER_4_CONVERGED_UPDATES = 2000
"""Chapter 4's evidence budget at convergence: where held-out accuracy and ponder steps have stopped
changing (ACT, seed 0, trained for 3000 updates in a probe: accuracy 0.99 or more from
update 600 on, mean ponder steps within 0.01 of their final value from update 1800 on)."""
