# A swap function that uses what explore -source's interpreter does not
# model: a set display compiles to BUILD_SET, which pyvm refuses before
# any search, naming this file's line 14, the opcode and the version.
from contextlib import contextmanager

from numba import cuda


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    fn_globs = fn.__globals__
    orig = dict((k, v) for k, v in fn_globs.items() if v is cuda)
    repl = dict((k, fake_cuda_module) for k, v in orig.items())
    names = {"cuda", "cu"}
    fn_globs.update(repl)
    try:
        yield
    finally:
        fn_globs.update(orig)
