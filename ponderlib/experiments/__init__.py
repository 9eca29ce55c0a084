"""What the chapters compute, as named functions and results: a chapter calls them, plots what comes back
and states it. They sit on top of the tasks.

- :mod:`~ponderlib.experiments.parity`: runs over a config field, scored on one test batch (chapters 1, 2);
- :mod:`~ponderlib.experiments.act`: chapter 1 (ACT: during training, over seeds and time penalties);
- :mod:`~ponderlib.experiments.pondernet`: chapter 2 (PonderNet: priors, compute, every step's accuracy);
- :mod:`~ponderlib.experiments.pointer`: chapter 3 (sorting and convex hulls: over seeds, lengths, beams);
- :mod:`~ponderlib.experiments.transformer`: chapter 4 (the Universal Transformer: runs scored by depth).

The resumable runner over seeds and settings, whose results are committed as evidence, is
:mod:`ponderlib.sweep`.
"""
