"""HAProxy: ``show stat`` CSV and ``show stat typed`` (stat.py), ``show info`` (info.py)."""
