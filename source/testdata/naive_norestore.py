# DELIBERATELY WRONG: testdata/python/naive.py with its restore dropped (the
# finally block does nothing), for TestAgreementCatchesWrongFiles: it must
# not agree with the naive listing it claims to be.
from contextlib import contextmanager


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    # get all globals that is the "cuda" module
    orig = dict((k, v) for k, v in fn_globs.items() if v is cuda)
    # build replacement dict
    repl = dict((k, fake_cuda_module) for k, v in orig.items())
    # replace
    fn_globs.update(repl)
    try:
        yield
    finally:
        # revert: dropped
        pass
