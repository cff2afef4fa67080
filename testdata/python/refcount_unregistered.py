# refcount-unregistered: numba-cuda 41104c54 kernelapi.py:497-527 sha256 4a929d0a2996ab02d08f3717bea398d320ee85ffab7879969c665db1489fddd9: a
# per-module lock from a bare defaultdict(threading.Lock), deleted by the
# last exit. The model in swap/refcount.go cites the line numbers of this
# file; refcount_del.py and merged.py keep "with lock:" and every line after
# it at the same numbers.
import threading
from collections import defaultdict
from contextlib import contextmanager

_globals_locks = defaultdict(threading.Lock)
_swap_refcount = defaultdict(int)
_swap_orig = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda
    fn_globs = fn.__globals__
    gid = id(fn_globs)

    # Use a lock per-modules to avoid cross-locking other modules
    lock = _globals_locks[gid]

    with lock:
        # Scan and replace globals with fake module on first entrance only
        if _swap_refcount[gid] == 0:
            orig = {k: v for k, v in fn_globs.items() if v is cuda}
            _swap_orig[gid] = orig
            for k in orig:
                fn_globs[k] = fake_cuda_module

        # Increment the reference counter on every entrance
        _swap_refcount[gid] += 1
    try:
        yield
    finally:
        with lock:
            # Decrement "number of modules using fake CUDA" counter on exit
            _swap_refcount[gid] -= 1

            # Last thread to leave the context restores real cuda
            if _swap_refcount[gid] == 0:
                fn_globs.update(_swap_orig.pop(gid))
                del _swap_refcount[gid]
                del _globals_locks[gid]
