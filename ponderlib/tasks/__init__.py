"""Tasks: each its data, model builders, loss, metrics, config and train function, in one module or, where
that grows long, beside its data (``X_data.py``), its networks (``X_models.py``) or its scoring
(``X_eval.py``). A task imports mechanisms and the engine, never another task.

- :mod:`~ponderlib.tasks.parity` (:mod:`~ponderlib.tasks.parity_models`, :mod:`~ponderlib.tasks.parity_eval`):
  ACT or PonderNet on parity vectors (chapters 1 and 2);
- :mod:`~ponderlib.tasks.sequence_parity`: ACT inside an RNN, a parity vector per time step (chapter 1);
- :mod:`~ponderlib.tasks.sorting` (:mod:`~ponderlib.tasks.sorting_data`): pointer networks and seq2seq
  baselines sorting arrays (chapter 3);
- :mod:`~ponderlib.tasks.convex_hull` (:mod:`~ponderlib.tasks.convex_hull_data`): pointer networks on
  planar convex hulls (chapter 3);
- :mod:`~ponderlib.tasks.chains` (:mod:`~ponderlib.tasks.chains_data`): the Universal Transformer on
  assignment chains (chapter 4);
- :mod:`~ponderlib.tasks.parity_data`: parity vectors, data that both parity tasks draw (not a task);
- :mod:`~ponderlib.tasks.registry`: every task by the one name it has in the CLI, sweeps and results.

A new task is one module here (two, with its data) and one entry in the registry.
"""
