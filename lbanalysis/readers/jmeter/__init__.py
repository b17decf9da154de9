"""Apache JMeter: its summariser console (text.py), .jtl CSV (csv.py) and XML (xml.py), the dashboard's statistics.json (json.py); shared.py: summarising samples.

``lbanalysis.readers.jmeter`` was the text reader itself: its names still resolve, from
``lbanalysis.readers.jmeter.text``, with a :class:`DeprecationWarning` (:func:`lbanalysis.readers.moved.forward`).
"""

from ..moved import forward

__getattr__ = forward(__name__, "text")
