"""The page's words: the one line of a section with nothing to show, each section's intro, and how numbers,
names and files are said in a sentence.

>>> plural(2, "run"), few(["a", "b", "c", "d"]), short_sources(["/x/a.txt", "/x/b/c.txt"])
('2 runs', 'a, b, c and 1 more', ['a.txt', 'b/c.txt'])
"""

from __future__ import annotations

import os
from collections.abc import Sequence

ABSENT = {
    "runs": "No runs were read from these files.",
    "http": "No HTTP load-test runs with a throughput among these files.",
    "loads": "No series ran at two {load} values or more: no curve against load.",
    "percentiles": "No latency percentiles in these outputs (ab, wrk --latency, hey, k6, vegeta, oha, bombardier -l "
    "and Locust print them; siege, gobench and iperf do not).",
    "requests": "No per-request logs in this folder.",
    "start times": "The per-request logs here log no start times (siege -v logs none): no time series.",
    "tail": "No per-request logs of closed-loop runs (ab -g, hey -o csv, siege -v): no corrected tail.",
    "knee": "No series ran at three {load} values or more: no knee to find.",
    "open_loop": "No series of a fixed-rate tool ran at two rates or more.",
    "capacity": "No link capacity given and no iperf outputs among these files: utilisation not computed.",
    "group": "No group given (explore --group, e.g. a field of the path pattern): no groups to compare.",
    "one_group": "Only one value of {group}: nothing to compare.",
    "haproxy": "No HAProxy statistics (show stat, show info …) among these files.",
}


#: The paragraph under each section's heading: what it shows and how to read it.
INTROS = {
    "verdicts": "For each series one verdict (errors, capacity mismatch, network, load generator, server "
    "saturation, no bound reached, or cannot tell) with its confidence and the figures and thresholds behind it.",
    "scaling": "Every run is a point; runs are grouped into series (same tool, target and settings, differing only "
    "in load). A series gets a {model} curve with its 95 % band only when it has enough distinct loads for the "
    "model and the fit explains the points; otherwise the table says why and no curve is drawn.",
    "percentiles": "The share of requests served within a time, per run, where the tool printed them (ab, "
    "wrk --latency, hey, k6, vegeta, oha, bombardier -l, Locust).",
    "tail": "Closed-loop tools stop sending while the server stalls; from per-request logs, the tail a steady "
    "stream of users would have seen, beside the tail the tool printed.",
    "timeseries": "Requests per second and mean latency over time, from per-request logs with start times "
    "(ab -g, hey -o csv): a steady run is flat; warm-up, stalls and drops show here.",
    "open_loop": "Tools that send a fixed rate (vegeta, k6's arrival-rate executors, wrk2) keep sending whatever "
    "the answers do: whether the answers kept up with the rate asked shows whether the server (or the path) did. "
    "The dashed line is where the answers come as fast as asked.",
    "knee": "The load past which throughput stops growing, per series, and whether latency keeps rising past it: "
    "the sign of a queue. A knee is called significant only where repeated runs at a load measured the "
    "run-to-run noise.",
    "network": "The capacity behind each run and its basis: a capacity given to explore (compared with payload "
    "plus TCP/IP and Ethernet framing), or iperf TCP runs that measured the path to the run's host from the run's "
    "own folder (a goodput, compared with payload), never a figure pooled across paths or folders.",
    "balance": "From HAProxy statistics among the files: per backend, each server's share of the requests "
    "against its weight's share, Jain's fairness index, queues and the connection limits reached.",
    "compare": "Each group against the first: the ratio of mean throughput with a bootstrap 95 % interval, per "
    "load where both ran it, and overall.",
    "series": "Each series that ran at two loads or more: its verdict with the evidence, a small chart of "
    "throughput and latency against load, and its runs by load.",
    "read": "Files read per tool, and every file that was skipped with the reason.",
    "runs": "One row per tool run: the columns people look at first, and the columns the path pattern and "
    "manifests added; runs.csv beside this page holds every column.",
}


def words_of(column: str) -> str:
    """A column's name in words, for a sentence.

    >>> words_of("concurrency"), words_of("rate_target_per_s")
    ('concurrency', 'rate')
    """
    from ...analysis.engine import LOAD_WORDS
    from ...formatting import LABELS

    if column in LOAD_WORDS:  # a load, as the study's sentences name it
        return LOAD_WORDS[column]
    if column in LABELS:
        return LABELS[column]
    words = column
    for suffix in ("_per_s", "_s", "_pct", "_bits", "_bytes"):
        words = words.removesuffix(suffix)
    return words.replace("_", " ")


MODELS = {"usl": "Universal Scalability Law", "amdahl": "Amdahl", "linear": "straight-line"}


def short_sources(sources: Sequence[str]) -> list[str]:
    """Sources without their common folder.

    >>> short_sources(["/x/logs/a.txt", "/x/logs/b/c.txt"])
    ['a.txt', 'b/c.txt']
    """
    norm = [str(s).replace("\\", "/") for s in sources]
    dirs = [os.path.dirname(s) for s in norm]
    if not norm or not all(dirs):
        return norm
    try:
        prefix = os.path.commonpath(dirs)
    except ValueError:
        return norm
    return [s[len(prefix) :].lstrip("/") if prefix else s for s in norm]


def file_names(sources: Sequence[str]) -> list[str]:
    """Each source by its file name alone where that names it uniquely, else without the common folder.

    >>> file_names(["/x/a/run.txt", "/x/b/run.txt", "/x/b/c.txt", "/x/b/c.txt"])
    ['a/run.txt', 'b/run.txt', 'c.txt', 'c.txt']
    """
    distinct = list(dict.fromkeys(str(s) for s in sources))
    short = dict(zip(distinct, short_sources(distinct), strict=True))
    names = [os.path.basename(short[s]) for s in distinct]
    twice = {n for n in names if names.count(n) > 1}
    return [short[str(s)] if os.path.basename(short[str(s)]) in twice else os.path.basename(short[str(s)])
            for s in sources]  # fmt: skip


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``, ``1,234 runs``.

    >>> plural(1, "file"), plural(1234, "run"), plural(2, "series")
    ('1 file', '1,234 runs', '2 series')
    """
    return f"{n:,} {word}" + ("" if n == 1 or word.endswith("s") else "s")


def few(names: Sequence[str], n: int = 3) -> str:
    """The first ``n`` names and how many more.

    >>> few(["a", "b"]), few(["a", "b", "c", "d", "e"])
    ('a, b', 'a, b, c and 2 more')
    """
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")
