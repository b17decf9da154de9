"""Gatling: its console (text.py) and simulation.log (log.py); shared.py: what both say of failed requests.

``lbanalysis.readers.gatling`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.gatling.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
