# A swap with one global lock whose exit forgets the count of the last
# module it counted (list(_swap_refcount)[-1]), not its own: a bug only
# the order of the registry's keys shows. Used by
# TestTransactionsKeepEveryKind (source/transactions_test.go).
import threading
from collections import defaultdict
from contextlib import contextmanager

_swap_lock = threading.Lock()
_swap_refcount = defaultdict(int)
_swap_orig = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    gid = id(fn_globs)
    with _swap_lock:
        if _swap_refcount[gid] == 0:
            orig = {k: v for k, v in fn_globs.items() if v is cuda}
            _swap_orig[gid] = orig
            for k in orig:
                fn_globs[k] = fake_cuda_module
        _swap_refcount[gid] += 1
    try:
        yield
    finally:
        with _swap_lock:
            _swap_refcount[gid] -= 1
            if _swap_refcount[gid] == 0:
                fn_globs.update(_swap_orig.pop(gid))
                del _swap_refcount[list(_swap_refcount)[-1]]
