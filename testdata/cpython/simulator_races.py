"""The CUDA simulator's two other races (issue 30), forced on numba's real
simulator, and the fixes that close them.

Run with a Python whose numba has the CUDA simulator (Debian's
/usr/bin/python3 with python3-numba 0.56.4):

    NUMBA_ENABLE_CUDASIM=1 /usr/bin/python3 testdata/cpython/simulator_races.py

It prints one JSON object; pyreplay's TestSimulatorRacesOnNumba reads it.
Each case launches a real kernel on the simulator's real threads and
forces one interleaving with an opcode-level trace hook on the simulator's
own functions (numba/cuda/simulator/kernelapi.py), so the outcome is the
same on every run:

- lost-update: kernelapi.py's FakeCUDAAtomic.add holds addlock and .sub
  holds sublock, so nothing excludes one from the other. Thread 0 runs
  cuda.atomic.add(a, 0, 1) up to the STORE_SUBSCR of
  "array[index] += val" (it has read a[0]), thread 1 runs
  cuda.atomic.sub(a, 0, 1) whole, then thread 0 stores what it computed:
  a[0] ends 1, not 0, and thread 1's update is lost.
- lost-update-fixed: the same, with add and sub under one lock: thread 1
  cannot start its sub while thread 0 holds the lock, the hook stops
  waiting for it (a short timeout), and a[0] ends 0.
- shared-not-shared: FakeCUDAShared.array reads
  self._allocations.get(caller) and, on a miss, stores a fresh np.empty.
  Thread 0 stops after the get (it missed), thread 1 calls
  cuda.shared.array whole (it misses too and stores its array), then
  thread 0 stores its own: the two threads of one block hold different
  "shared" arrays, and a kernel that fills the array and sums it after
  syncthreads sums garbage.
- shared-fixed: the same, with the allocation made by
  self._allocations.setdefault(caller, np.empty(...)): thread 0's store
  finds thread 1's array and both hold it.
"""
import dis
import json
import os
import sys
import threading

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.simulator import kernelapi  # noqa: E402

WAIT = 5.0  # seconds thread 1 waits for thread 0 to stop where it is forced
RELEASE = 1.0  # seconds thread 0 waits there for thread 1 (in vain, with a fix)


class Forcer:
    """Stops the thread running code `code` just before it runs its first
    instruction `opname`, or (with `line`) the first line whose source
    holds that text, until `release` is set or WAIT seconds pass."""

    def __init__(self, code, opname=None, line=None):
        self.code, self.opname = code, opname
        self.line = None
        if line is not None:
            import inspect
            src, first = inspect.getsourcelines(code)
            self.line = next(first + i for i, text in enumerate(src) if line in text)
        self.done = False
        self.release = threading.Event()
        self.stopped = threading.Event()
        self.timed_out = False
        self.ops = {i.offset: i.opname for i in dis.get_instructions(code)}

    def hook(self, frame, event, arg):
        if frame.f_code is not self.code:
            return None
        frame.f_trace_opcodes = self.opname is not None

        def local(frame, event, arg):
            if self.done:
                return local
            hit = (event == "opcode" and self.ops.get(frame.f_lasti) == self.opname) or \
                  (event == "line" and self.line is not None and frame.f_lineno == self.line)
            if hit:
                self.done = True
                self.stopped.set()
                if not self.release.wait(RELEASE):
                    self.timed_out = True
            return local
        return local


def only_thread(tid, hook):
    """A settrace hook that runs hook in the kernel's thread tid only."""
    def trace(frame, event, arg):
        t = threading.current_thread()
        if getattr(t, "threadIdx", None) is not None and t.threadIdx.x == tid:
            return hook(frame, event, arg)
        return None
    return trace


def run_atomics(fixed):
    """Thread 0 adds 1 and thread 1 subtracts 1 at a[0]; returns a[0]."""
    atomic = kernelapi.FakeCUDAAtomic
    saved = (atomic.add, atomic.sub)
    if fixed:
        one = threading.Lock()

        def add(self, array, index, val):
            with one:
                old = array[index]
                array[index] += val
            return old

        def sub(self, array, index, val):
            with one:
                old = array[index]
                array[index] -= val
            return old
        atomic.add, atomic.sub = add, sub
    forcer = Forcer(atomic.add.__code__, opname="STORE_SUBSCR")

    @cuda.jit
    def kernel(a):
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(a, 0, 1)
        else:
            # thread 1 starts its sub once thread 0 has read a[0]
            forcer.stopped.wait(WAIT)
            cuda.atomic.sub(a, 0, 1)
            forcer.release.set()

    a = np.zeros(1, dtype=np.int64)
    threading.settrace(only_thread(0, forcer.hook))
    try:
        kernel[1, 2](a)
    finally:
        threading.settrace(None)
        atomic.add, atomic.sub = saved
    return {"value": int(a[0]), "expected": 0, "forced": forcer.stopped.is_set(),
            "thread0_waited_out": forcer.timed_out}


def run_shared(fixed):
    """Each of 2 threads writes its slot of a shared array, syncs, and sums
    it; returns whether both threads got one array, and the sums."""
    shared = kernelapi.FakeCUDAShared
    saved = shared.array
    if fixed:
        import traceback

        def array(self, shape, dtype):
            # the fix: one allocation per call site, whoever misses first
            from numba.core import types
            from numba.np import numpy_support
            if isinstance(dtype, types.Type):
                dtype = numpy_support.as_dtype(dtype)
            if shape == 0:
                count = self._dynshared_size // dtype.itemsize
                return np.frombuffer(self._dynshared.data, dtype=dtype, count=count)
            stack = traceback.extract_stack(sys._getframe())
            caller = stack[-2][0:2]
            res = self._allocations.get(caller)
            if res is None:
                res = self._allocations.setdefault(caller, np.empty(shape, dtype))
            return res
        shared.array = array
    # thread 0 stops after its get missed, before it stores its array:
    # at "self._allocations[caller] = res" (the fix: at its setdefault)
    if fixed:
        forcer = Forcer(shared.array.__code__, line="setdefault")
    else:
        forcer = Forcer(shared.array.__code__, line="self._allocations[caller] = res")
    ids = [0, 0]
    sums = [0, 0]

    @cuda.jit
    def kernel(out):
        tid = cuda.threadIdx.x
        if tid == 1:
            forcer.stopped.wait(WAIT)
        s = cuda.shared.array(2, dtype=np.int64)
        if tid == 1:
            forcer.release.set()
        s[tid] = tid + 1
        ids[tid] = id(s)
        cuda.syncthreads()
        out[tid] = s[0] + s[1]

    out = np.zeros(2, dtype=np.int64)
    threading.settrace(only_thread(0, forcer.hook))
    try:
        kernel[1, 2](out)
    finally:
        threading.settrace(None)
        shared.array = saved
    return {"one_array": ids[0] == ids[1], "sums": [int(x) for x in out], "expected_sum": 3,
            "forced": forcer.stopped.is_set()}


def main():
    import numba
    report = {
        "python": sys.version.split()[0],
        "numba": numba.__version__,
        "lost-update": run_atomics(False),
        "lost-update-fixed": run_atomics(True),
        "shared-not-shared": run_shared(False),
        "shared-fixed": run_shared(True),
    }
    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    main()
