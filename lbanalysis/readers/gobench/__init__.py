"""gobench: its console output (text.py).

``lbanalysis.readers.gobench`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.gobench.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
