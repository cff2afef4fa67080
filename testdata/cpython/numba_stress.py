"""The stress that proposed_numba.py and merged_fix_numba.py run on numba's
own CUDA simulator (Debian's numba 0.56.4), each with its fix installed: a
user module of device functions and kernels written to a temporary
directory and imported, and the scenarios the model checks (two hosts
launching at once, aborted launches, interrupts while the host waits), each
tallied. Imported from the scripts' own directory; the caller has set
NUMBA_ENABLE_CUDASIM=1 before importing numba."""

import _thread
import os
import sys
import tempfile
import threading
import time

import numpy as np
from numba import cuda  # noqa: F401 (the user module's cuda is its own import)

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


def load_user_module(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
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
