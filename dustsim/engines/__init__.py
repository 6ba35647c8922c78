"""The engines: exact PMFs and the Numba Monte Carlo kernel, with their results."""
