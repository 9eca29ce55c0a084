"""The engine: what every task shares and no paper defines.

- :mod:`~ponderlib.core.config`: the base config every task config extends, each field checked once;
- :mod:`~ponderlib.core.engine`: start-up (validate once, threads, seed, device), the training loop
  (budgets in training updates), the history, the result base;
- :mod:`~ponderlib.core.records`: a run's JSON summary read back entry by entry, checked;
- :mod:`~ponderlib.core.seeds`: every random stream, from a run's seed and a stream's name;
- :mod:`~ponderlib.core.device`: CPU or CUDA (``PONDERLIB_DEVICE``);
- :mod:`~ponderlib.core.validation`: the argument checks whose errors name the parameter and the range;
- :mod:`~ponderlib.core.stats`: a correlation and rounding for JSON.

It imports nothing else from ``ponderlib``.
"""
