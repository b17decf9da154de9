"""The ``lbanalysis`` command line: ``read``, ``summary``, ``compare``, ``report``, ``explore``, ``sweep`` and ``check``.

``main(argv)`` returns the exit status instead of exiting, so it can be
called in-process: 0 on success, 1 for data errors (an unreadable file, a
failing notebook), 2 for usage errors (a bad option, a path that does not
exist). Errors are one line on stderr, ``lbanalysis: error: <file>: <reason>``,
never a traceback (``LBANALYSIS_DEBUG=1`` shows it).

>>> main(["--version"])
lbanalysis 0.1.0
0
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TextIO

from .. import __version__, registry
from ..errors import LBAnalysisError
from . import check, compare, read, reports, summary, sweep
from .check import cmd_check
from .common import PROG, CLIError, Parser, err, isatty, one_line, output_format, write_table
from .compare import cmd_compare, compare_table
from .read import cmd_read
from .reports import cmd_explore, cmd_report, explore_parameters
from .summary import cmd_summary, format_markdown, format_table, summary_table
from .sweep import cmd_sweep

__all__ = [
    "CLIError",
    "build_parser",
    "cmd_check",
    "cmd_compare",
    "cmd_explore",
    "cmd_read",
    "cmd_report",
    "cmd_summary",
    "cmd_sweep",
    "compare_table",
    "explore_parameters",
    "format_markdown",
    "format_table",
    "main",
    "output_format",
    "summary_table",
    "write_table",
]


def _isatty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (``main`` asks once whether stderr is, for the reading progress bar)."""
    return isatty(stream)


_MAIN_EPILOG = """\
examples:
  lbanalysis summary logs/
  lbanalysis read logs/ --pattern '{setup}/{mode}' -o runs.csv
  lbanalysis report --all
  lbanalysis explore logs/ --group setup --capacity '1 Gbit/s'
  lbanalysis sweep ab http://127.0.0.1:8080/ --loads 1,2,4,8 --repeat 2 --requests 2000 -o runs/
  lbanalysis check runs/ --objective 'p99 <= 50ms, errors <= 1%' --junit check.xml

Each command has its own --help. Exit status: 0 ok, 1 data error, 2 usage error.
"""


def _description() -> str:
    """The program's description, naming the tools the registry knows by kind.

    >>> _description().splitlines()[1].startswith("HTTP load: ab, siege")
    True
    """
    kinds = {"http-load": "HTTP load", "network": "network", "lb-stats": "load-balancer statistics"}
    lines = [f"{label}: {', '.join(registry.names(kind=kind))}" for kind, label in kinds.items()]
    lines.append("resources: " + ", ".join(n for n in registry.names(kind="resources") if n != "sweep"))
    return "Read load-test outputs into tidy tables; fit, judge and chart them; run reports.\n" + "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lbanalysis`` program: one subcommand per module of :mod:`lbanalysis.cli`."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = Parser(
        prog=PROG,
        description=_description(),
        epilog=_MAIN_EPILOG,
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    read.add_parser(sub, fmt).set_defaults(func=cmd_read)
    summary.add_parser(sub, fmt).set_defaults(func=cmd_summary)
    compare.add_parser(sub, fmt).set_defaults(func=cmd_compare)
    reports.add_report_parser(sub, fmt).set_defaults(func=cmd_report)
    reports.add_explore_parser(sub, fmt).set_defaults(func=cmd_explore)
    sweep.add_parser(sub, fmt).set_defaults(func=cmd_sweep)
    check.add_parser(sub, fmt).set_defaults(func=cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 data error, 2 usage error)."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if argv[:1] == ["sweep"] and "--" in argv:  # the tool's own options, passed through
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1 :]
    try:
        args = parser.parse_args(argv)
        if extra:
            args.extra = extra
    except CLIError as e:
        err(str(e))
        return e.status
    except SystemExit as e:  # --help, --version
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    args.read_progress = None if _isatty(sys.stderr) else False
    try:
        return args.func(args)
    except CLIError as e:
        err(str(e))
        return e.status
    except LBAnalysisError as e:
        err(one_line(e))
        return 1
    except BrokenPipeError:
        # output piped into `head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        err(f"{where}{e.strerror or e}")
        return 1
    except Exception as e:  # a bug: say so in one line, traceback only on request
        if os.environ.get("LBANALYSIS_DEBUG"):
            traceback.print_exc()
        err(f"internal error: {type(e).__name__}: {one_line(e)} (LBANALYSIS_DEBUG=1 shows the traceback)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
