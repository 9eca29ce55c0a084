"""What the chapters compute, as named functions and results: a chapter calls them, plots what comes back
and states it. They sit on top of the tasks.

- :mod:`~ponderlib.experiments.settings`: the chapters' own settings, which the sweep's presets are built
  from, and the seeds their live claims are counted and confirmed on;
- :mod:`~ponderlib.experiments.parity`: what a parity run's summary says about its halting and accuracy
  (:class:`~ponderlib.experiments.parity.HaltingSummary`, a live run's or a record's), and means over seeds
  (chapters 1, 2);
- :mod:`~ponderlib.experiments.act`: chapter 1 (ACT: during training, over seeds and time penalties);
- :mod:`~ponderlib.experiments.pondernet`: chapter 2 (PonderNet: priors, compute, every step's accuracy);
- :mod:`~ponderlib.experiments.pointer`: chapter 3 (sorting and convex hulls: over seeds, lengths, beams);
- :mod:`~ponderlib.experiments.transformer`: chapter 4 (the Universal Transformer: runs scored by depth);
- :mod:`~ponderlib.experiments.claims`: every lesson's claims about its live runs, and
  :mod:`~ponderlib.experiments.confirmation`, how they are counted over seeds and confirmed.

The resumable runner over seeds and settings, whose results are committed as evidence, is
:mod:`ponderlib.sweep`.
"""
