"""An experiment's design: the factors that vary between runs and what each one is (setup, scale, load, repeat,
workload, constant), inferred from the folder and file names, lines inside the files, a pattern or a manifest,
and what the tools printed.

>>> from lbanalysis.design import path_tokens, infer, sentence
>>> [(t.key, t.value) for t in path_tokens("c6000.json")]
[('c', 6000.0)]
"""

from __future__ import annotations

from .infer import BOOKKEEPING, PRINTED_LOADS, Design, check_roles, infer, sentence
from .tokens import KNOWN_NAMES, LOAD_NAMES, REPEAT_NAMES, SCALE_NAMES, Token, number, path_tokens, section_lines

__all__ = ["BOOKKEEPING", "KNOWN_NAMES", "LOAD_NAMES", "PRINTED_LOADS", "REPEAT_NAMES", "SCALE_NAMES", "Design",
           "Token", "check_roles", "infer", "number", "path_tokens", "section_lines", "sentence"]  # fmt: skip
