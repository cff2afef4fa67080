# proposed: swapcheck's own fix, not numba-cuda's code (docs/proposed_fix.md
# says why each line). Each module's cuda names are pointed, once and for
# good, at one dispatcher that forwards every attribute to the calling
# thread's own launch's fake module (the kernel context a BlockThread
# carries, kernel.py patched as docs/proposed_fix.md shows), or to the real
# module outside a launch. Nothing is restored, so nothing is counted or
# locked. swap/proposed.go cites the line numbers of this file.
import threading
from contextlib import contextmanager


class _CudaDispatcher:
    def __getattribute__(self, name):
        fake = getattr(threading.current_thread(), "kernel_context", None)
        if fake is not None:
            return getattr(fake, name)
        from numba import cuda
        return getattr(cuda, name)


_dispatcher = _CudaDispatcher()


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    for k in [k for k, v in fn_globs.items() if v is cuda]:
        fn_globs[k] = _dispatcher
    yield
