"""Full benchmark run: ``python benchmarks/bench_kernel.py [--quick]``.

Every figure is a ratio against a baseline measured in the same process (see dustsim.bench);
kernels are compiled and warmed before timing.
"""

import sys

from dustsim.bench import format_results, run

if __name__ == "__main__":
    print(format_results(run(quick="--quick" in sys.argv)))
