# DELIBERATELY WRONG: testdata/python/proposed.py whose dispatcher gives a thread
# outside any launch the last launch's fake, for TestAgreementCatchesWrongFiles:
# after the launch the module's dispatcher no longer acts as the real module
import threading
from contextlib import contextmanager


_last = [None]


class _CudaDispatcher:
    def __getattribute__(self, name):
        fake = getattr(threading.current_thread(), "kernel_context", None)
        if fake is not None:
            _last[0] = fake  # broken: remembered for threads outside a launch
            return getattr(fake, name)
        if _last[0] is not None:
            return getattr(_last[0], name)
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
