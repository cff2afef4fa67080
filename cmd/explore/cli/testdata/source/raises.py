# A swap function that raises in its __enter__, before any GPU thread
# starts: a -source trace of the host alone (one lane).
from contextlib import contextmanager

from numba import cuda


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    names = [*fn]  # TypeError: 'function' object is not iterable
    yield
