"""iperf 2 and iperf3: iperf2.py (text), iperf2_csv.py (``-y C``), iperf3.py (text), iperf3_json.py (``-J``); shared.py: flows, commands, what both read."""
