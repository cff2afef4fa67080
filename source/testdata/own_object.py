# An object of the file's own in place of the module, with no __getattribute__
# to read it through: a use of cuda that finds it is what -source cannot model
# (model-gap), for the command's tests (cmd/explore/cli: TestSourceOutAndReplay).
from contextlib import contextmanager


class _Stand:
    pass


_stand = _Stand()


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    from numba import cuda

    fn_globs = fn.__globals__
    for k in [k for k, v in fn_globs.items() if v is cuda]:
        fn_globs[k] = _stand
    yield
