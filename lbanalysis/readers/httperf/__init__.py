"""httperf: its console output (text.py).

``lbanalysis.readers.httperf`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.httperf.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
