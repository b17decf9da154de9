"""hey: its summary (text.py) and ``-o csv`` (csv.py).

``lbanalysis.readers.hey`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.hey.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
