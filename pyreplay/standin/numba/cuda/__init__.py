"""numba.cuda of swapcheck's stand-in (see numba/__init__.py): jit makes
the simulator's FakeCUDAKernel, as numba.cuda.simulator.api.jit does."""
from .simulator.kernel import FakeCUDAKernel


def jit(func_or_sig=None, device=False, **kws):
    if callable(func_or_sig):
        return FakeCUDAKernel(func_or_sig, device=device)

    def jitwrapper(fn):
        return FakeCUDAKernel(fn, device=device)
    return jitwrapper
