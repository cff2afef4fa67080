#!/usr/bin/env python3
"""merged-fix (docs/merged_fix.md) on numba's real CUDA simulator.

Usage: PYTHONPATH=OVERLAY /usr/bin/python3 merged_fix_numba.py

OVERLAY is what scripts/merged-fix-check.sh makes: Debian's numba 0.56.4
with numba-cuda d41b90d3's kernel.py and swapped_cuda_module, both patched
as docs/merged_fix.md's diff says (scripts/merged-fix-patch.py). Run it
without the overlay's patch (the overlay of --commit d41b90d3) to see
merged fail the same scenarios.

It runs, on real threads, what the model checks (a stress, not a proof:
the interleavings are the OS's):
  two_hosts       two host threads launch kernels at once, each with its
                  own blockDim, many times; every result must be its own.
  aborted_launch  a kernel raises in one thread while its sibling keeps
                  calling a device function; the next launches must be
                  right.
  interrupts      KeyboardInterrupt (_thread.interrupt_main) lands at
                  random points of launches on the main thread; the
                  launches after each must be right.
  host_side       after the launches the module's cuda is numba.cuda
                  itself, cuda.to_device works from the host, and a device
                  function called from the host fails as it does today.

Prints ONE JSON object: {"overlay": str, "scenarios": {name: {"runs": n,
"failures": n, "first_failure": str or null}}}.
"""

import json
import os
import random
import sys
import threading

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402


from numba_stress import (  # noqa: E402 (the stress both fixes run)
    Tally, aborted_launch, interrupts, load_user_module, two_hosts)


def host_side(um):
    tally = Tally()
    tally.record(um.cuda is numba.cuda, "the module's cuda is %r, not numba.cuda" % (um.cuda,))
    arr = um.cuda.to_device(np.arange(3))
    tally.record(list(arr.copy_to_host()) == [0, 1, 2], "cuda.to_device from the host")
    try:
        um.dev(1)
        tally.record(False, "a device function called from the host did not fail")
    except AttributeError as e:
        tally.record("has no attribute 'local'" in str(e), "host call: %s" % e)
    tally.record(um.cuda is numba.cuda, "after the host call the module's cuda is %r" % (um.cuda,))
    return tally


def main():
    sim = os.path.dirname(os.path.abspath(numba.cuda.simulator.kernel.__file__))
    try:
        with open(os.path.join(sim, "SWAPCHECK_OVERLAY.txt")) as f:
            overlay = f.read().strip()
    except OSError:
        overlay = "no overlay: numba's own simulator"
    um = load_user_module("swapcheck-merged-fix-")
    rng = random.Random(1)
    res = {
        "two_hosts": two_hosts(um, 40).as_json(),
        "aborted_launch": aborted_launch(um, 15).as_json(),
        "interrupts": interrupts(um, 40, rng).as_json(),
        "host_side": host_side(um).as_json(),
    }
    print(json.dumps({"overlay": overlay, "scenarios": res}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
