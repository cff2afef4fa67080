# A swap broken on purpose for the transactions' tests
# (source/transactions_test.go): a correct swap under one lock that also
# keeps, in _entered, the modules a thread is inside (the kernel's, which
# the host swaps for the launch, first) and raises at an exit that finds
# the first device module ever swapped last of three. With two threads
# and two device modules (-calls 2 -modules 2) only this reaches that
# order: T0 leaves dev1 (its key goes), T0 enters dev2 and T1 enters
# dev1, in that order. Those two inserts commute but for _entered's
# order, so a search that keyed _entered as a set and never learned that
# its order is read continues one of the two orders only. The test
# also runs this file with order[1] for order[2], which raises in the
# other order.
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_refcount = {}
_orig = {}
_entered = {}
_first = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    gid = id(fn_globs)
    with _lock:
        if "kernel" not in _first:
            _first["kernel"] = gid
        elif "device" not in _first:
            _first["device"] = gid
        if gid not in _refcount:
            orig = {k: v for k, v in fn_globs.items() if v is cuda}
            _orig[gid] = orig
            _refcount[gid] = 0
            for k in orig:
                fn_globs[k] = fake_cuda_module
        _refcount[gid] += 1
        _entered[gid] = True
    try:
        yield
    finally:
        with _lock:
            order = list(_entered)
            if len(order) == 3 and order[2] == _first["device"]:
                raise RuntimeError("the first device module entered last")
            _entered.pop(gid, None)
            _refcount[gid] -= 1
            if _refcount[gid] == 0:
                fn_globs.update(_orig.pop(gid))
                del _refcount[gid]
                if gid == _first["kernel"]:
                    del _first["kernel"]
                    _first.pop("device", None)
