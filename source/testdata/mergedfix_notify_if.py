# mergedfix_notify.py broken on purpose: the waiter does not test again once woken (if, not while);
# for source's TestConditionNotifyFromSource
import threading
from collections import defaultdict
from contextlib import contextmanager
_locks_register_lock = threading.Lock()
_globals_conds = defaultdict(threading.Condition)
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
        cond = _globals_conds[gid]

    entered, orig = False, {}
    try:
        with cond:
            if _swap_refcount[gid] and any(
                fn_globs[k] is not fake_cuda_module for k in _swap_orig[gid]
            ):
                if getattr(threading.current_thread(), "abort", False):
                    raise RuntimeError("abort flag set on device function call")
                cond.wait()  # lock released until the last thread out notifies
            # Scan and replace globals with fake module on first entrance only
            if _swap_refcount[gid] == 0:
                orig = {k: v for k, v in fn_globs.items() if v is cuda}
                _swap_orig[gid] = orig
            # Increment the reference counter on every entrance
            _swap_refcount[gid] += 1
            entered = True
            for k in orig:
                fn_globs[k] = fake_cuda_module
        yield
    finally:
        if entered:
            with cond:
                # Decrement "number of modules using fake CUDA" counter on exit
                _swap_refcount[gid] -= 1

                # Last thread to leave the context restores real cuda
                if _swap_refcount[gid] == 0:
                    orig = _swap_orig[gid]
                    del _swap_orig[gid]
                    del _swap_refcount[gid]
                    fn_globs.update(orig)
                    cond.notify_all()
