# global-lock: the first commit of the fix, reconstructed from its description
# (one global lock; per module a state of saved names and a refcount; every
# entry rescans the globals under the lock). The model in swap/globallock.go
# cites the line numbers of this file.
import threading
from contextlib import contextmanager

_swap_lock = threading.Lock()
_swap_state = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda
    fn_globs = fn.__globals__
    gid = id(fn_globs)
    with _swap_lock:
        state = _swap_state.setdefault(gid, [{}, 0])
        orig = {k: v for k, v in fn_globs.items() if v is cuda}
        state[0].update(orig)
        for k in orig:
            fn_globs[k] = fake_cuda_module
        state[1] += 1
    try:
        yield
    finally:
        with _swap_lock:
            state[1] -= 1
            if state[1] == 0:
                fn_globs.update(state[0])
                del _swap_state[gid]
