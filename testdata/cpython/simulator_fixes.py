"""What the fixes for the CUDA simulator's atomics and shared-array races
(docs/simulator-races.md) cost, and whether they hold on real threads.

Run with a Python whose numba has the CUDA simulator (Debian's
/usr/bin/python3 with python3-numba 0.56.4):

    NUMBA_ENABLE_CUDASIM=1 /usr/bin/python3 testdata/cpython/simulator_fixes.py [--quick]

The fixes are made from numba's own kernelapi.py source, as text:

- Fix A: every FakeCUDAAtomic operation under one module-level lock
  (numba has one lock per operation kind, so add and sub interleave).
- Fix A': one lock per array: the lock of the ndarray that owns the
  array's memory, kept in a dict keyed by its id.
- Fix B: FakeCUDAShared.array stores a missed allocation with
  self._allocations.setdefault(caller, np.empty(shape, dtype)), so that
  threads that miss together all get the first one stored.

Each patched source is written to a temporary file and executed as a
module; its FakeCUDAAtomic methods (or FakeCUDAShared.array) are then
patched onto numba's kernelapi classes for a measurement and put back
after it. `--write-patched DIR` writes the patched sources to
DIR/kernelapi.py.{fixA,fixA2,fixB} and exits (docs/simulator-fixes.md's
diffs are made from them).

Measurements:

- cost (timeit, best of 5 repeats, ns per call, one thread, default
  switch interval): one FakeCUDAAtomic().add(arr, 0, 1) on a plain int64
  ndarray and on the FakeWithinKernelCUDAArray(FakeCUDAArray(ndarray)) a
  kernel sees (kernel.py's fake_arg), unpatched, Fix A and Fix A'; one
  FakeCUDAShared(0).array(4, np.int64) from one call site that finds its
  allocation (hit) and one on a fresh FakeCUDAShared (miss; the objects are
  built in timeit's setup, the statement is next(it).array(...)),
  unpatched and Fix B.
- stress (sys.setswitchinterval(1e-6), numba's real kernel launch,
  kernel[1, 32]): atomics: even threads cuda.atomic.add(a, 0, 1), odd
  threads cuda.atomic.sub(a, 0, 1), 50 times each; a launch fails if a[0]
  ends non-zero. shared: each thread s = cuda.shared.array(32, int64),
  s[tid] = tid + 1, syncthreads, out[tid] = sum of s; a launch fails if
  any out[tid] != 528. Also the atomics stress on 32 plain
  threading.Threads calling FakeCUDAAtomic().add/.sub on a plain ndarray
  (no kernel, no wrapper).

Prints one JSON object on stdout and a table on stderr.
"""
import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import time
import timeit
import types

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.simulator import kernelapi  # noqa: E402
from numba.cuda.simulator.cudadrv.devicearray import (  # noqa: E402
    FakeCUDAArray, FakeWithinKernelCUDAArray)

THREADS = 32
REPS = 50  # atomic operations per thread per launch
SHARED_SUM = THREADS * (THREADS + 1) // 2  # 528
ATOMIC_METHODS = ("add", "sub", "and_", "or_", "xor", "inc", "dec", "exch",
                  "max", "min", "nanmax", "nanmin", "compare_and_swap")

# ---------------------------------------------------------------------------
# The fixes, as edits of numba's kernelapi.py source

LOCKS_RE = re.compile(r"^addlock = threading\.Lock\(\)\n(?:\w+lock = threading\.Lock\(\)\n)+",
                      re.M)
WITH_RE = re.compile(r"with \w+lock:")

FIX_A_LOCKS = """\
# One lock for every atomic operation: operations of different kinds on one
# element (an add and a sub, say) must exclude each other too.
atomiclock = threading.Lock()
"""

FIX_A2_IMPORT = "from .cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray\n"

