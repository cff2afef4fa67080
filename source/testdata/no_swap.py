# A swap function that swaps nothing and never names numba: it loads,
# and the search finds a use that sees the real module.
from contextlib import contextmanager


@contextmanager
def swapped_cuda_module(fn, fake):
    import os
    yield
