# DELIBERATELY WRONG: testdata/python/merged.py with the count check of
# line 26 removed (every entrant collects and swaps), for
# TestAgreementCatchesWrongFiles: it must not agree with the merged listing
# it claims to be.
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

    with _locks_register_lock:
        lock = _globals_locks[gid]

    with lock:
        # the count check is gone: a second entrant collects nothing (the
        # module is already swapped) and overwrites the saved names
        orig = {k: v for k, v in fn_globs.items() if v is cuda}
        _swap_orig[gid] = orig
        for k in orig:
            fn_globs[k] = fake_cuda_module

        _swap_refcount[gid] += 1
    try:
        yield
    finally:
        with lock:
            _swap_refcount[gid] -= 1

            if _swap_refcount[gid] == 0:
                fn_globs.update(_swap_orig.pop(gid))
                del _swap_refcount[gid]
