# refcount-del: numba-cuda 67acbfbd kernelapi.py:498-531 sha256 9d317a4a361d31d8edf3deda3733b907e0752dbc6fe39690341c506dc607a62f, swap/refcount.go
import threading
from collections import defaultdict
from contextlib import contextmanager

_locks_register_lock = threading.Lock()
_globals_locks = defaultdict(threading.Lock)
_swap_refcount = defaultdict(int)
_swap_orig = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda
    fn_globs = fn.__globals__
    gid = id(fn_globs)

    # Use a per-module lock to avoid cross-locking other modules. Protect
    # creation of lock keys with a global lock to avoid multiple locks per
    # module.
    with _locks_register_lock:
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
