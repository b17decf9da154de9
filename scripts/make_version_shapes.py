"""Make shape fixtures of tool versions and forks that cannot be installed here.

Each file takes the shape of outputs people publish (the sources are named in
the SOURCES.md beside the files) with values of our own: ab 2.0.x from a
captured ab 2.3 run, rewritten the way ab 2.0's source prints it; iperf3
3.1.x stream ids from a captured 3.12 run; the
bingoohuang/gobench fork from its print statements and the outputs its README
and users' notes show.

Run: ``python scripts/make_version_shapes.py`` (rewrites the files it names).
"""

from __future__ import annotations

import re
from pathlib import Path

FIX = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def ab_2_0() -> str:
    """ab_failed_length.txt as ab 2.0.40 prints it: no Receive in the breakdown, Write errors, 6-decimal time."""
    text = (FIX / "ab" / "ab_failed_length.txt").read_text()
    text = text.replace(
        "This is ApacheBench, Version 2.3 <$Revision$>",
        "This is ApacheBench, Version 2.0.40-dev <$Revision: 1.146 $> apache-2.0",
    )
    text = text.replace("Licensed to The Apache Software Foundation", "Copyright 2006 The Apache Software Foundation")
    text = re.sub(r"\(Connect: (\d+), Receive: \d+, Length: (\d+), Exceptions: (\d+)\)\n",
                  r"(Connect: \1, Length: \2, Exceptions: \3)\nWrite errors:           0\n", text)  # fmt: skip
    return re.sub(r"Time taken for tests:   (\d+\.\d{3}) seconds", r"Time taken for tests:   \g<1>000 seconds", text)


def iperf3_3_1() -> str:
    """iperf3_tcp_P2.txt (iperf 3.12) as 3.1.x builds print it: ids from 4, written ``[  4 ]``, ``[ ID ]``, Bandwidth."""
    text = (FIX / "iperf3" / "iperf3_tcp_P2.txt").read_text()
    ids = {"5": "4", "7": "6"}
    text = re.sub(r"\[\s*(\d+)\]", lambda m: f"[{ids.get(m.group(1), m.group(1)):>3} ]", text)
    return text.replace("Bitrate", "Bandwidth").replace("[ ID]", "[ ID ]")


GOBENCH_FORK = {
    # the README's first example: positional URL, start time on the Dispatching line, Test time with the clock
    "gobench_fork_positional.txt": """$ gobench http://127.0.0.1:18080/api/demo
Dispatching 100 goroutines at 2026-11-24 10:25:57.176
Waiting for results...

Total Requests:                 664004 hits
Successful requests:            664001 hits
Network failed:                 0 hits
Bad requests(!2xx):             3 hits
Successful requests rate:       66391 hits/sec
Read throughput:                19 MiB/sec
Write throughput:               6.0 MiB/sec
Test time:                      10.001s(2026-11-24 10:25:57.176-10:26:07.177)

""",
    # tab-aligned build, --method POST with -p 0 echo lines, a Go duration in ms, KiB rates
    "gobench_fork_tabs_post.txt": """[2026-11-24 10:19:47.157] ❯ gobench -u http://127.0.0.1:18080/dynamic/demo --method POST -post '{"name":"x"}' -p 0 -n 1000 -t 20
Dispatching 20 goroutines
Waiting for results...
[√] [200] { "name":"x", "age":100 }..........

Total Requests:\t\t\t1000 hits
Successful requests:\t\t1000 hits
Network failed:\t\t\t0 hits
Bad requests(!2xx):\t\t0 hits
Successful requests rate:\t10754.113 hits/sec
Read throughput:\t\t2.9 MiB/sec
Write throughput:\t\t987 KiB/sec
Test time:\t\t\t92.985453ms
X-Gobench-Seq:\t\t\t1
""",
    # nothing listening: every attempt failed at the network level
    "gobench_fork_refused.txt": """$ gobench -u http://127.0.0.1:18099/ -d 10s
Dispatching 100 goroutines at 2026-11-24 10:30:00.000
Waiting for results...

Total Requests:                 96383 hits
Successful requests:            0 hits
Network failed:                 96383 hits
Bad requests(!2xx):             0 hits
Successful requests rate:       0 hits/sec
Read throughput:                0 B/sec
Write throughput:               0 B/sec
Test time:                      10s(2026-11-24 10:30:00.000-10:30:10.000)

""",
}


def main() -> None:
    (FIX / "ab" / "shapes" / "ab_2.0.40_failed_length.txt").write_text(ab_2_0())
    (FIX / "iperf3" / "shapes" / "iperf3_3.1_stream_ids.txt").write_text(iperf3_3_1())
    for name, text in GOBENCH_FORK.items():
        (FIX / "gobench" / "shapes" / name).write_text(text)


if __name__ == "__main__":
    main()
