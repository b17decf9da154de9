"""Regenerate the data-model tables in README.md and docs/schema.md from lbanalysis/schema/ (and the verdict
rules' table from lbanalysis/analysis/rules.py).

Run: ``.venv/bin/python scripts/update_docs.py``. tests/test_docs.py fails
when the committed docs differ from what this script writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lbanalysis import schema  # noqa: E402
from lbanalysis.analysis.rules import rules_markdown  # noqa: E402
from lbanalysis.readers import formats  # noqa: E402

BLOCK = re.compile(r"(<!-- generated:(?P<name>[\w-]+) -->)\n?.*?\n?(<!-- /generated:(?P=name) -->)", re.S)


def formats_table() -> str:
    lines = ["| format | what it reads |", "|---|---|"]
    lines += [f"| `{name}` | {desc} |" for name, desc in formats().items()]
    return "\n".join(lines)


def render(name: str) -> str:
    if name == "formats":
        return formats_table()
    if name == "verdict-rules":
        return rules_markdown()
    if name.startswith("schema-"):
        return schema.markdown(name.removeprefix("schema-"))
    raise KeyError(name)


def update(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + "\n" + render(m.group("name")) + "\n" + m.group(3), text)


def main() -> int:
    for path in (ROOT / "README.md", ROOT / "docs" / "schema.md"):
        old = path.read_text()
        new = update(old)
        if new != old:
            path.write_text(new)
            print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