FIX_A2_LOCKS = """\
# One lock per array: every atomic operation on an array runs under the lock
# of the ndarray that owns its memory (views, and np.frombuffer arrays over
# an ndarray's memoryview, share their owner's lock). The dict is keyed by
# id and never shrinks; a new array that reuses a dead one's id shares its
# lock, which is harmless.
atomiclocks = {}


def atomiclock(array):
    if isinstance(array, FakeWithinKernelCUDAArray):
        array = array._item
    if isinstance(array, FakeCUDAArray):
        array = array._ary
    while True:
        base = array.base
        if isinstance(base, memoryview):
            base = base.obj
        if not isinstance(base, np.ndarray):
            break
        array = base
    lock = atomiclocks.get(id(array))
    if lock is None:
        lock = atomiclocks.setdefault(id(array), threading.Lock())
    return lock
"""

FIX_B_OLD = """\
        if res is None:
            res = np.empty(shape, dtype)
            self._allocations[caller] = res
"""

FIX_B_NEW = """\
        if res is None:
            # Threads of a block that miss together must all get one array:
            # the first to store wins.
            res = self._allocations.setdefault(caller, np.empty(shape, dtype))
"""


def fix_a(src):
    src, n = LOCKS_RE.subn(FIX_A_LOCKS, src)
    assert n == 1, "lock definitions not found"
    src, n = WITH_RE.subn("with atomiclock:", src)
    assert n == len(ATOMIC_METHODS), n
    return src


def fix_a2(src):
    anchor = "from .vector_types import vector_types\n"
    assert src.count(anchor) == 1
    src = src.replace(anchor, anchor + FIX_A2_IMPORT)
    src, n = LOCKS_RE.subn(FIX_A2_LOCKS, src)
    assert n == 1, "lock definitions not found"
    src, n = WITH_RE.subn("with atomiclock(array):", src)
    assert n == len(ATOMIC_METHODS), n
    return src


def fix_b(src):
    assert src.count(FIX_B_OLD) == 1, "FakeCUDAShared.array's miss not found"
    return src.replace(FIX_B_OLD, FIX_B_NEW)


FIXES = {"fixA": fix_a, "fixA2": fix_a2, "fixB": fix_b}


def original_source():
    with open(kernelapi.__file__) as f:
        return f.read()


def write_patched(directory):
    src = original_source()
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for tag, fix in FIXES.items():
        path = os.path.join(directory, "kernelapi.py." + tag)
        with open(path, "w") as f:
            f.write(fix(src))
        paths[tag] = path
    return paths


def load(path, tag):
    """Executes a patched kernelapi source (a real file, so that
    traceback.extract_stack's linecache work is the same as numba's) as a
    module of numba.cuda.simulator."""
    mod = types.ModuleType("numba.cuda.simulator._kernelapi_" + tag)
    mod.__package__ = "numba.cuda.simulator"
    mod.__file__ = path
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    exec(code, mod.__dict__)
    return mod


@contextlib.contextmanager
def atomics_from(mod):
    """numba's FakeCUDAAtomic with mod's methods (mod None: unpatched)."""
    cls = kernelapi.FakeCUDAAtomic
    saved = {m: vars(cls)[m] for m in ATOMIC_METHODS}
    if mod is not None:
        for m in ATOMIC_METHODS:
            setattr(cls, m, vars(mod.FakeCUDAAtomic)[m])
    try:
        yield
    finally:
        for m, f in saved.items():
            setattr(cls, m, f)


@contextlib.contextmanager
def shared_from(mod):
    """numba's FakeCUDAShared with mod's array (mod None: unpatched)."""
    cls = kernelapi.FakeCUDAShared
    saved = vars(cls)["array"]
    if mod is not None:
        cls.array = vars(mod.FakeCUDAShared)["array"]
    try:
        yield
    finally:
        cls.array = saved


# ---------------------------------------------------------------------------
# Costs

def best_ns(stmt, globs, number, setup="pass"):
    t = timeit.Timer(stmt, setup, globals=globs)
    t.timeit(1)  # a first call (the shared hit's allocation is made here)
    return round(min(t.repeat(5, number)) / number * 1e9, 1)


