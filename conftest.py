"""Root pytest configuration: stable reprs for doctests across numpy versions."""

import numpy as np

np.set_printoptions(legacy="1.25")
