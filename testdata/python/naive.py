# naive: numba-cuda 55a84eb7 kernelapi.py:494-509 sha256 16b7ee7d6ee9c5d2433859101ff95290bbcb6c70d11cb24d6574d6d4366bce69, cited by naive/naive.go
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
        # revert
        fn_globs.update(orig)
