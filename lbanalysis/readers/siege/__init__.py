"""siege: its console output (text.py), ``-j`` JSON (json.py), its log file (log.py); fields.py: the fields the text and JSON share.

``lbanalysis.readers.siege`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.siege.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
