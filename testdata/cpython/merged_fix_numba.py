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

import _thread
import json
import os
import random
import sys
import tempfile
import threading
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402


USER_MODULE = '''
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def dev(i):
    a = cuda.local.array(1, np.int64)
    a[0] = 2 * i + 100 * cuda.blockDim.x
    return a[0]


@cuda.jit
def kernel(out):
    i = cuda.threadIdx.x
    out[i] = dev(i)


@cuda.jit
def raising(out, n):
    i = cuda.threadIdx.x
    if i == 0:
        raise ValueError("boom")
    for k in range(n):
        out[i] = dev(i)
'''


def load_user_module():
    d = tempfile.mkdtemp(prefix="swapcheck-merged-fix-")
    with open(os.path.join(d, "usermod.py"), "w") as f:
        f.write(USER_MODULE)
    sys.path.insert(0, d)
    import usermod
    return usermod


class Tally:
    def __init__(self):
        self.runs, self.failures, self.first = 0, 0, None
        self.lock = threading.Lock()

    def record(self, ok, what=None):
        with self.lock:
            self.runs += 1
            if not ok:
                self.failures += 1
                if self.first is None:
                    self.first = what

    def as_json(self):
        return {"runs": self.runs, "failures": self.failures, "first_failure": self.first}


def launch_ok(um, threads):
    out = np.zeros(threads, dtype=np.int64)
    um.kernel[1, threads](out)
    want = np.array([2 * i + 100 * threads for i in range(threads)])
    if not (out == want).all():
        return False, "results %s, want %s" % (list(out), list(want))
    return True, None


def checked_launch(um, threads, tally):
    try:
        ok, what = launch_ok(um, threads)
    except Exception as e:  # noqa: BLE001 - any failure of the launch counts
        ok, what = False, "%s: %s" % (type(e).__name__, e)
    tally.record(ok, what)


def two_hosts(um, rounds):
    tally = Tally()
    start = threading.Barrier(2)

    def host(threads):
        start.wait()
        for _ in range(rounds):
            checked_launch(um, threads, tally)
    hs = [threading.Thread(target=host, args=(n,)) for n in (3, 4)]
    for h in hs:
        h.start()
    for h in hs:
        h.join()
    return tally


def aborted_launch(um, rounds):
    tally = Tally()
    for _ in range(rounds):
        out = np.zeros(2, dtype=np.int64)
        try:
            um.raising[1, 2](out, 300)
            tally.record(False, "the raising kernel did not raise")
            continue
        except ValueError:
            pass
        for _ in range(3):  # while its sibling may still linger
            checked_launch(um, 2, tally)
    return tally


def interrupts(um, rounds, rng):
    tally = Tally()
    for _ in range(rounds):
        delay = rng.uniform(0, 0.004)
        timer = threading.Timer(delay, _thread.interrupt_main)
        try:
            timer.start()
            for _ in range(3):
                launch_ok(um, 3)
            time.sleep(0.05)  # the interrupt lands here if the launches were quick
        except KeyboardInterrupt:
            pass
        except Exception as e:  # noqa: BLE001
            tally.record(False, "%s: %s" % (type(e).__name__, e))
        timer.join()
        try:  # an interrupt set but not yet raised is raised here, not later
            time.sleep(0.001)
        except KeyboardInterrupt:
            pass
        checked_launch(um, 3, tally)
    return tally


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
    um = load_user_module()
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
