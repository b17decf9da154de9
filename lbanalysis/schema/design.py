"""The columns of an experiment's design (``Dataset.design``) and of a ranking of setups (``Study.ranking()``).

>>> list(DESIGN)[:5]
['factor', 'source', 'role', 'values', 'evidence']
>>> DESIGN_ROLES
('setup', 'scale', 'load', 'repeat', 'workload', 'constant', 'measured')
>>> RANKING["requests_per_s"].unit
'1/s'
"""

from __future__ import annotations

from .columns import B, Column, F, I, S, columns_of

__all__ = ["DESIGN", "DESIGN_ROLES", "DESIGN_SOURCES", "RANKING"]

#: What a factor is in the experiment: ``setup`` (what is compared: a server, a load balancer, a framework),
#: ``scale`` (a numeric setup parameter such as servers, pods, processes, cores, maxconn), ``load`` (agrees with
#: the load the tool printed or ran with), ``repeat`` (the same test again), ``workload`` (the request sent: the
#: URL, method, body), ``constant`` (one value in every run), ``measured`` (a number a manifest or pattern records
#: per run that no name or evidence makes a setting: a CPU share, a memory figure; not a factor).
DESIGN_ROLES = ("setup", "scale", "load", "repeat", "workload", "constant", "measured")
#: Where a factor was read.
DESIGN_SOURCES = ("path segment", "file-name token", "a line inside the file", "manifest", "path pattern",
                  "the tool's own output", "given")  # fmt: skip

DESIGN = columns_of(
    Column("factor", S, "", "the factor's name: a {name} of a pattern, a key of key=value, a printed name such as "
           "podnum, a word of the file name (c in c6000), else path[2] or file (the position it was read at)"),
    Column("source", S, "", "where it was read: " + ", ".join(DESIGN_SOURCES)),
    Column("role", S, "", "what it is in the experiment: " + ", ".join(DESIGN_ROLES)),
    Column("values", S, "", "its values, as a person reads them (a range for numbers)"),
    Column("evidence", S, "", "why that role, in words"),
    Column("column", S, "", "the runs column that holds it (the study adds path factors to its runs)"),
    Column("levels", I, "", "how many distinct values it takes"),
    Column("axis", B, "", "whether series run along it (the load, or a scale factor at a constant load)"),
)  # fmt: skip

RANKING = columns_of(
    Column("workload", S, "", "what was sent (tool, target and settings): setups are ranked within one"),
    Column("load", S, "", "the load they all ran at (e.g. 'concurrency 500')"),
    Column("setup", S, "", "the setup: the values of the setup factors"),
    Column("rank", I, "", "1 = the highest requests/s"),
    Column("runs", I, "", "runs of this setup at this load (repeats)"),
    Column("requests_per_s", F, "1/s", "mean requests per second over its runs"),
    Column("lower", F, "1/s", "lower end of the 95% interval of the mean (bootstrap over its runs)"),
    Column("upper", F, "1/s", "upper end of that interval"),
    Column("latency_mean_s", F, "s", "mean latency over its runs"),
    Column("error_share", F, "", "share of attempts that failed or were not 2xx"),
    Column("differs_from_next", S, "", "'yes', 'no' (within noise) or 'too few runs to tell', against the next"),
    Column("note", S, "", "a caveat: too few runs, errors, the client on the same host"),
)  # fmt: skip
