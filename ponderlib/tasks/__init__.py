"""Tasks, one module each: its data, model builders, loss, metrics, config and train function. A task
imports mechanisms and the engine, never another task.

- :mod:`~ponderlib.tasks.parity`: ACT or PonderNet on parity vectors (chapters 1 and 2);
- :mod:`~ponderlib.tasks.sequence_parity`: ACT inside an RNN, a parity vector per time step (chapter 1);
- :mod:`~ponderlib.tasks.sorting`: pointer networks and seq2seq baselines sorting arrays (chapter 3);
- :mod:`~ponderlib.tasks.convex_hull`: pointer networks on planar convex hulls (chapter 3);
- :mod:`~ponderlib.tasks.chains`: the Universal Transformer on assignment chains (chapter 4);
- :mod:`~ponderlib.tasks.parity_data`: parity vectors, data that both parity tasks draw (not a task);
- :mod:`~ponderlib.tasks.registry`: every task by the one name it has in the CLI, sweeps and results.

A new task is one module here and one entry in the registry.
"""
