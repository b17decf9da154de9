"""bombardier: its console output (text.py) and ``-o json`` (json.py).

``lbanalysis.readers.bombardier`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.bombardier.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
