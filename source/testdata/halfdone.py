# A swap broken on purpose for the transactions' tests
# (source/transactions_test.go): every entrant marks the module "busy"
# under the lock while it swaps, and the exit reads that mark without the
# lock and raises when it sees it. Only an exit that reads between an
# entrant's two writes of the mark sees it: the mark's writes hold the lock
# and the exit's read does not, so the search's locksets must break and
# take those writes out of the movers; a reduction that did not would join
# the entrant's lock block into one step and never see the mark.
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_busy = {}
_count = {}
_orig = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    gid = id(fn_globs)
    with _lock:
        _busy[gid] = True
        if _count.get(gid, 0) == 0:
            orig = {k: v for k, v in fn_globs.items() if v is cuda}
            _orig[gid] = orig
            for k in orig:
                fn_globs[k] = fake_cuda_module
        _count[gid] = _count.get(gid, 0) + 1
        del _busy[gid]
    try:
        yield
    finally:
        if gid in _busy:  # read without the lock
            raise RuntimeError("saw an entrant's swap half done")
        with _lock:
            _count[gid] -= 1
            if _count[gid] == 0:
                fn_globs.update(_orig.pop(gid))
                del _count[gid]
