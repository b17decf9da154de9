"""Root pytest configuration: stable reprs for doctests across numpy versions."""

import numpy as np

np.set_printoptions(legacy="1.25")

# Deprecated shims of moved modules: they warn on import, and their doctests live where the code moved.
collect_ignore = ["lbanalysis/paths.py", "lbanalysis/reference.py", "lbanalysis/explore.py"]