def kernel_arg_type():
    """The type of the array argument inside a kernel, to check that the
    wrapped array timed below is what kernels see."""
    seen = []

    @cuda.jit
    def probe(a):
        seen.append((type(a), type(a._item)))
    probe[1, 1](np.zeros(1, dtype=np.int64))
    return seen[0]


def atomic_costs(mods, number):
    assert kernel_arg_type() == (FakeWithinKernelCUDAArray, FakeCUDAArray)
    out = {}
    for name, mod in mods:
        row = {}
        with atomics_from(mod):
            at = kernelapi.FakeCUDAAtomic()
            plain = np.zeros(1, dtype=np.int64)
            wrapped = FakeWithinKernelCUDAArray(FakeCUDAArray(np.zeros(1, dtype=np.int64)))
            row["ndarray"] = best_ns("at.add(arr, 0, 1)", {"at": at, "arr": plain}, number)
            row["wrapped"] = best_ns("at.add(arr, 0, 1)", {"at": at, "arr": wrapped}, number)
            assert plain[0] > 0 and wrapped._item._ary[0] > 0
        out[name] = row
    return out


def shared_costs(mods, number):
    out = {}
    for name, mod in mods:
        row = {}
        with shared_from(mod):
            sh = kernelapi.FakeCUDAShared(0)
            g = {"sh": sh, "int64": np.int64, "FakeCUDAShared": kernelapi.FakeCUDAShared}
            row["hit"] = best_ns("sh.array(4, int64)", g, number)
            assert len(sh._allocations) == 1, sh._allocations
            row["miss"] = best_ns(
                "next(it).array(4, int64)", g, number,
                setup="it = iter([FakeCUDAShared(0) for _ in range(%d)])" % (number + 1))
        out[name] = row
    return out


# ---------------------------------------------------------------------------
# Stress on real threads

@cuda.jit
def atomics_kernel(a):
    tid = cuda.threadIdx.x
    for _ in range(REPS):
        if tid % 2 == 0:
            cuda.atomic.add(a, 0, 1)
        else:
            cuda.atomic.sub(a, 0, 1)


@cuda.jit
def shared_kernel(out):
    tid = cuda.threadIdx.x
    s = cuda.shared.array(THREADS, dtype=np.int64)
    s[tid] = tid + 1
    cuda.syncthreads()
    t = 0
    for i in range(THREADS):
        t += s[i]
    out[tid] = t


def stress_atomics(launches):
    values = []
    for _ in range(launches):
        a = np.zeros(1, dtype=np.int64)
        atomics_kernel[1, THREADS](a)
        values.append(int(a[0]))
    return {"launches": launches, "failed": sum(v != 0 for v in values), "values": values}


def stress_atomics_plain(rounds):
    """The atomics stress without a kernel: THREADS threading.Threads call
    FakeCUDAAtomic().add / .sub on a plain ndarray."""
    values = []
    at = kernelapi.FakeCUDAAtomic()
    for _ in range(rounds):
        a = np.zeros(1, dtype=np.int64)
        go = threading.Barrier(THREADS)

        def work(i):
            op = at.add if i % 2 == 0 else at.sub
            go.wait()
            for _ in range(REPS):
                op(a, 0, 1)
        ts = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        values.append(int(a[0]))
    return {"launches": rounds, "failed": sum(v != 0 for v in values), "values": values}


def stress_shared(launches):
    failed = 0
    bad_threads = 0
    for _ in range(launches):
        out = np.zeros(THREADS, dtype=np.int64)
        shared_kernel[1, THREADS](out)
        bad = int(np.count_nonzero(out != SHARED_SUM))
        bad_threads += bad
        failed += bad > 0
    return {"launches": launches, "failed": failed, "bad_threads": bad_threads}


@contextlib.contextmanager
def switchinterval(seconds):
    saved = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def timed(f, *args):
    t0 = time.perf_counter()
    r = f(*args)
    r["seconds"] = round(time.perf_counter() - t0, 2)
    return r


