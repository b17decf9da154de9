"""k6: its end-of-test summary (text.py), ``--summary-export`` / handleSummary JSON (json.py), ``--out json`` points (points.py).

``lbanalysis.readers.k6`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.k6.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
