"""Figures and widgets, on top of everything else.

- :mod:`~ponderlib.figures.style`: the one colour and label of every method and decoder;
- :mod:`~ponderlib.figures.act`, :mod:`~ponderlib.figures.pondernet`, :mod:`~ponderlib.figures.pointer`,
  :mod:`~ponderlib.figures.transformer`: each chapter's figures (chapters 1 to 4);
- :mod:`~ponderlib.figures.sweep`: a sweep's metric against a grid field, every seed and the mean;
- :mod:`~ponderlib.figures.widgets`: figure switchers that work in the static HTML book;
- :mod:`~ponderlib.figures.source`: library source shown in a chapter.
"""
