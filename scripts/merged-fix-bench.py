#!/usr/bin/env python3
"""Per-use cost of cuda. in the CUDA simulator: merged, merged-fix, proposed.

    PYTHONPATH=OVERLAY /usr/bin/python3 scripts/merged-fix-bench.py [--proposed]

OVERLAY is a numba overlay (scripts/numba-overlay.py; scripts/merged-fix-check.sh
makes the ones for merged and merged-fix). --proposed applies proposed's
patch at run time instead (testdata/cpython/proposed_numba.py's
apply_patch; run it without an overlay). Prints one line per figure, the best
of 51 repeats (short loops, so that one of them runs without the host's
polling taking the GIL), in ns per use, and in parentheses the whole pass
of the loop that reads it once:

  kernel_local   one "cuda.local" read in a device function, inside a
                 launch (one thread; a loop of 10000 reads, minus the same
                 loop reading a plain global)
  device_call    one call of an empty device function in the kernel's
                 module, from the kernel (one thread; the module is swapped
                 already, by the launch): the swap's entry and exit
  host_to_device one "cuda.to_device" read (the attribute, not the call) in
                 a function of the user's module on the host, after a launch
"""
import os
import sys
import tempfile
import timeit

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: F401,E402

HERE = os.path.dirname(os.path.abspath(__file__))
N, REPEAT = 10000, 51

USER_MODULE = '''
import time
from numba import cuda
import numpy as np

plain = object()


@cuda.jit(device=True)
def uses(n, out):
    best_local = best_plain = 1e9
    for _ in range(51):
        t0 = time.perf_counter()
        for _ in range(n):
            cuda.local
        t1 = time.perf_counter()
        for _ in range(n):
            plain
        t2 = time.perf_counter()
        best_local, best_plain = min(best_local, t1 - t0), min(best_plain, t2 - t1)
    out[0] = (best_local - best_plain) / n * 1e9
    out[1] = best_local / n * 1e9


@cuda.jit(device=True)
def empty():
    pass


@cuda.jit
def kernel(out, n):
    uses(n, out)
    best = 1e9
    for _ in range(51):
        t0 = time.perf_counter()
        for _ in range(n // 100):
            empty()
        best = min(best, time.perf_counter() - t0)
    out[2] = best / (n // 100) * 1e9


def host_reads(n):
    for _ in range(n):
        cuda.to_device


def host_plain(n):
    for _ in range(n):
        plain
'''


def main():
    if "--proposed" in sys.argv[1:]:
        sys.path.insert(0, os.path.join(HERE, "..", "testdata", "cpython"))
        import proposed_numba
        proposed_numba.apply_patch()
        what = "proposed (patched at run time)"
    else:
        sim = os.path.dirname(numba.cuda.simulator.kernel.__file__)
        try:
            with open(os.path.join(sim, "SWAPCHECK_OVERLAY.txt")) as f:
                what = f.read().strip()
        except OSError:
            what = "numba's own simulator"
    d = tempfile.mkdtemp(prefix="swapcheck-bench-")
    with open(os.path.join(d, "benchmod.py"), "w") as f:
        f.write(USER_MODULE)
    sys.path.insert(0, d)
    import benchmod
    out = np.zeros(3)
    benchmod.kernel[1, 1](out, N)
    local = out[0]
    reads = min(timeit.repeat(lambda: benchmod.host_reads(N), number=1, repeat=REPEAT))
    plain = min(timeit.repeat(lambda: benchmod.host_plain(N), number=1, repeat=REPEAT))
    print("# %s; python %s" % (what, sys.version.split()[0]))
    print("kernel_local %.1f ns (the loop's pass: %.1f ns)" % (local, out[1]))
    print("device_call %.1f ns" % out[2])
    print("host_to_device %.1f ns (the loop's pass: %.1f ns)" % ((reads - plain) / N * 1e9, reads / N * 1e9))


if __name__ == "__main__":
    main()
