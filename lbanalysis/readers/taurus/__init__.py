"""Taurus (``bzt``): the final stats its ``final-stats`` reporter logs after a test (text.py)."""
