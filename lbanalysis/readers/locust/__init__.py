"""Locust: its console tables (text.py), ``--csv`` files (csv.py), ``--json`` output (json.py).

``lbanalysis.readers.locust`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.locust.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
