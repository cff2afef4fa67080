# A swap that saves and restores one name, with no registry and no lock:
# right for one thread per module (-threads 1), wrong for more; and with
# no eval-breaker check between its store and its try but its yield's,
# where an interrupt leaves the generator's finally to run when the
# exception dies (TestInterruptNotAtYield; and explore's
# TestSourceVerdicts: -faults interrupt from source is no proof, so its
# verdict is incomplete).
from contextlib import contextmanager


@contextmanager
def swapped_cuda_module(fn, fake_cuda_module):
    g = fn.__globals__
    old = g["cuda"]
    g["cuda"] = fake_cuda_module
    try:
        yield
    finally:
        g["cuda"] = old
