"""wrk and wrk2: their console output (text.py).

``lbanalysis.readers.wrk`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.wrk.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
