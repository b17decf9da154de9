"""oha: its text summary (text.py) and ``--json`` (json.py).

``lbanalysis.readers.oha`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.oha.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
