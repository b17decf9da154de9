"""The cpu table: CPU samples of the client, load balancer and servers, and the run each belongs to.

>>> CPU["busy_pct"].unit
'%'
"""

from __future__ import annotations

from .columns import Column, F, I, S, T, columns_of

__all__ = ["CPU", "CPU_SCOPES", "PAIRED_BY", "ROLES"]

# ----------------------------------------------------------------- cpu ---
#: Where a CPU sample's figures come from and which run it belongs to (see ``paired_by``).
CPU_SCOPES = ("all", "process")  # or a core id ("0", "1", ...)
PAIRED_BY = ("same file", "name stem", "time", "folder")
ROLES = ("client", "load balancer", "server")

CPU = columns_of(
    Column("source", "category", "", "file the sample was read from (path as given, or '<buffer>')"),
    Column("line", I, "", "1-based line of the file where the sample is printed"),
    Column(
        "run",
        I,
        "",
        "the run the sample belongs to: its ``run`` in the runs table, with ``run_source`` (empty where the sample"
        " belongs to no one run)",
    ),
    Column("run_source", S, "", "the runs table's ``source`` of the run the sample belongs to"),
    Column(
        "paired_by",
        S,
        "",
        "how the sample was paired with its run: 'same file' (printed after the run's output), 'name stem' (a file"
        " named after the run's file), 'time' (inside the run's start and end), 'folder' (only the same folder: no"
        " one run), or empty (not paired)",
    ),
    Column("host", S, "", "the host the sample was taken on (from the file's header, a monitor name or a manifest)"),
    Column(
        "role",
        S,
        "",
        "what the host or process was in the test: 'client', 'load balancer', 'server', or empty (not known)",
    ),
    Column("time", T, "", "when the sample was taken (its end), where the file shows it"),
    Column("interval_s", F, "s", "the length of the interval the percentages are averaged over"),
    Column("scope", S, "", "'all' (every core of the host), a core id ('0', '1', ...), or 'process'"),
    Column(
        "cores",
        F,
        "",
        "the cores the scope could use: the host's count for 'all', 1 for a core, a process's"
        " CPU limit (its threads, a taskset, a cgroup quota) where known",
    ),
    Column(
        "cores_by",
        S,
        "",
        "how ``cores`` was found, each limit named (the sweep: 'ab: 1; affinity: 2 (0-1); cgroup /lbtest: 0.2')",
    ),
    Column("user_pct", F, "%", "share of the scope's CPU time in user mode (nice included), 0-100"),
    Column("system_pct", F, "%", "share in kernel mode (system; irq and softirq apart where the tool splits them)"),
    Column("iowait_pct", F, "%", "share idle while waiting for I/O"),
    Column("steal_pct", F, "%", "share taken by the hypervisor for other guests"),
    Column("softirq_pct", F, "%", "share in software interrupts (network receive and send work)"),
    Column("idle_pct", F, "%", "share idle (iowait apart)"),
    Column("busy_pct", F, "%", "100 - idle - iowait: the share the scope was busy; for a process, cpu_pct / cores"),
    Column("irq_pct", F, "%", "share in hardware interrupts (mpstat %irq, top hi)"),
    Column("nice_pct", F, "%", "share in user mode at a lowered priority (counted in user_pct too)"),
    Column(
        "summary",
        S,
        "",
        "empty for a sample of one interval; 'since boot' (vmstat's and iostat's first figures, top's first"
        " snapshot: averages since the host started, no sample of any run), 'average' (the tool's own average"
        " of the samples above it: mpstat, sar, pidstat), 'warning' (a tool's own warning that its CPU passed a"
        " threshold: Locust's 'CPU usage above 90%!'; cpu_pct is that threshold, a lower bound), 'max' (the highest"
        " of a tool's samples, where it gives no other: crank's benchmarks/cpu)",
    ),
    Column("run_queue", F, "", "runnable processes (vmstat r, sar -q runq-sz, HAProxy Run_queue: its tasks)"),
    Column("interrupts_per_s", F, "1/s", "interrupts per second (vmstat in, dstat int)"),
    Column("context_switches_per_s", F, "1/s", "context switches per second (vmstat cs, dstat csw)"),
    Column("command", S, "", "a process's command line, as the tool shows it"),
    Column("pid", I, "", "a process's id"),
    Column(
        "cpu_pct", F, "%", "a process's CPU use in percent of one core (200 = two cores busy), as top and time print"
    ),
    Column("user_s", F, "s", "a process's user CPU time"),
    Column("system_s", F, "s", "a process's system CPU time"),
    Column("wall_s", F, "s", "a process's elapsed (wall clock) time"),
    Column("max_rss_bytes", F, "B", "a process's peak resident memory"),
    Column(
        "tool",
        S,
        "",
        "the program that printed the sample (time, vmstat, mpstat, sar, iostat, pidstat, dstat,"
        " top, haproxy, proc-stat, manifest, path: a path pattern's field; 'sweep': the load tool's process as the"
        " sweep measured it; crank: each job's process)",
    ),
)
