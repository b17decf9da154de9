"""crank (the .NET job runner of the ASP.NET and YARP benchmarks): its JSON results (json.py)."""
