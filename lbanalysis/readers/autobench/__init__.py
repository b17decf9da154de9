"""autobench: the results table it writes (TSV or CSV), and the same table pasted as Markdown or in columns (table.py)."""
