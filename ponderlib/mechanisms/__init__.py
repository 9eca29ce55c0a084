"""Mechanisms, one paper each, as the papers write them: they import the engine, never a task.

- :mod:`~ponderlib.mechanisms.halting`: ``p_n``, ``N(t)``, ``R(t)`` and the geometric prior (Graves eqs. 6-8,
  Banino eqs. 1-2);
- :mod:`~ponderlib.mechanisms.losses`: ACT's ponder cost and PonderNet's loss (Graves eq. 12, Banino eq. 3);
- :mod:`~ponderlib.mechanisms.act`: Adaptive Computation Time around any recurrent cell (Graves 2016);
- :mod:`~ponderlib.mechanisms.pondernet`: PonderNet around any step function (Banino et al. 2021);
- :mod:`~ponderlib.mechanisms.attention`: additive attention (Bahdanau et al. 2015);
- :mod:`~ponderlib.mechanisms.pointer`: pointer networks and the seq2seq baselines (Vinyals et al. 2015);
- :mod:`~ponderlib.mechanisms.decoding`: greedy and beam decoding of a trained pointer network;
- :mod:`~ponderlib.mechanisms.universal_transformer`: the Universal Transformer with per-position halting
  (Dehghani et al. 2019).

A mechanism that needs to know the right answer (teacher forcing) gets it from its caller.
"""
