# DELIBERATELY WRONG: testdata/python/proposed.py whose dispatcher never reads the
# thread's kernel context (every read gives the real module), for
# TestAgreementCatchesWrongFiles: it must not agree with the proposed listing
import threading
from contextlib import contextmanager


class _CudaDispatcher:
    def __getattribute__(self, name):
        fake = None  # broken: the thread's own context is never read
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