# ---------------------------------------------------------------------------

def table(r):
    lines = ["python %s, numba %s, numpy %s, %s, nproc %s" % (
        r["python"], r["numba"], r["numpy"], r["machine"], r["nproc"]), ""]
    lines.append("cost, ns per call (timeit, best of 5 repeats of %d calls; shared.array %d)" % (
        r["timeit_number"], r["timeit_number_shared"]))
    lines.append("  %-34s %10s %10s %10s" % ("", "unpatched", "fix A", "fix A'"))
    c = r["cost"]["atomic_add"]
    for k, label in (("ndarray", "atomic.add, plain ndarray"),
                     ("wrapped", "atomic.add, kernel's wrapped array")):
        lines.append("  %-34s %10.1f %10.1f %10.1f" % (
            label, c["unpatched"][k], c["fixA"][k], c["fixA2"][k]))
    lines.append("  %-34s %10s %10s" % ("", "unpatched", "fix B"))
    c = r["cost"]["shared_array"]
    for k, label in (("hit", "shared.array, hit"), ("miss", "shared.array, miss")):
        lines.append("  %-34s %10.1f %10.1f" % (label, c["unpatched"][k], c["fixB"][k]))
    lines.append("")
    lines.append("stress, failed launches (switch interval %g s, %d threads)" % (
        r["switchinterval"], THREADS))
    s = r["stress"]
    for k, label in (("atomics_kernel", "atomics, kernel[1, 32]"),
                     ("atomics_plain_threads", "atomics, plain ndarray, no kernel"),
                     ("shared_kernel", "shared.array, kernel[1, 32]")):
        for fix in ("unpatched", "fixA", "fixB"):
            if fix in s[k]:
                x = s[k][fix]
                lines.append("  %-34s %-10s %4d / %-4d (%.1f s)" % (
                    label, fix, x["failed"], x["launches"], x["seconds"]))
    lines.append("")
    lines.append("total %.1f s" % r["seconds"])
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write-patched", metavar="DIR")
    args = ap.parse_args()
    if args.write_patched:
        for tag, path in write_patched(args.write_patched).items():
            print(path)
        return

    t0 = time.perf_counter()
    number = 20000 if args.quick else 200000
    shared_number = 2000 if args.quick else 20000
    atomic_launches = 3 if args.quick else 20
    shared_launches = 20 if args.quick else 200

    tmp = tempfile.mkdtemp(prefix="simulator_fixes.")
    try:
        paths = write_patched(tmp)
        mods = {tag: load(path, tag) for tag, path in paths.items()}
        cost = {
            "atomic_add": atomic_costs(
                [("unpatched", None), ("fixA", mods["fixA"]), ("fixA2", mods["fixA2"])], number),
            "shared_array": shared_costs(
                [("unpatched", None), ("fixB", mods["fixB"])], shared_number),
        }
        stress = {"atomics_kernel": {}, "atomics_plain_threads": {}, "shared_kernel": {}}
        with switchinterval(1e-6):
            for fix in ("unpatched", "fixA"):
                with atomics_from(mods.get(fix)):
                    stress["atomics_kernel"][fix] = timed(stress_atomics, atomic_launches)
                    stress["atomics_plain_threads"][fix] = timed(
                        stress_atomics_plain, atomic_launches)
            for fix in ("unpatched", "fixB"):
                with shared_from(mods.get(fix)):
                    stress["shared_kernel"][fix] = timed(stress_shared, shared_launches)
    finally:
        shutil.rmtree(tmp)

    report = {
        "python": sys.version.split()[0],
        "numba": numba.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
        "nproc": os.cpu_count(),
        "quick": args.quick,
        "timeit_number": number,
        "timeit_number_shared": shared_number,
        "switchinterval": 1e-6,
        "threads": THREADS,
        "atomic_reps_per_thread": REPS,
        "cost": cost,
        "stress": stress,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(report, sort_keys=True))
    print(table(report), file=sys.stderr)


if __name__ == "__main__":
    main()
