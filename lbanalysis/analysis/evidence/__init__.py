"""The evidence the verdict rules read, one builder per module, each a small function returning a frame.

The study (:mod:`lbanalysis.analysis.engine`) builds each piece of evidence
once, then the rules table (:mod:`lbanalysis.analysis.rules`) decides:

==================  ==========================================================
module              what it builds
==================  ==========================================================
``errors``          per run: errors, attempts, share, basis (each tool's own
                    counters); per load: the counts in words
``latency``         per run: the latency used and its basis (measured, or the
                    printed mean that Little's law makes of the concurrency)
``runs``            per run: its target, why it is left out of curves (debug,
                    too short, too few requests, the copy of another)
``twins``           per run: the run another file of the folder already shows
                    (a per-request log, a file the tool wrote beside its output)
``capacity``        per run: the capacity behind it, its basis and source, the
                    utilisation
``queue``           per series: what load-balancer statistics show of a
                    server-side queue
``cpu``             per run and per load: the CPU figures of each role
                    (:mod:`lbanalysis.analysis.resources`)
``peers``           per series: the other series against the same target
                    (cross-series), the direct series behind a load balancer
``loads``           per series: one row per load (the curve the rules read)
==================  ==========================================================

The processes of one test are folded into one run by
:mod:`lbanalysis.analysis.tests` before the study judges. A new verdict rule
is a line of :data:`lbanalysis.analysis.rules.RULES`; the evidence it needs,
when no builder gives it yet, is a new field of
:class:`~lbanalysis.analysis.rules.Evidence`, filled by a builder here.
"""
