"""What the explore notebook (``lbanalysis/report/notebooks/explore.ipynb``) shows, as library functions.

The notebook only calls these: each ``*_section`` function takes the Dataset
(or its runs), the one study of it (:func:`study_of`) and the notebook's
parameters, and returns a :class:`Section` (its heading, lines of text,
tables and figures) that renders as HTML in a notebook and as text in a
terminal. The page reads: what was read and where it was written, the
conclusion, the evidence, then an appendix. A section whose data is absent
holds one line that says so (the sentences are in :data:`ABSENT`) and shows
nothing on the page; :func:`left_out_section` lists those at the end.

One module per part of the page (a new section goes in the module of its
part, its chart in ``charts.py``, its sentences' fixed words in ``words.py``):

==================  ==========================================================
module              what it holds
==================  ==========================================================
``study.py``        ``load`` (a Dataset; unreadable files skipped, not fatal),
                    ``resolve``, ``check_parameters``, ``study_of`` (the one
                    study of the folder the sections show), ``http_runs``
``opening.py``      ``opening_section``: what was read and where the page and
                    its files are written (``tool_counts``)
``design.py``       ``design_section``: what was compared (the design in a
                    sentence and a table), setups ranked where they ran at
                    one load, series along a scale factor
``conclusion.py``   ``conclusion_section``: one line per series: verdict,
                    confidence, best rate, p99 there, errors
                    (``conclusion_table``); ``verdict_section``: what bounded
                    each series (the study's ``summary_frame()``)
``scaling.py``      ``scaling_section`` (throughput and latency against load,
                    fitted curves), ``open_loop_section`` (fixed-rate series
                    against the rate asked), ``knee_section``
``latency.py``      ``percentiles_section`` (``percentile_table``),
                    ``tail_section`` (corrected for coordinated omission)
``timeseries.py``   ``timeseries_section`` (``per_request_timeseries``)
``network.py``      ``network_section``: capacity, basis and utilisation per
                    run (the study's)
``balancer.py``     ``load_balancer_section``: HAProxy statistics per run and
                    per distinct snapshot
``compare.py``      ``compare_section``: each group against the first one
``appendix.py``     ``series_section`` (each series on its own),
                    ``read_summary`` (files, tools, runs, series, skipped
                    files), ``runs_section`` (``headline``; ``runs.csv``),
                    ``in_appendix``, ``left_out_section``
``charts.py``       every chart of the page (a function of a section's frames
                    that returns a Figure) and how much one chart draws
``render.py``       :class:`Section` and :class:`Collapsed`, as HTML and text
``words.py``        :data:`ABSENT`, :data:`INTROS`, and how names, counts and
                    files are said
==================  ==========================================================

>>> import io
>>> ds = load(io.StringIO("ab -c 10 -n 100 http://web/\\nRequests per second:    1000.5 [#/sec] (mean)\\n"))
>>> print(read_summary(ds).text[0])
1 file read, 1 run: ab 1.
>>> print(timeseries_section(ds))
Per-request time series
  No per-request logs in this folder.
"""

from __future__ import annotations

from .appendix import (
    headline,
    in_appendix,
    left_out_section,
    read_summary,
    runs_section,
    series_section,
    series_table_of,
)
from .balancer import load_balancer_section
from .charts import figure as _figure  # noqa: F401  (the name it had before the package, kept for code that used it)
from .compare import compare_section
from .conclusion import conclusion_section, conclusion_table, verdict_section
from .design import design_section
from .latency import percentile_table, percentiles_section, tail_section, tail_table
from .network import network_section
from .opening import opening_section, tool_counts
from .render import Collapsed, Section
from .scaling import knee_section, open_loop_section, scaling_fits_table, scaling_section
from .study import check_parameters, http_runs, iperf_runs, load, load_iperf, parse_capacities, resolve, study_of
from .timeseries import per_request_timeseries, timeseries_section
from .words import ABSENT, INTROS

__all__ = [
    "ABSENT",
    "INTROS",
    "Collapsed",
    "Section",
    "check_parameters",
    "compare_section",
    "conclusion_section",
    "conclusion_table",
    "design_section",
    "headline",
    "http_runs",
    "in_appendix",
    "iperf_runs",
    "knee_section",
    "left_out_section",
    "load",
    "load_balancer_section",
    "load_iperf",
    "network_section",
    "open_loop_section",
    "opening_section",
    "parse_capacities",
    "per_request_timeseries",
    "percentile_table",
    "percentiles_section",
    "read_summary",
    "resolve",
    "runs_section",
    "scaling_fits_table",
    "scaling_section",
    "series_section",
    "series_table_of",
    "study_of",
    "tail_section",
    "tail_table",
    "timeseries_section",
    "tool_counts",
    "verdict_section",
]
