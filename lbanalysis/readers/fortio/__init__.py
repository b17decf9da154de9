"""fortio (the load tool of Istio and Envoy): its ``-json`` result (json.py) and what ``fortio load`` prints (text.py);
shared.py holds what they share (its status codes into counts, its duration and rate words)."""
