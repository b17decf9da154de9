"""ApacheBench (ab): its console output (text.py), ``-e`` percentiles CSV (csv.py), ``-g`` gnuplot TSV (gnuplot.py).

``lbanalysis.readers.ab`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.ab.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
