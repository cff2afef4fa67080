# global-lock: numba-cuda 8356c6f8 kernelapi.py:496-528 sha256 f0bd68ceca4d47a626dc20230c18cf59cbcb6280e8a253b9b5975ab56658c394, the fix's first
# commit, line for line (kernelapi.py is numba_cuda/numba/cuda/simulator/
# kernelapi.py): one global lock; per module a state (the swapped names and
# a count of the entrants after the first); every entry rescans the globals
# under the lock. The model in swap/globallock.go cites the line numbers of
# this file.
import threading
from contextlib import contextmanager

_swap_state_lock = threading.Lock()
_swap_state = {}


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    globals_id = id(fn_globs)
    with _swap_state_lock:
        # Will be empty when called from an already-modified globals
        keys_to_swap = [k for k, v in fn_globs.items() if v is cuda]
        module_swaps = _swap_state.get(globals_id)
        if module_swaps is None:
            # First time into this module - swap and save the cuda references
            _swap_state[globals_id] = (keys_to_swap, 0)
            for name in keys_to_swap:
                fn_globs[name] = fake_cuda_module
        else:
            # Cuda already fake, increment refcount
            swapped_keys, refcount = module_swaps
            _swap_state[globals_id] = (swapped_keys, refcount + 1)

    try:
        yield
    finally:
        with _swap_state_lock:
            swapped_keys, refcount = _swap_state.get(globals_id)
            if refcount >= 1:
                # Decrement counter on the way out
                _swap_state[globals_id] = (swapped_keys, refcount - 1)
            else:
                # The last referrer to the fake module restores the real one.
                for name in swapped_keys:
                    fn_globs[name] = cuda
                del _swap_state[globals_id]
