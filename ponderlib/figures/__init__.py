"""Figures and widgets, on top of everything else.

Every figure function takes measured data (tensors, lists, run summaries), returns a ``matplotlib``
``Figure`` with labelled axes (units where there are units) and a title that says what it shows, and draws
in the book's style (:func:`~ponderlib.figures.style.book_figure`): at most
:data:`~ponderlib.figures.style.MAX_WIDTH` inches wide, at most two panels in a row, the legend off the
data, a shade of the method's colour per seed.

- :mod:`~ponderlib.figures.style`: the one colour and label of every method and decoder, and how seeds
  and their mean are drawn;
- :mod:`~ponderlib.figures.act`, :mod:`~ponderlib.figures.pondernet`, :mod:`~ponderlib.figures.pointer`,
  :mod:`~ponderlib.figures.transformer`: each chapter's figures (chapters 1 to 4); a mechanism drawn from
  single inputs' numbers in :mod:`~ponderlib.figures.act_halting` and
  :mod:`~ponderlib.figures.pondernet_halting`;
- :mod:`~ponderlib.figures.sweep`: a sweep's metric against a grid field, every seed and the mean;
- :mod:`~ponderlib.figures.widgets`: figure switchers that work in the static HTML book;
- :mod:`~ponderlib.figures.source`: library source shown in a chapter.
"""
