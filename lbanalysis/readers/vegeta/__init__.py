"""vegeta: ``vegeta report`` text (text.py) and JSON (json.py), ``vegeta encode`` CSV (csv.py); shared.py: counting results.

``lbanalysis.readers.vegeta`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.vegeta.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
